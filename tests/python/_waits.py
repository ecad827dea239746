"""Bounded waits on events, for tests that coordinate with other processes.

wait_until polls a condition (a log line, a listening port) with a deadline
and fails with what it waited for. PausePoint is the test's side of zt's
test-only pause point "progress" (cli/test_pause.h, ztensor/_dask_cli.py): the test learns
that the work stands at a known point, acts, and lets it go on, so no test
depends on how fast the machine is.
"""

import os
import time
from pathlib import Path

from _pause import Pause

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


class PausePoint(Pause):
    """zt's pause after its first unit of work (the point "progress",
    cli/test_pause.h and ztensor/_dask_cli.py): `wait(proc)` returns once the
    process stands there (bounded), `reached()` tells without blocking,
    `release()` lets it go on. Use as a context manager so the process is
    released whatever the test asserts."""

    def __init__(self, folder):
        super().__init__(Path(folder), "progress")

    def release(self):
        if self.pid is not None:
            self.resume()
            self.pid = None
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


# What a hung process tree shows in its failure: each process's state and
# signal masks, and the Python stacks of children run with faulthandler on.
DUMP_ENV = {"PYTHONFAULTHANDLER": "1"}


def _signal_state(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return " ".join(line.split(":")[0] + "=" + line.split(":", 1)[1].strip()
                            for line in f if line.startswith(("State", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")))
    except OSError:
        return "gone"


def communicate_or_explain(proc, seconds=EVENT_SECONDS):
    """proc.communicate() bounded by `seconds`; on a hang, fails with the
    state of `proc` and its children, whose Python stacks (started with
    DUMP_ENV) SIGABRT makes faulthandler print to the stderr collected here."""
    import signal
    import subprocess

    try:
        return proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        try:
            with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as f:
                children = [int(pid) for pid in f.read().split()]
        except OSError:
            children = []
        state = [f"{proc.pid}: {_signal_state(proc.pid)}"] + [f"{pid}: {_signal_state(pid)}" for pid in children]
        for pid in children:
            try:
                os.kill(pid, signal.SIGABRT)
            except ProcessLookupError:
                pass
        proc.kill()
        _, err = proc.communicate(timeout=seconds)
        raise AssertionError(f"no exit within {seconds} s:\n" + "\n".join(state) + f"\n{err}") from None
