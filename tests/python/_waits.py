"""Bounded waits on events, for tests that coordinate with other processes.

wait_until polls a condition (a log line, a listening port) with a deadline
and fails with what it waited for. PausePoint is the test's side of zt's
test-only pause (cli/test_pause.h, ztensor/_dask_cli.py): the test learns
that the work stands at a known point, acts, and lets it go on, so no test
depends on how fast the machine is.
"""

import errno
import os
import time

# Upper bound of any wait for another process's event; a loaded machine
# (make test-stress) stays far below it, a hang fails the test instead of
# stalling the run.
EVENT_SECONDS = 120
# How often wait_until looks again.
POLL_SECONDS = 0.005


def wait_until(condition, what, seconds=EVENT_SECONDS, proc=None):
    """Returns condition()'s first true value; raises AssertionError naming
    `what` once `seconds` have passed, or at once if `proc` (a Popen) has
    exited meanwhile."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the process exited ({proc.returncode}) before {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"not {what} after {seconds} s")
        time.sleep(POLL_SECONDS)


class PausePoint:
    """A FIFO named by ZT_TEST_PAUSE_FIFO in `env`: the process under test
    blocks on it after its first unit of work. `wait(proc)` returns once it
    stands there (bounded); `release()` lets it go on. Use as a context
    manager so the process is released whatever the test asserts."""

    def __init__(self, folder):
        self.path = os.path.join(folder, "zt-test-pause.fifo")
        os.mkfifo(self.path)
        self.env = {"ZT_TEST_PAUSE_FIFO": self.path}
        self._fd = None

    def _try_open(self):
        # Opening the write end without blocking succeeds only once the
        # process has opened the read end, i.e. stands at the pause.
        try:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:
            if e.errno != errno.ENXIO:
                raise
        return self._fd is not None

    def reached(self):
        return self._fd is not None or self._try_open()

    def wait(self, proc, seconds=EVENT_SECONDS):
        wait_until(self.reached, "at the pause point", seconds, proc)

    def release(self):
        if self._fd is not None:
            os.close(self._fd)  # EOF on the read end: the process goes on
            self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()
