// The wheel's binaries link libstdc++ statically (python/CMakeLists.txt), and GCC 12's libstdc++.a
// has std::random_device call arc4random, new in glibc 2.36: any binary that uses std::string
// pulls that code in and would need glibc 2.36, past the manylinux_2_34 the wheel promises. This
// definition, hidden, answers those calls inside each binary from getrandom (glibc 2.25) and is
// never exported, so libc's own arc4random stays the one every other library sees.
#include <stdint.h>
#include <sys/random.h>
#include <sys/types.h>
#include <time.h>

__attribute__((visibility("hidden"))) uint32_t arc4random(void) {
  uint32_t value;
  if (getrandom(&value, sizeof value, 0) == (ssize_t)sizeof value) return value;
  // No kernel entropy (a seccomp filter): random_device's callers need variety, not secrecy.
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint32_t)now.tv_nsec ^ (uint32_t)now.tv_sec;
}
