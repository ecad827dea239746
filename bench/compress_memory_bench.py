#!/usr/bin/env python3
"""Working memory of z4ai.compress (the default Z4AI frame) beside z4ai.chunked:
what one call needs beyond its input and its frame, as a share of the input.

Each call runs in a fresh child process: the rise of its peak resident set
(VmHWM, reset through /proc/self/clear_refs just before the call) over the
resident set before it, less the frame it returns. The input is trained-like
bf16 weights (normal, sigma 0.02). Rounds are interleaved; prints the median
of each cell as a Markdown table.

    python bench/compress_memory_bench.py                  # 500 MB, threads 1 and 2, 3 rounds
    python bench/compress_memory_bench.py --mib 256 --before OTHER_VENV/bin/python

--before runs the same cells with another interpreter (a venv holding an
earlier build) in the same rounds, for a before/after table.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import textwrap

MiB = 1 << 20

CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    import z4ai, z4ai.chunked

    def status(key):
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith(key))

    mib, threads, codec = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    w = np.random.default_rng(7).standard_normal(mib << 19, dtype=np.float32) * 0.02
    data = (w.view(np.uint32) >> 16).astype(np.uint16).tobytes()
    del w
    compress = z4ai.compress if codec == "default" else z4ai.chunked.compress
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # VmHWM := VmRSS
    before = status("VmRSS:")
    start = time.perf_counter()
    frame = compress(data, dtype="bf16", threads=threads)
    seconds = time.perf_counter() - start
    print(len(data), len(frame), status("VmHWM:") - before, seconds)
""")


def run(python: str, mib: int, threads: int, codec: str):
    out = subprocess.run([python, "-c", CHILD, str(mib), str(threads), codec], check=True, capture_output=True,
                         text=True).stdout.split()
    data, frame, rise, seconds = int(out[0]), int(out[1]), int(out[2]), float(out[3])
    return (rise - frame) / data, frame, seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mib", type=int, default=477, help="input size in MiB (477 MiB = 500 MB)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--before", help="another interpreter to measure in the same rounds")
    args = ap.parse_args()
    pythons = {"ours": sys.executable, **({"before": args.before} if args.before else {})}
    cells = [(who, codec, t) for t in args.threads for codec in ("default", "chunked") for who in pythons]
    samples: dict = {cell: [] for cell in cells}
    for _ in range(args.rounds):
        for who, codec, t in cells:
            samples[(who, codec, t)].append(run(pythons[who], args.mib, t, codec))
    print(f"{args.mib} MiB of bf16 weights, median of {args.rounds} interleaved rounds\n")
    print("| build | codec | threads | frame / input | working memory beyond the frame, % of input | seconds |")
    print("|---|---|---:|---:|---:|---:|")
    for who, codec, t in cells:
        s = samples[(who, codec, t)]
        share = statistics.median(x[0] for x in s)
        frame = statistics.median(x[1] for x in s) / (args.mib * MiB)
        seconds = statistics.median(x[2] for x in s)
        print(f"| {who} | {codec} | {t} | {frame:.3f} | {100 * share:.1f} % | {seconds:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
