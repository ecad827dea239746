/* The C API used from plain C: write a file, read it back, hit an error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h> /* mkstemp */
#include <string.h>
#include <unistd.h>

#include "capi_check.h"
#include "ztensor/ztensor.h"

int main(void) {
  char path[] = "/tmp/zt-capi-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  float values[6] = {1, 2, 3, 4, 5, 6};
  uint64_t shape[2] = {2, 3};
  zt_component_input data = {"data", "f32", NULL, values, sizeof values};
  zt_writer* w = NULL;
  CHECK(zt_writer_create(path, &w) == ZT_OK);
  CHECK(zt_writer_add(w, "w", "dense", shape, 2, &data, 1, "zstd", 3, "sha256") == ZT_OK);
  CHECK(zt_writer_add(w, "bad", "dense", shape, 1, &data, 1, "raw", 0, NULL) == ZT_E_LENGTH_MISMATCH);
  CHECK(strstr(zt_last_error(), "object 'bad'") != NULL);
  CHECK(zt_writer_finish(w) == ZT_OK);
  zt_writer_free(w);

  zt_reader* r = NULL;
  CHECK(zt_reader_open(path, 1, &r) == ZT_OK);
  CHECK(zt_reader_count(r) == 1);
  CHECK(strcmp(zt_reader_name(r, 0), "w") == 0);
  zt_object_info info;
  CHECK(zt_reader_object(r, "w", &info) == ZT_OK);
  CHECK(info.ndim == 2 && info.shape[1] == 3 && strcmp(info.format, "dense") == 0);
  zt_component_info ci;
  CHECK(zt_reader_component(r, "w", 0, &ci) == ZT_OK);
  CHECK(strcmp(ci.encoding, "zstd") == 0 && ci.uncompressed_length == sizeof values);
  const void* bytes = NULL;
  uint64_t len = 0;
  zt_buffer* keep = NULL;
  CHECK(zt_reader_read(r, "w", "data", &bytes, &len, &keep) == ZT_OK);
  zt_reader_close(r); /* the buffer outlives the reader */
  CHECK(len == sizeof values && memcmp(bytes, values, len) == 0);
  zt_buffer_free(keep);
  CHECK(zt_reader_open("/nonexistent.zt", 0, &r) == ZT_E_IO);
  CHECK(zt_last_errno() == ENOENT); /* the number, not only strerror's text */
  CHECK(zt_reader_open(path, 0, &r) == ZT_OK);
  CHECK(zt_last_errno() == 0);
  zt_reader_close(r);
  CHECK(strcmp(zt_error_name(ZT_E_DIGEST_MISMATCH), "digest_mismatch") == 0);
  unlink(path);
  printf("capi_test: ok\n");
  return 0;
}
