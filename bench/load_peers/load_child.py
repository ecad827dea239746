#!/usr/bin/env python3
"""One timed load for bench/load_bench.py, in a fresh process:

    load_child.py KIND TARGET THREADS SCRATCH

KIND: safetensors (load_file of a path), curl+safetensors (curl -o to
SCRATCH, then load_file), fsspec+safetensors (fsspec's read of the whole
URL, then safetensors.torch.load), ztensor (ztensor.torch.load_file of a
path or URL on THREADS threads). Prints one JSON line: the seconds of the
load plus the touch of every 4 KiB page of every tensor, and the peak
resident memory beyond what the imports left (MB).
"""

import json
import os
import subprocess
import sys
import time

import safetensors.torch
import torch

import ztensor.torch
from peak_memory import peak_kb, reset_peak  # beside this file

# One byte per page is enough to fault every page of a mapped tensor in.
PAGE = 4096


def touch(sd) -> int:
    total = 0
    for t in sd.values():
        total += int(t.reshape(-1).view(torch.uint8)[::PAGE].sum())
    return total


def main() -> int:
    kind, target, threads, scratch = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    if kind == "fsspec+safetensors":
        import fsspec  # and its HTTP filesystem (aiohttp): imported before the baseline
        import fsspec.implementations.http  # noqa: F401
    base = reset_peak()  # the imports' peak is not the load's
    t0 = time.perf_counter()
    if kind == "safetensors":
        sd = safetensors.torch.load_file(target)
    elif kind == "curl+safetensors":
        dest = os.path.join(scratch, f"download-{os.getpid()}.safetensors")
        try:
            subprocess.run(["curl", "-sSf", "-o", dest, target], check=True)
            sd = safetensors.torch.load_file(dest)
        finally:
            if os.path.exists(dest):
                os.unlink(dest)  # the mapping keeps the bytes until sd goes
    elif kind == "fsspec+safetensors":
        with fsspec.open(target, "rb") as f:
            sd = safetensors.torch.load(f.read())
    elif kind == "ztensor":
        sd = ztensor.torch.load_file(target, threads=threads)
    else:
        raise SystemExit(f"unknown load kind {kind!r}")
    touch(sd)
    seconds = time.perf_counter() - t0
    print(json.dumps({"seconds": seconds, "peak_mb": (peak_kb() - base) * 1024 / 1e6, "tensors": len(sd)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
