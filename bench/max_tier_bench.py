"""effort="balanced"/"max" against PyPI z4ai 0.2.0 effort="max", interleaved.

Usage: python bench/max_tier_bench.py [--rounds 3] FILE...
Each FILE holds one dtype's float weights back to back and ends in -fp32.bin,
-bf16.bin or -fp16.bin. Per entry and round, ours (this interpreter, threads=1)
and PyPI max (its own venv, a fresh process) run in alternating order; the
medians of wall time and of our CPU time are printed as JSON lines. Sizes are
deterministic. Numbers from a shared machine are only comparable as ratios.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import z4ai

PEER = r"""
import json, sys, time, z4ai
data = open(sys.argv[1], "rb").read()
t = time.perf_counter(); f = z4ai.compress(data, dtype=sys.argv[2], effort="max"); tc = time.perf_counter() - t
t = time.perf_counter(); d = z4ai.decompress(f); td = time.perf_counter() - t
assert bytes(d) == data
print(json.dumps({"size": len(f), "c": tc, "d": td}))
"""


def ours(data, dtype, effort):
    kw = {} if effort == "default" else {"effort": effort}
    w, c = time.perf_counter(), time.process_time()
    f = z4ai.compress(data, dtype=dtype, threads=1, **kw)
    tc, cc = time.perf_counter() - w, time.process_time() - c
    w, c = time.perf_counter(), time.process_time()
    d = z4ai.decompress(f, threads=1)
    td, cd = time.perf_counter() - w, time.process_time() - c
    assert bytes(d) == data
    return {"size": len(f), "c": tc, "d": td, "c_cpu": cc, "d_cpu": cd}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--efforts", default="default,balanced,max")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    peers = os.environ.get("ZT_PEER_VENVS", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                                         "peers"))  # bench/setup_peers.sh
    peer = os.path.join(peers, "bench-z4ai", "bin", "python")
    for path in a.files:
        dtype = os.path.basename(path).rsplit("-", 1)[1].split(".")[0]
        data = open(path, "rb").read()
        runs = {e: [] for e in a.efforts.split(",") + ["pypi-max"]}
        for r in range(a.rounds):
            order = list(runs) if r % 2 == 0 else list(reversed(list(runs)))
            for name in order:
                if name == "pypi-max":
                    out = subprocess.run([peer, "-c", PEER, path, dtype], check=True, capture_output=True, text=True)
                    runs[name].append(json.loads(out.stdout))
                else:
                    runs[name].append(ours(data, dtype, name))
        mb = len(data) / 1e6
        row = {"entry": os.path.basename(path)[:-4], "MB": round(mb, 2)}
        for name, rs in runs.items():
            med = {k: statistics.median(x[k] for x in rs) for k in rs[0]}
            row[name] = {"size": rs[0]["size"], "c_MBps": round(mb / med["c"], 2), "d_MBps": round(mb / med["d"]),
                         **({"c_cpu_MBps": round(mb / med["c_cpu"], 2), "d_cpu_MBps": round(mb / med["d_cpu"])}
                            if "c_cpu" in med else {})}
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    sys.exit(main())
