"""z4ai.compress needs its frame plus a fixed working set per thread, not a
second copy of the frame: the chunks are written into the bytes object it
returns in order as they are coded, a few bodies at most waiting for the one
before them. Measured in a fresh child as the rise of its peak resident set
(VmHWM, reset through /proc/self/clear_refs just before the call) over the
resident set before it. Before, every chunk body was held until the last was
coded and then copied into the bytes object: the rise was the frame twice
(for 256 MiB of bf16 weights, ~170 MiB beyond the frame)."""

import subprocess
import sys
import textwrap

import pytest

MiB = 1 << 20
INPUT_MIB = 256
# Per coding thread: one 4 MiB chunk's streams, candidate bodies and coder
# scratch, and what glibc keeps of them for reuse (measured 25-33 MiB a
# thread; with M_MMAP_THRESHOLD fixed, 15); plus the chunks waiting in order.
WORKING_SET_PER_THREAD = 40 * MiB

CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    import z4ai

    def status(key):
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith(key))

    # Trained-like bf16 weights: the frame is about two thirds of the input.
    w = np.random.default_rng(7).standard_normal(int(sys.argv[1]) << 19, dtype=np.float32) * 0.02
    data = (w.view(np.uint32) >> 16).astype(np.uint16).tobytes()
    del w
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # VmHWM := VmRSS
    before = status("VmRSS:")
    frame = z4ai.compress(data, dtype="bf16", threads=int(sys.argv[2]))
    rise = status("VmHWM:") - before
    assert z4ai.decompress(frame) == data
    print(len(data), len(frame), rise)
""")


@pytest.mark.parametrize("threads", [1, 2])
def test_compress_needs_its_frame_and_a_working_set_per_thread(threads):
    out = subprocess.run([sys.executable, "-c", CHILD, str(INPUT_MIB), str(threads)], check=True,
                         capture_output=True, text=True).stdout
    data_bytes, frame_bytes, rise = map(int, out.split())
    assert frame_bytes > data_bytes // 2  # the case intended: a large frame
    beyond = rise - frame_bytes
    assert beyond <= threads * WORKING_SET_PER_THREAD, (
        f"compress of {data_bytes / MiB:.0f} MiB rose {rise / MiB:.1f} MiB: {beyond / MiB:.1f} MiB beyond its "
        f"{frame_bytes / MiB:.1f} MiB frame at {threads} thread(s)")
