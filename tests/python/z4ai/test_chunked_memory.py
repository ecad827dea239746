"""z4ai.chunked needs little more memory than its result: compress codes each
chunk in place into the bytes object it returns (no whole-frame vector, no
copy into bytes), decompress decodes into its bytes object. Measured in a
fresh child as the rise of its peak resident set (VmHWM, reset through
/proc/self/clear_refs just before the call) over the resident set before it.
Before the in-place writer, compress peaked at ~2.5x the frame."""

import subprocess
import sys
import textwrap

MiB = 1 << 20
# Per thread: one plane of zstd scratch and a zstd context; one 2 MiB staging
# slot per extra thread; page rounding.
SLACK = 12 * MiB

CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    import z4ai.chunked

    def status(key):
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith(key))

    def rise(fn):
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # VmHWM := VmRSS
        before = status("VmRSS:")
        out = fn()
        return out, status("VmHWM:") - before

    # 48 MiB of fp32 weights: the mantissa planes stay stored, the frame is
    # most of the input.
    data = np.random.default_rng(11).standard_normal(12 * 1024 * 1024, dtype=np.float32).tobytes()
    frame, c_rise = rise(lambda: z4ai.chunked.compress(data, dtype="fp32", threads=2))
    back, d_rise = rise(lambda: z4ai.chunked.decompress(frame, threads=2))
    assert back == data
    print(len(frame), c_rise, len(back), d_rise)
""")


def test_compress_and_decompress_need_little_more_than_their_result():
    out = subprocess.run([sys.executable, "-c", CHILD], check=True, capture_output=True, text=True).stdout
    frame_bytes, c_rise, data_bytes, d_rise = map(int, out.split())
    assert frame_bytes > 30 * MiB  # the case is the one intended: a large frame
    assert c_rise <= frame_bytes + SLACK, f"compress rose {c_rise / MiB:.1f} MiB for a {frame_bytes / MiB:.1f} MiB frame"
    assert d_rise <= data_bytes + SLACK, f"decompress rose {d_rise / MiB:.1f} MiB for {data_bytes / MiB:.1f} MiB"


OOM_CHILD = textwrap.dedent("""
    import resource
    import numpy as np
    import z4ai.chunked

    data = np.random.default_rng(3).standard_normal(16 * 1024 * 1024, dtype=np.float32).tobytes()  # 64 MiB
    with open("/proc/self/status") as f:
        vm = next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize:"))
    limit = vm + len(data) // 2  # less than the frame's bound
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for threads in (1, 2):
        try:
            z4ai.chunked.compress(data, dtype="fp32", threads=threads)
            print("compressed")
        except z4ai.Z4aiError as e:
            print(e.code)
""")


def test_compress_out_of_memory_is_limit_exceeded_at_every_thread_count():
    # Before: the frame was built in worker threads' vectors, and a failed
    # allocation there aborted the interpreter (std::terminate).
    r = subprocess.run([sys.executable, "-c", OOM_CHILD], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["limit_exceeded", "limit_exceeded"]
