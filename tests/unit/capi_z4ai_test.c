/* The C API reads and writes z4ai components (what `zt compress ... .zt`
 * writes by default) with no registration call: libztensor ships the
 * encoding registered. Before the core was assembled in one library this
 * failed with unknown_encoding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ztensor/ztensor.h"

#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "%s:%d: %s (%s)\n", __FILE__, __LINE__, #cond, \
              zt_last_error() ? zt_last_error() : "");               \
      return 1;                                                       \
    }                                                                 \
  } while (0)

enum { kCount = 4096 };

int main(void) {
  char path[] = "/tmp/zt_capi_z4ai_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);

  static float values[kCount];
  for (int i = 0; i < kCount; ++i) values[i] = (float)(i % 97) * 0.125f - 3.0f;

  zt_writer* w = NULL;
  CHECK(zt_writer_create(path, &w) == ZT_OK);
  const uint64_t shape[2] = {64, 64};
  zt_component_input data = {"data", "f32", NULL, values, sizeof values};
  CHECK(zt_writer_add(w, "w", "dense", shape, 2, &data, 1, "z4ai", 0, "sha256") == ZT_OK);
  CHECK(zt_writer_finish(w) == ZT_OK);
  zt_writer_free(w);

  zt_reader* r = NULL;
  CHECK(zt_reader_open(path, 1, &r) == ZT_OK);
  zt_component_info info;
  CHECK(zt_reader_component(r, "w", 0, &info) == ZT_OK);
  CHECK(strcmp(info.encoding, "z4ai") == 0);
  CHECK(info.length < sizeof values);
  const void* out = NULL;
  uint64_t length = 0;
  zt_buffer* keep = NULL;
  CHECK(zt_reader_read(r, "w", "data", &out, &length, &keep) == ZT_OK);
  CHECK(length == sizeof values);
  CHECK(memcmp(out, values, sizeof values) == 0);
  zt_buffer_free(keep);
  CHECK(zt_reader_verify(r) == ZT_OK);
  zt_reader_close(r);
  unlink(path);
  printf("capi_z4ai_test: ok\n");
  return 0;
}
