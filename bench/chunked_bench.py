"""Ours vs PyPI z4ai 0.2.0 on the chunked Z4AIMF01 path: speed and peak memory.

Both packages import as `z4ai`, so every measurement runs in a fresh child
interpreter: ours from --ours-python (a venv with this checkout installed),
PyPI's from $ZT_PEER_VENVS/bench-z4ai (bench/setup_peers.sh). Rounds
interleave the two so a busy shared machine slows both alike. Each child does
one call and reports its wall time and the process's peak RSS (VmHWM) at
start, before the call and after it: after minus before is what the call
itself needed on top of its input; after minus start leaves out what the
interpreter and its site-packages cost before the package is imported (our
venv sees the system's, the peer's does not).

    python bench/chunked_bench.py --ours-python .venv/bin/python \
        --input minilm --input crepe-cnn-fp32.bin --rounds 3

Prints one line per (input, op, threads): medians and ours/PyPI ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# Runs in the child: argv = op, input path, dtype, threads, frame path.
_CHILD = r"""
import sys, time

def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
start = hwm()  # the bare interpreter, before the package is imported
import z4ai.chunked as c
op, path, dtype, threads, frame_path = sys.argv[1:6]
with open(path, "rb") as f:
    data = f.read()
base = hwm()
t0 = time.perf_counter()
if op == "compress":
    out = c.compress(data, dtype=dtype, threads=int(threads))
else:
    out = c.decompress(data, threads=int(threads))
dt = time.perf_counter() - t0
peak = hwm()
if frame_path != "-":
    with open(frame_path, "wb") as f:
        f.write(out)
print(dt, base, peak, len(out), start)
"""


def _minilm_file(tmp: str) -> str:
    sys.path.insert(0, os.path.join(HERE, "codec_peers"))
    import numpy as np
    from corpus import load_minilm

    path = os.path.join(tmp, "minilm-fp32.bin")
    with open(path, "wb") as f:
        for _, t in load_minilm():
            f.write(np.ascontiguousarray(t).tobytes())
    return path


def _run(python: str, op: str, path: str, dtype: str, threads: int, frame_path: str = "-"):
    out = subprocess.run([python, "-c", _CHILD, op, path, dtype, str(threads), frame_path], check=True,
                         capture_output=True, text=True).stdout.split()
    dt, base, peak, n, start = float(out[0]), int(out[1]), int(out[2]), int(out[3]), int(out[4])
    return {"s": dt, "extra_rss": peak - base, "peak_rss": peak, "out": n, "above_start": peak - start}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ours-python", required=True)
    peers = os.environ.get("ZT_PEER_VENVS", os.path.join(HERE, "..", "build", "peers"))
    ap.add_argument("--pypi-python", default=os.path.join(peers, "bench-z4ai", "bin", "python"))
    ap.add_argument("--input", action="append", help="a file of fp32 weights, or 'minilm'")
    ap.add_argument("--dtype", default="fp32")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--ops", default="compress,decompress")
    ap.add_argument("--json", help="also write the raw samples here")
    a = ap.parse_args()
    impls = {"ours": a.ours_python, "pypi": a.pypi_python}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for inp in a.input or ["minilm"]:
            path = _minilm_file(tmp) if inp == "minilm" else inp
            frames = {k: os.path.join(tmp, k + ".frame") for k in impls}
            for k, py in impls.items():
                _run(py, "compress", path, a.dtype, 0, frames[k])
            with open(frames["ours"], "rb") as f1, open(frames["pypi"], "rb") as f2:
                identical = f1.read() == f2.read()
            for op in a.ops.split(","):
                for th in (int(t) for t in a.threads.split(",")):
                    samples = {k: [] for k in impls}
                    for _ in range(a.rounds):
                        for k, py in impls.items():
                            src = path if op == "compress" else frames["pypi"]
                            samples[k].append(_run(py, op, src, a.dtype, th))
                    med = {k: {m: statistics.median(s[m] for s in v) for m in ("s", "extra_rss", "peak_rss", "above_start")}
                           for k, v in samples.items()}
                    size = os.path.getsize(path)
                    row = {"input": os.path.basename(path), "op": op, "threads": th, "identical": identical,
                           "mb": size / 1e6, "median": med, "samples": samples,
                           "speed_ratio": med["pypi"]["s"] / med["ours"]["s"],
                           "extra_rss_ratio": med["ours"]["extra_rss"] / max(1, med["pypi"]["extra_rss"]),
                           "peak_rss_ratio": med["ours"]["peak_rss"] / med["pypi"]["peak_rss"],
                           "above_start_ratio": med["ours"]["above_start"] / med["pypi"]["above_start"]}
                    rows.append(row)
                    print(f"{row['input']:22s} {op:10s} t={th} ours {size / med['ours']['s'] / 1e6:7.0f} MB/s "
                          f"pypi {size / med['pypi']['s'] / 1e6:7.0f} MB/s speed x{row['speed_ratio']:.2f} | "
                          f"extra RSS ours {med['ours']['extra_rss'] / 1e6:6.1f} MB pypi "
                          f"{med['pypi']['extra_rss'] / 1e6:6.1f} MB (x{row['extra_rss_ratio']:.2f}) "
                          f"peak x{row['peak_rss_ratio']:.2f} (above interpreter start x{row['above_start_ratio']:.2f}) "
                          f"identical={identical}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
