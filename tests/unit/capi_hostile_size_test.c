/* A .zt whose zstd component declares ~4 GiB from 1 MiB of stored bytes,
 * read through the C API with 1 GiB of address space: a code comes back
 * (length_mismatch, found before allocating), the host is not aborted by a
 * std::bad_alloc crossing extern "C". */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h> /* mkstemp */
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "capi_check.h"
#include "ztensor/ztensor.h"

enum { kCount = 1 << 18 }; /* 1 MiB of f32 */

/* Overwrites the CBOR bytes `from` that follow the text `key` with `to`
 * (same length, so the manifest keeps its size). */
static int patch_after(unsigned char* buf, size_t n, const char* key, const unsigned char* from,
                       const unsigned char* to, size_t len) {
  unsigned char* k = memmem(buf, n, key, strlen(key));
  if (!k) return 0;
  unsigned char* v = memmem(k, n - (size_t)(k - buf), from, len);
  if (!v || v - k > 32) return 0;
  memcpy(v, to, len);
  return 1;
}

int main(void) {
  char path[] = "/tmp/zt-capi-hostile-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  uint32_t* values = malloc(kCount * sizeof *values);
  CHECK(values != NULL);
  uint32_t x = 12345;
  for (int i = 0; i < kCount; ++i) values[i] = x = x * 1664525u + 1013904223u; /* incompressible */
  uint64_t shape[1] = {kCount};
  zt_component_input data = {"data", "f32", NULL, values, (uint64_t)kCount * 4};
  zt_writer* w = NULL;
  CHECK(zt_writer_create(path, &w) == ZT_OK);
  CHECK(zt_writer_add(w, "w", "dense", shape, 1, &data, 1, "zstd", 1, NULL) == ZT_OK);
  CHECK(zt_writer_finish(w) == ZT_OK);
  zt_writer_free(w);
  free(values);

  /* shape [2^18] -> [2^30 - 1]; uncompressed_length 2^20 -> 2^32 - 4. */
  FILE* f = fopen(path, "r+b");
  CHECK(f != NULL);
  static unsigned char buf[4 << 20];
  size_t n = fread(buf, 1, sizeof buf, f);
  const unsigned char shape_from[] = {0x81, 0x1a, 0x00, 0x04, 0x00, 0x00};
  const unsigned char shape_to[] = {0x81, 0x1a, 0x3f, 0xff, 0xff, 0xff};
  const unsigned char ulen_from[] = {0x1a, 0x00, 0x10, 0x00, 0x00};
  const unsigned char ulen_to[] = {0x1a, 0xff, 0xff, 0xff, 0xfc};
  CHECK(patch_after(buf, n, "shape", shape_from, shape_to, sizeof shape_from));
  CHECK(patch_after(buf, n, "uncompressed_length", ulen_from, ulen_to, sizeof ulen_from));
  CHECK(fseek(f, 0, SEEK_SET) == 0 && fwrite(buf, 1, n, f) == n && fclose(f) == 0);

  // ASan reserves terabytes of shadow address space, so under it the 1 GiB
  // cap comes from ASAN_OPTIONS max_allocation_size_mb (set by CMake) instead.
#ifndef __SANITIZE_ADDRESS__
  struct rlimit lim = {1ul << 30, 1ul << 30};
  CHECK(setrlimit(RLIMIT_AS, &lim) == 0);
#endif
  zt_reader* r = NULL;
  CHECK(zt_reader_open(path, 0, &r) == ZT_OK);
  const void* bytes = NULL;
  uint64_t len = 0;
  zt_buffer* keep = NULL;
  CHECK(zt_reader_read(r, "w", "data", &bytes, &len, &keep) == ZT_E_LENGTH_MISMATCH);
  CHECK(strstr(zt_last_error(), "frame content size") != NULL);
  CHECK(bytes == NULL && keep == NULL);
  CHECK(zt_reader_verify(r) == ZT_E_LENGTH_MISMATCH);
  zt_reader_close(r);
  unlink(path);
  printf("capi_hostile_size_test: ok\n");
  return 0;
}
