"""Peak resident memory of one step in a benchmark's child process.

getrusage's ru_maxrss cannot be used: Linux carries the parent's peak into
a child across fork and exec. VmHWM is the process's own, and writing "5"
to /proc/self/clear_refs (Linux >= 4.0) resets it to the current RSS.
"""


def status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


def reset_peak() -> int:
    """Starts a measurement: VmHWM := VmRSS; returns that RSS (KiB)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    return status_kb("VmRSS")


def peak_kb() -> int:
    """The peak RSS (KiB) since the last reset_peak()."""
    return status_kb("VmHWM")
