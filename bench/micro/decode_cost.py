#!/usr/bin/env python3
"""What default z4ai decode costs per core: instructions per output byte and MB/s.

    python3 bench/micro/decode_cost.py [--callgrind] [--before BIN] [--reps 15] [--rounds 3] [cell ...]

Cells: N(0, 0.02) weights cast to bf16, fp16 and fp32, 1, 4 and 64 MiB
(a cell is e.g. "fp16-4"; give some to run only those). decode_profile
(bench/micro/decode_profile.cc, built with -DZT_BUILD_BENCH=ON) writes each
default frame once; with --before, the other build's binary writes its own
and the two frames must be identical (the script stops otherwise).

Wall time: the median of --reps decodes at threads=1 into one buffer, taken
--rounds times with the builds interleaved; the median of those is reported.
On a loaded machine it moves by +-20 %; --callgrind also counts the decode's
instructions (valgrind's Ir inside z4ai::decompress_into, load-independent;
valgrind runs the AVX2 code paths, not AVX-512).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_BIN = os.path.join(ROOT, "build", "bench", "micro", "decode_profile")
CELLS = [f"{d}-{m}" for m in (1, 4, 64) for d in ("bf16", "fp16", "fp32")]


def run(args: list) -> str:
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def encode(binary: str, cell: str, path: str) -> tuple:
    dtype, mib = cell.split("-")
    size, frame, digest = run([binary, "encode", dtype, mib, path]).split()
    return int(size), int(frame), digest


def seconds(binary: str, frame: str, reps: int) -> float:
    return float(run([binary, "decode", frame, str(reps)]))


def instructions(binary: str, frame: str) -> int:
    with tempfile.NamedTemporaryFile() as cg:
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg.name}",
                            "--toggle-collect=z4ai::decompress_into(*", binary, "decode", frame, "1"],
                           capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", r.stderr).group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=DEFAULT_BIN, help="decode_profile of the build measured")
    ap.add_argument("--before", default="", help="decode_profile of the build to compare against")
    ap.add_argument("--callgrind", action="store_true", help="also count instructions (valgrind)")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("cells", nargs="*", help=f"some of {', '.join(CELLS)}")
    args = ap.parse_args()
    builds = [("after", args.binary)] + ([("before", args.before)] if args.before else [])
    head = "| cell | frame / input | MB/s |" + (" Ir/byte |" if args.callgrind else "")
    if args.before:
        head += " MB/s after / before |" + (" Ir/byte before | Ir after / before |" if args.callgrind else "")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    with tempfile.TemporaryDirectory() as tmp:
        for cell in args.cells or CELLS:
            frames, size, ratio = {}, 0, 0.0
            for label, binary in builds:
                frames[label] = os.path.join(tmp, f"{cell}.{label}.z4ai")
                size, fsize, digest = encode(binary, cell, frames[label])
                ratio = fsize / size
                frames[label, "digest"] = digest
            if args.before and frames["after", "digest"] != frames["before", "digest"]:
                sys.exit(f"{cell}: the builds write different frames")
            secs = {label: [] for label, _ in builds}
            for _ in range(args.rounds):  # interleaved, so both see the same load
                for label, binary in builds:
                    secs[label].append(seconds(binary, frames[label], args.reps))
            mbs = {label: size / statistics.median(s) / 1e6 for label, s in secs.items()}
            ir = {label: instructions(binary, frames[label]) / size for label, binary in builds} if args.callgrind else {}
            row = f"| {cell} | {ratio:.4f} | {mbs['after']:.0f} |" + (f" {ir['after']:.2f} |" if ir else "")
            if args.before:
                row += f" {mbs['after'] / mbs['before']:.2f} |"
                row += f" {ir['before']:.2f} | {ir['after'] / ir['before']:.2f} |" if ir else ""
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
