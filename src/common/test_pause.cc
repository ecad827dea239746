#include "ztensor/test_pause.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace zt {

void test_pause(const char* point) {
  const char* at = std::getenv(kTestPauseAtEnv);
  const char* fifo = std::getenv(kTestPauseFifoEnv);
  if (!at || !fifo || std::strcmp(at, point) != 0) return;
  static std::atomic<bool> paused{false};
  if (paused.exchange(true)) return;
  int fd = ::open(fifo, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  char line[256];
  const int n = std::snprintf(line, sizeof line, "%ld %s\n", static_cast<long>(::getpid()), point);
  ssize_t written = ::write(fd, line, static_cast<size_t>(n));
  (void)written;
  ::close(fd);
  // Blocks until the test opens its write end. A signal (the SIGINT or
  // SIGWINCH a test sends meanwhile) does not end the pause; the test's close does.
  do fd = ::open(fifo, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return;
  for (char c;;) {  // until the test closes it
    const ssize_t r = ::read(fd, &c, 1);
    if (r == 0 || (r < 0 && errno != EINTR)) break;
  }
  ::close(fd);
}

}  // namespace zt
