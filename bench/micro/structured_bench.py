#!/usr/bin/env python3
"""Structured inputs: our default z4ai against zipnn 0.5.4, interleaved.

    python bench/micro/structured_bench.py [--rounds 3] [--mib 16] [--only int4]

The kinds the codec's speed target names (dequantised int8/int4 weights in
fp32 and bf16, 50 % pruned fp32, fp8 e4m3, tied copies, opaque quantised
bytes) are written to a scratch directory from seeded generators (the corpus
ones where they exist), then one worker per interpreter (the codec bench's
worker.py) times compress and decompress at 1 and 2 threads. Rounds
alternate ours and zipnn per cell so both see the same machine load; the
table shows median-of-rounds throughput ratios ours / zipnn (> 1 = ours
faster, size < 1 = ours smaller). zipnn takes no opaque bytes, so the
opaque entry is held against zstd -3 and left out of the geo-means.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.join(HERE, "..", "codec_peers")
sys.path.insert(0, PEERS)
import corpus  # noqa: E402


def peer_venvs() -> str:
    """Where bench/setup_peers.sh made the peers' venvs: $ZT_PEER_VENVS, else build/peers."""
    return os.environ.get("ZT_PEER_VENVS", os.path.join(HERE, "..", "..", "build", "peers"))

MIB = 1 << 20


def make_inputs(root: str, mib: int, only: str | None) -> list:
    import ml_dtypes

    rng = np.random.default_rng(corpus.SEED)
    out = []

    def add(name, dtype, data: bytes):
        if only and only not in name:
            return
        path = os.path.join(root, name + ".bin")
        with open(path, "wb") as f:
            f.write(data)
        out.append((name, dtype, path))

    for bits in (8, 4):
        for dt, w in (("bf16", 2), ("fp32", 4)):
            add(f"int{bits}-deq-{dt}", dt, corpus._dequantised(rng, mib * MIB // w, bits, dt).tobytes())
    s = (rng.standard_normal(mib * MIB // 4) * 0.02).astype(np.float32)
    s[rng.random(s.size) < 0.5] = 0.0
    add("sparse50-fp32", "fp32", s.tobytes())
    f8 = (rng.standard_normal(mib * MIB) * 0.5).astype(ml_dtypes.float8_e4m3fn)
    add("fp8-e4m3", "f8_e4m3fn", f8.tobytes())
    model = corpus.load_minilm()
    emb = corpus._cast(dict(model)["embeddings.word_embeddings.weight"], "bf16").tobytes()
    l0 = b"".join(corpus._cast(a, "bf16").tobytes() for n, a in model if n.startswith("encoder.layer.0."))
    add("tied-embedding-bf16", "bf16", emb + l0 + emb)
    # Opaque: GGUF Q8_0-like blocks (fp16 scale + 32 int8), handed over without a dtype.
    nblk = mib * MIB // 34
    q = np.clip(np.rint(rng.standard_normal((nblk, 32)) * 40), -127, 127).astype(np.int8)
    sc = (np.abs(rng.standard_normal((nblk, 1))) * 1e-3).astype(np.float16)
    add("opaque-q8_0", "", np.concatenate([sc.view(np.uint8), q.view(np.uint8)], axis=1).tobytes())
    return out


class Worker:
    def __init__(self, python: str):
        self.p = subprocess.Popen([python, os.path.join(PEERS, "worker.py")], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)

    def ask(self, req: dict) -> dict:
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        res = json.loads(self.p.stdout.readline())
        if "error" in res:
            raise RuntimeError(res["error"] + "\n" + res.get("trace", ""))
        if res.get("roundtrip_failures"):
            raise RuntimeError(f"round trip failed: {req}")
        return res

    def close(self):
        self.p.stdin.write(json.dumps({"op": "quit"}) + "\n")
        self.p.stdin.flush()
        self.p.wait()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mib", type=int, default=16)
    ap.add_argument("--only")
    ap.add_argument("--threads", default="1,2")
    args = ap.parse_args()
    ours = Worker(sys.executable)
    zipnn = Worker(os.path.join(peer_venvs(), "bench-zipnn", "bin", "python"))
    rows = []
    with tempfile.TemporaryDirectory() as root:
        for name, dtype, path in make_inputs(root, args.mib, args.only):
            for t in (int(x) for x in args.threads.split(",")):
                # zipnn takes no opaque byte input: those are held against zstd -3.
                peer, peer_worker = ("zstd-3", ours) if dtype == "" else ("zipnn", zipnn)
                res = {"z4ai": [], peer: []}
                for r in range(args.rounds):
                    order = ("z4ai", peer) if r % 2 == 0 else (peer, "z4ai")
                    for codec in order:
                        w = ours if codec == "z4ai" else peer_worker
                        res[codec].append(w.ask({"op": "bench", "codec": codec, "dtype": dtype, "threads": t,
                                                 "path": path, "reps": 1}))
                med = {c: {k: statistics.median(x[k] for x in v) for k in ("c_mbps", "d_mbps")}
                       for c, v in res.items()}
                size = res["z4ai"][0]["comp_bytes"] / res[peer][0]["comp_bytes"]
                rows.append((name, t, size, med["z4ai"]["c_mbps"] / med[peer]["c_mbps"],
                             med["z4ai"]["d_mbps"] / med[peer]["d_mbps"], med["z4ai"]["c_mbps"],
                             med["z4ai"]["d_mbps"], peer, med[peer]["c_mbps"], med[peer]["d_mbps"]))
                print("%-20s T%d size %.3f  comp %.2fx  decomp %.2fx   (ours %6.0f/%6.0f MB/s, %s %6.0f/%6.0f)"
                      % rows[-1], flush=True)
    ours.close()
    zipnn.close()
    for t in sorted({r[1] for r in rows}):
        sel = [r for r in rows if r[1] == t and r[7] == "zipnn"]
        gm = lambda i: float(np.exp(np.mean([np.log(r[i]) for r in sel])))  # noqa: E731
        print(f"geo-mean vs zipnn T{t}: size {gm(2):.3f}  comp {gm(3):.2f}x  decomp {gm(4):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
