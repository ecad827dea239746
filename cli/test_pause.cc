#include "test_pause.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>

namespace zt::cli {

void pause_for_test_after_progress(uint64_t done) {
  static std::atomic<bool> paused{false};
  if (done == 0 || paused.load(std::memory_order_relaxed)) return;
  const char* fifo = std::getenv(kTestPauseEnv);
  if (fifo == nullptr || *fifo == '\0' || paused.exchange(true)) return;
  // Opening blocks until the test opens the write end: that is its signal
  // that the work stands here. Signals (EINTR) do not end the pause; the
  // test's close (EOF) does.
  int fd = -1;
  do fd = ::open(fifo, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return;
  char byte = 0;
  for (;;) {
    const ssize_t n = ::read(fd, &byte, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  ::close(fd);
}

}  // namespace zt::cli
