/* A .zt whose z4ai component is a 288-byte frame claiming 4 GiB (16 chunks of
 * 256 MiB, each one stored stream of 0 bytes: tests/corrupt), read through the
 * C API: corrupt_stream comes back, and the process's peak resident size
 * (getrusage ru_maxrss, a kernel high-water mark) rises far less than one
 * chunk, since the stream table is checked against the stored bytes before
 * any output page is touched. Once each decoding thread prefaulted its
 * 256 MiB chunk first (522 MiB at two threads).
 *   capi_decode_memory_test PATH_TO_THE_ZT */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "capi_check.h"
#include "ztensor/ztensor.h"

/* Far below one 256 MiB chunk: the refusal may cost tables and stacks, not output pages. */
enum { kBudgetKiB = 64 << 10 };

static long peak_kib(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

int main(int argc, char** argv) {
  CHECK(argc == 2);
  zt_reader* r = NULL;
  CHECK(zt_reader_open(argv[1], 0, &r) == ZT_OK);
  const long before = peak_kib();
  CHECK(before > 0);
  const void* bytes = NULL;
  uint64_t len = 0;
  zt_buffer* keep = NULL;
  const int read = zt_reader_read(r, "x", "data", &bytes, &len, &keep);
  const int verify = zt_reader_verify(r);
  const long rise = peak_kib() - before;
  zt_reader_close(r);
  CHECK(read == ZT_E_CORRUPT_STREAM && verify == ZT_E_CORRUPT_STREAM);
  CHECK(bytes == NULL && keep == NULL);
  if (rise >= kBudgetKiB) fprintf(stderr, "peak resident size rose %ld KiB for a 4 GiB claim\n", rise);
  CHECK(rise < kBudgetKiB);
  printf("capi_decode_memory_test: ok (peak rose %ld KiB)\n", rise);
  return 0;
}
