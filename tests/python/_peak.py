"""Peak resident memory of a command, as the kernel counts it.

The kernel keeps each process's high-water resident set (getrusage's
ru_maxrss): unlike sampling /proc every few ms, it cannot miss a short
peak. One catch: a child's high-water mark starts at its parent's resident
set when it is forked (or vforked) and execs. So the command is started by a
small interpreter of its own (a few MiB), which reports the rusage of that
one child (wait4), not of pytest's large process.
"""

import subprocess
import sys

# -I -S: no site packages and no environment settings, so the starter stays
# a few MiB; the command runs with the caller's environment all the same.
_STARTER = """
import os, sys
pid = os.posix_spawnp(sys.argv[1], sys.argv[1:], os.environ)
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024)
"""


def peak_rss_of(cmd, timeout=600, env=None):
    """Runs `cmd` (a list); returns (returncode, peak resident bytes, stderr
    text, stdout text). A command killed by a signal has returncode -SIG."""
    out = subprocess.run([sys.executable, "-I", "-S", "-c", _STARTER, *map(str, cmd)], capture_output=True,
                         text=True, timeout=timeout, env=env)
    assert out.returncode == 0, out.stderr  # the starter itself
    lines = out.stdout.rstrip("\n").split("\n")
    rc, peak = map(int, lines[-1].split())
    return rc, peak, out.stderr, "\n".join(lines[:-1])
