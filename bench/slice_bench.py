#!/usr/bin/env python3
"""Reader.get_slice against safetensors' safe_open(...).get_slice, side by side.

    python3 bench/slice_bench.py            # 32768x1536 f32 embedding (192 MiB), 15 rounds
    python3 bench/slice_bench.py --full     # 151936x1536 f32 (Qwen2 vocab, 890 MiB)

Rows 1000:1010 (and a column block, [:, 256:320]) of one embedding, the same values written once by
safetensors (.safetensors) and once by ztensor (raw .zt). Each round times
every case for --calls calls (per-call mean) in a rotated order, so the
rounds interleave; the table gives the median over rounds, min-max, and
zt/st ratios of medians. Files are opened once ("slice") or per call
("open + slice"). numpy slices from ztensor are views of the mapping;
"numpy + copy" adds np.array(...) to compare like for like with
safetensors, which copies. The "read + slice" row is what ztensor users had
before get_slice: Reader.read(name, "torch")[1000:1010].

This is a benchmark, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from typing import Callable, Dict, List

import numpy as np

NAME = "model.embed_tokens.weight"
ROWS = slice(1000, 1010)
# A column block: every row, strided source runs (a tensor-parallel shard's cut).
COLS = (slice(None), slice(256, 320))
# Cases that copy megabytes per call run 1/HEAVY_DIVISOR of --calls.
HEAVY_DIVISOR = 20


def write_files(tmp: str, shape) -> Dict[str, str]:
    from safetensors.numpy import save_file
    import ztensor.numpy as ztnp

    emb = np.random.default_rng(0).standard_normal(shape, dtype=np.float32)
    paths = {"st": os.path.join(tmp, "m.safetensors"), "zt": os.path.join(tmp, "m.zt")}
    save_file({NAME: emb}, paths["st"])
    ztnp.save_file({NAME: emb}, paths["zt"])
    return paths


def cases(paths: Dict[str, str]) -> Dict[str, Callable[[], object]]:
    """(row label, library) -> one call. Readers opened here stay open."""
    from safetensors import safe_open
    import ztensor

    st_np, st_pt = safe_open(paths["st"], "np"), safe_open(paths["st"], "pt")
    zt = ztensor.open(paths["zt"])
    zt_on_st = ztensor.open(paths["st"])

    def zt_open_slice(framework):
        with ztensor.open(paths["zt"]) as r:
            return r.get_slice(NAME, framework)[ROWS]

    def st_open_slice(framework):
        with safe_open(paths["st"], framework) as f:
            return f.get_slice(NAME)[ROWS]

    return {
        ("numpy: slice", "zt"): lambda: zt.get_slice(NAME)[ROWS],
        ("numpy: slice", "st"): lambda: st_np.get_slice(NAME)[ROWS],
        ("numpy + copy: slice", "zt"): lambda: np.array(zt.get_slice(NAME)[ROWS]),
        ("numpy + copy: slice", "st"): lambda: st_np.get_slice(NAME)[ROWS],
        ("numpy: ztensor reading the .safetensors file", "zt"): lambda: zt_on_st.get_slice(NAME)[ROWS],
        ("numpy: ztensor reading the .safetensors file", "st"): lambda: st_np.get_slice(NAME)[ROWS],
        ("torch: slice", "zt"): lambda: zt.get_slice(NAME, "torch")[ROWS],
        ("torch: slice", "st"): lambda: st_pt.get_slice(NAME)[ROWS],
        ("torch: open + slice", "zt"): lambda: zt_open_slice("torch"),
        ("torch: open + slice", "st"): lambda: st_open_slice("pt"),
        ("numpy: open + slice", "zt"): lambda: zt_open_slice("numpy"),
        ("numpy: open + slice", "st"): lambda: st_open_slice("np"),
        ("torch: rows and columns [1000:1010, 256:320]", "zt"): lambda: zt.get_slice(NAME, "torch")[ROWS, COLS[1]],
        ("torch: rows and columns [1000:1010, 256:320]", "st"): lambda: st_pt.get_slice(NAME)[ROWS, COLS[1]],
        ("torch: column block [:, 256:320]", "zt"): lambda: zt.get_slice(NAME, "torch")[COLS],
        ("torch: column block [:, 256:320]", "st"): lambda: st_pt.get_slice(NAME)[COLS],
        ("numpy + copy: column block [:, 256:320]", "zt"): lambda: np.array(zt.get_slice(NAME)[COLS]),
        ("numpy + copy: column block [:, 256:320]", "st"): lambda: st_np.get_slice(NAME)[COLS],
        ("torch: Reader.read(name, 'torch')[rows] (before get_slice)", "zt"):
            lambda: zt.read(NAME, "torch")[ROWS],
        ("torch: Reader.read(name, 'torch')[rows] (before get_slice)", "st"): lambda: st_pt.get_slice(NAME)[ROWS],
    }


def per_call(fn: Callable[[], object], calls: int) -> float:
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls


def fmt(s: float) -> str:
    return f"{s * 1e6:.1f} µs" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--full", action="store_true", help="151936x1536 (890 MiB) instead of 32768x1536")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=200,
                    help=f"calls per timing (column blocks and the slow baseline row: 1/{HEAVY_DIVISOR} of it)")
    ap.add_argument("--tmp", default=None, help="directory for the two files (default: a fresh one in /tmp)")
    args = ap.parse_args()
    shape = (151936 if args.full else 32768, 1536)

    tmp = tempfile.mkdtemp(prefix="slice_bench_", dir=args.tmp)
    try:
        paths = write_files(tmp, shape)
        fns = cases(paths)
        for key, fn in fns.items():  # the same values from every case
            want = fns[(key[0], "st")] if "column" in key[0] else fns[("numpy: slice", "st")]
            np.testing.assert_array_equal(np.asarray(fn()), np.asarray(want()), key[0])
        keys = list(fns)
        samples: Dict[tuple, List[float]] = {k: [] for k in keys}
        for rnd in range(args.rounds):
            shift = rnd % len(keys)
            for key in keys[shift:] + keys[:shift]:
                heavy = "column block" in key[0] or ("before" in key[0] and key[1] == "zt")
                calls = max(1, args.calls // HEAVY_DIVISOR) if heavy else args.calls
                samples[key].append(per_call(fns[key], calls))
        mib = shape[0] * shape[1] * 4 / (1 << 20)
        print(f"rows {ROWS.start}:{ROWS.stop} of a {shape[0]}x{shape[1]} f32 tensor ({mib:.0f} MiB), "
              f"{args.rounds} rounds x {args.calls} calls, per-call medians\n")
        print("| case | ztensor median (min–max) | safetensors median (min–max) | ratio zt/st |")
        print("|---|---|---|---|")
        for label in dict.fromkeys(k[0] for k in keys):
            z, s = samples[(label, "zt")], samples[(label, "st")]
            mz, ms = statistics.median(z), statistics.median(s)
            print(f"| {label} | {fmt(mz)} ({fmt(min(z))}–{fmt(max(z))}) | {fmt(ms)} ({fmt(min(s))}–{fmt(max(s))}) "
                  f"| **{mz / ms:.2f}** |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
