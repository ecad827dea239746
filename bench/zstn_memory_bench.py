#!/usr/bin/env python3
"""Peak memory of `zt compress` / `zt decompress` for .zt and .zstn: both must stay
bounded whatever the model size.

Writes a synthetic safetensors model (weight-like float32 tensors of 64 MiB, or
--tensor-mib),
runs each command as a child process and samples its /proc status every few
milliseconds: peak RSS (VmHWM, which includes the page cache pages of mapped
inputs) and peak anonymous memory (RssAnon, the process's own allocations).
Prints one Markdown table row per command.

    python bench/zstn_memory_bench.py --zt build/cli/zt            # 1 GiB
    python bench/zstn_memory_bench.py --zt build/cli/zt --tensor-mib 1024   # one 1 GiB tensor
    python bench/zstn_memory_bench.py --zt build/cli/zt --size-gib 10 --dir DIR
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import tempfile
import time

import numpy as np

MiB = 1 << 20
TENSOR_BYTES = 64 * MiB


def write_model(path, n_tensors: int, tensor_bytes: int) -> None:
    """A safetensors file of weight-like float32 tensors, written tensor by
    tensor (tests/python/z4ai/test_zstn_bounded_memory.py uses it too)."""
    n = tensor_bytes // 4
    header = {f"layer{i}.weight": {"dtype": "F32", "shape": [n],
                                   "data_offsets": [i * tensor_bytes, (i + 1) * tensor_bytes]}
              for i in range(n_tensors)}
    hj = json.dumps(header).encode()
    hj += b" " * (-len(hj) % 8)
    rng = np.random.default_rng(0)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hj)) + hj)
        for _ in range(n_tensors):
            f.write((rng.standard_normal(n, dtype=np.float32) * 0.02).tobytes())


def status_kib(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def measure(cmd: list[str]) -> tuple[float, float, float]:
    """(seconds, peak RSS MiB, peak RssAnon MiB) of one child process."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    hwm = anon = 0
    while p.poll() is None:
        hwm = max(hwm, status_kib(p.pid, "VmHWM"))
        anon = max(anon, status_kib(p.pid, "RssAnon"))
        time.sleep(0.005)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {p.stderr.read().decode()}")
    return time.monotonic() - start, hwm / 1024, anon / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zt", default="zt", help="the zt binary")
    ap.add_argument("--size-gib", type=float, default=1.0, help="model size (10 for the large run)")
    ap.add_argument("--tensor-mib", type=int, default=TENSOR_BYTES // MiB, help="size of each tensor")
    ap.add_argument("--dir", default=None, help="scratch directory (needs ~3x the model size free)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        st = os.path.join(d, "model.safetensors")
        tensor_bytes = args.tensor_mib * MiB
        n = max(1, int(args.size_gib * (1 << 30)) // tensor_bytes)
        write_model(st, n, tensor_bytes)
        size_mib = os.path.getsize(st) / MiB
        print(f"model: {n} float32 tensors of {args.tensor_mib} MiB, {size_mib:.0f} MiB; zt = {args.zt}\n")
        print("| command | seconds | peak RSS MiB | peak anonymous MiB |")
        print("|---|---:|---:|---:|")
        for label, cmd in [
            ("zt compress model.safetensors model.zt", [args.zt, "compress", st, os.path.join(d, "m.zt")]),
            ("zt compress model.safetensors model.zstn", [args.zt, "compress", st, os.path.join(d, "m.zstn")]),
            ("zt decompress model.zt model.safetensors", [args.zt, "decompress", os.path.join(d, "m.zt"),
                                                          os.path.join(d, "a.safetensors")]),
            ("zt decompress model.zstn model.safetensors", [args.zt, "decompress", os.path.join(d, "m.zstn"),
                                                            os.path.join(d, "b.safetensors")]),
            ("zt verify model.zstn", [args.zt, "verify", os.path.join(d, "m.zstn")]),
        ]:
            secs, rss, anon = measure(cmd)
            print(f"| `{label}` | {secs:.1f} | {rss:.0f} | {anon:.0f} |", flush=True)


if __name__ == "__main__":
    main()
