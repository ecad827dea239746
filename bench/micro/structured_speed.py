#!/usr/bin/env python3
"""Corpus entries: our default z4ai against zipnn 0.5.4, speed per cell, interleaved.

    python bench/micro/structured_speed.py [--rounds 3] [--reps 3] [--base PY] [--corpus INDEX] [name-substring ...]

Times the corpus entries the codec's speed target names (structured and the
slow real ones; per-tensor entries compress each segment alone) through the
codec bench's worker.py, one worker per interpreter, at 1 and 2 threads.
Rounds alternate ours and zipnn per cell so both see the same machine load;
each round is the median of `reps` calls, the table the median of rounds:
ratios ours / zipnn (> 1 = ours faster; size < 1 = ours smaller). zipnn gets
opaque ("raw") bytes as fp8, like the codec bench does. --base PY adds a
third worker: our z4ai as installed for interpreter PY (e.g. a venv built from
an earlier commit), interleaved the same way, for before/after ratios.
The corpus is the codec bench's (codec_peers/corpus.py), built into a
temporary folder unless --corpus names the index.json of one kept from an
earlier run. zipnn comes from $ZT_PEER_VENVS (default build/peers, made by
bench/setup_peers.sh).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from structured_bench import Worker, peer_venvs  # noqa: E402
import corpus  # noqa: E402  (codec_peers/, on the path since structured_bench)
# The entries the speed target lists (structured ones, then the real ones below 1.0x decompress).
DEFAULT = ("opaque-tokenizer", "tied-embedding-bf16", "sparse50-fp32", "fp8-e4m3",
           "mtcnn-detector-fp32", "mtcnn-detector-bf16", "nudenet-detector-fp32",
           "nudenet-detector-bf16-per-tensor", "crepe-cnn-bf16")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--corpus", help="index.json of a corpus built before (default: build one now)")
    ap.add_argument("--base", help="python whose z4ai is the 'before' build")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="structured-speed-") as scratch:
        if args.corpus:
            with open(args.corpus) as f:
                entries = json.load(f)["entries"]
        else:
            entries = corpus.build(scratch, quick=False)["entries"]
        return run(args, entries)


def run(args, entries) -> int:
    if args.names:
        sel = [e for e in entries if any(n in e["name"] for n in args.names)]
    else:
        sel = [e for n in DEFAULT for e in entries if e["name"] == n]
    ours = Worker(sys.executable)
    zipnn = Worker(os.path.join(peer_venvs(), "bench-zipnn", "bin", "python"))
    workers = {"z4ai": (ours, "z4ai"), "zipnn": (zipnn, "zipnn")}
    if args.base:
        workers["base"] = (Worker(args.base), "z4ai")
    rows = []
    for e in sel:
        for t in (int(x) for x in args.threads.split(",")):
            res = {name: [] for name in workers}
            names = list(workers)
            for r in range(args.rounds):
                order = names[r % len(names):] + names[:r % len(names)]  # rotate who goes first
                for name in order:
                    w, codec = workers[name]
                    res[name].append(w.ask({"op": "bench", "codec": codec, "dtype": e["dtype"], "threads": t,
                                            "path": e["path"], "segments": e["segments"], "reps": args.reps}))
            med = {c: {k: statistics.median(x[k] for x in v) for k in ("c_mbps", "d_mbps")} for c, v in res.items()}
            if args.base:
                print("%-34s T%d before: comp %.2fx decomp %.2fx (vs zipnn); size before/after %d/%d B" % (
                    e["name"], t, med["base"]["c_mbps"] / med["zipnn"]["c_mbps"],
                    med["base"]["d_mbps"] / med["zipnn"]["d_mbps"], res["base"][0]["comp_bytes"],
                    res["z4ai"][0]["comp_bytes"]), flush=True)
            size = res["z4ai"][0]["comp_bytes"] / res["zipnn"][0]["comp_bytes"]
            rows.append((e["name"], t, size, med["z4ai"]["c_mbps"] / med["zipnn"]["c_mbps"],
                         med["z4ai"]["d_mbps"] / med["zipnn"]["d_mbps"], med["z4ai"]["c_mbps"],
                         med["z4ai"]["d_mbps"], med["zipnn"]["c_mbps"], med["zipnn"]["d_mbps"],
                         res["z4ai"][0]["comp_bytes"]))
            print("%-34s T%d size %.3f  comp %.2fx  decomp %.2fx   (ours %6.0f/%6.0f MB/s, zipnn %6.0f/%6.0f)"
                  "  ours %d B" % rows[-1], flush=True)
    for w, _ in workers.values():
        w.close()
    for t in sorted({r[1] for r in rows}):
        sel_t = [r for r in rows if r[1] == t]
        gm = lambda i: float(np.exp(np.mean([np.log(r[i]) for r in sel_t])))  # noqa: E731
        print(f"geo-mean T{t}: size {gm(2):.3f}  comp {gm(3):.2f}x  decomp {gm(4):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
