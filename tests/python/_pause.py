"""The test's side of the library's pause points (include/ztensor/test_pause.h):
run a process with ``pause.env``, ``wait()`` until it reaches the point
(returns the pid of the process that paused, which may be a child of the one
started), act (truncate a file, kill it), then ``resume()`` it.

Every wait is on an event (the FIFO) and bounded in time; a process that
exits before reaching the point fails the wait at once.
"""

import errno
import os
import select
import time

# How long a process may take to reach its pause point, or to reopen the
# FIFO when resumed (it does so at once; the bound is for a broken build).
PAUSE_TIMEOUT_S = 120


class Pause:
    def __init__(self, tmp_path, point):
        self.point = point
        self.fifo = str(tmp_path / f"pause-{point.replace(':', '-')}.fifo")
        os.mkfifo(self.fifo)
        # Held open for reading before the process starts, so its write-open
        # never blocks.
        self._read = os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK)
        self.env = {"ZT_TEST_PAUSE_AT": point, "ZT_TEST_PAUSE_FIFO": self.fifo}
        self.pid = None
        self._line = b""

    def _take_announcement(self, timeout):
        """Reads what the process wrote within `timeout` s; True once its line is whole."""
        if self.pid is not None:
            return True
        ready, _, _ = select.select([self._read], [], [], timeout)
        if ready:
            self._line += os.read(self._read, 256)
        if not self._line.endswith(b"\n"):
            return False
        pid, point = self._line.decode().split()
        assert point == self.point, self._line
        self.pid = int(pid)
        return True

    def reached(self):
        """Whether the process stands at the point now (never blocks)."""
        return self._take_announcement(0)

    def wait(self, proc):
        """Blocks until the process reaches the point; returns the pid that paused.
        ``proc`` (a Popen) is watched so that an early exit fails at once."""
        deadline = time.monotonic() + PAUSE_TIMEOUT_S
        while not self._take_announcement(1.0):
            if time.monotonic() > deadline:
                raise AssertionError(f"no pause at {self.point} within {PAUSE_TIMEOUT_S} s")
            if proc.poll() is not None:
                out, err = proc.communicate()
                raise AssertionError(f"exited with {proc.returncode} before pausing at {self.point}: {out} {err}")
        return self.pid

    def resume(self):
        """Lets the paused process go on: it waits for our write end to open
        and close. A process that died at the point (a test killed or
        interrupted it there) has nothing to resume."""
        self.close()  # else our own read end would let the write-open succeed before the process reopens
        deadline = time.monotonic() + PAUSE_TIMEOUT_S
        while True:
            try:
                fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError as e:  # ENXIO: the process has not reopened the FIFO for reading yet
                if e.errno != errno.ENXIO or time.monotonic() > deadline:
                    raise
                if self.pid is not None and not _alive(self.pid):
                    return
                select.select([], [], [], 0.01)
        os.close(fd)

    def close(self):
        if self._read is not None:
            os.close(self._read)
            self._read = None


def _alive(pid):
    """Whether `pid` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False
