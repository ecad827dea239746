/* Built by test_pkgconfig.py against an installed prefix, with the flags `pkg-config ztensor`
 * gives: writes a 2x3 f32 tensor through the C API, reads it back and compares. */
#include <stdio.h>
#include <string.h>

#include <ztensor/ztensor.h>

static int fail(const char* what, int code) {
  fprintf(stderr, "%s: %s (%s)\n", what, zt_error_name(code), zt_last_error());
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const float values[6] = {1.0f, -2.5f, 3.25f, 0.0f, 1e-3f, 42.0f};
  const uint64_t shape[2] = {2, 3};
  zt_component_input data = {"data", "f32", NULL, values, sizeof values};
  zt_writer* w = NULL;
  int rc = zt_writer_create(argv[1], &w);
  if (rc != ZT_OK) return fail("zt_writer_create", rc);
  rc = zt_writer_add(w, "weights", "dense", shape, 2, &data, 1, "zstd", 3, "sha256");
  if (rc != ZT_OK) return fail("zt_writer_add", rc);
  rc = zt_writer_finish(w);
  zt_writer_free(w);
  if (rc != ZT_OK) return fail("zt_writer_finish", rc);

  zt_reader* r = NULL;
  rc = zt_reader_open(argv[1], 1, &r);
  if (rc != ZT_OK) return fail("zt_reader_open", rc);
  const void* bytes = NULL;
  uint64_t length = 0;
  zt_buffer* keep = NULL;
  rc = zt_reader_read(r, "weights", "data", &bytes, &length, &keep);
  if (rc != ZT_OK) return fail("zt_reader_read", rc);
  int same = length == sizeof values && memcmp(bytes, values, sizeof values) == 0;
  zt_buffer_free(keep);
  zt_reader_close(r);
  if (!same) {
    fprintf(stderr, "read back %llu bytes that differ from the written tensor\n", (unsigned long long)length);
    return 1;
  }
  printf("roundtrip ok\n");
  return 0;
}
