#!/usr/bin/env python3
"""Remote reads: a .zt file served by nginx on loopback.

Measured, medians of --reps:
  curl      `curl -s -o /dev/null URL`: the whole file, the reference.
  zt whole  ztensor.open(URL), then every tensor read (each dropped after
            reading, so memory stays one tensor): throughput vs curl's
            (target >= 0.8x).
  one       opening the URL and reading its smallest tensor: bytes nginx
            sent (its access log, headers included) vs that tensor + 1 % of
            the file (target: less).
The same for the file as safetensors (ztensor's lazy safetensors path),
with a third reader as the peer: safetensors read through fsspec's HTTP
filesystem (the whole file fetched by fsspec, parsed by safetensors.numpy;
for one tensor: the header, then that tensor's bytes, through an fsspec
file with its default block size). The three readers of a file take turns
in every round, so load from other processes falls on all alike.

File: fp32 tensors of 16 MiB plus a few small ones, --size-mb in all
(default 1024; --quick: 128). Rerun: `python3 bench/remote_bench.py`
(results: bench/out/remote.json and bench/out/remote.md).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "python"))

import ztensor  # noqa: E402
import ztensor.numpy  # noqa: E402
from _servers import Nginx  # noqa: E402

TENSOR_MB = 16


def make_tensors(size_mb: int):
    n = max(1, size_mb // TENSOR_MB)
    out = {f"layer.{i:04d}.weight": np.full(TENSOR_MB << 18, i, dtype=np.float32) for i in range(n)}
    out["norm.bias"] = np.arange(64, dtype=np.float32)
    return out


def interleaved(fns, reps):
    """Median seconds of each function, run in turn within every round."""
    times = [[] for _ in fns]
    for _ in range(reps):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            times[i].append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


def read_all(url):
    with ztensor.open(url) as r:
        for name in r.keys():
            r.read(name)


def fsspec_read_all(url):
    import fsspec
    from safetensors.numpy import load

    with fsspec.open(url, "rb") as f:
        for array in load(f.read()).values():
            del array


def fsspec_read_one(url, name):
    """safetensors' layout read lazily through an fsspec HTTP file: the
    8-byte length, the JSON header, then the tensor's byte range."""
    import fsspec

    with fsspec.open(url, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        begin, end = json.loads(f.read(n))[name]["data_offsets"]
        f.seek(8 + n + begin)
        f.read(end - begin)


def ztensor_read_one(url, name):
    with ztensor.open(url) as r:
        r.read(name)


def bytes_sent(server, fn):
    server.clear_log()
    fn()
    return sum(sent for _, _, _, sent in server.requests())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    size_mb = 128 if a.quick else a.size_mb
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        root = tmp / "www"
        root.mkdir()
        tensors = make_tensors(size_mb)
        ztensor.numpy.save_file(tensors, str(root / "m.zt"), durable=False)
        from safetensors.numpy import save_file

        save_file(tensors, str(root / "m.safetensors"))
        del tensors
        server = Nginx(root, tmp)
        try:
            for name in ("m.zt", "m.safetensors"):
                url = server.url(name)
                size = (root / name).stat().st_size
                readers = [lambda: subprocess.run(["curl", "-s", "-o", "/dev/null", url], check=True),
                           lambda: read_all(url)]
                if name.endswith(".safetensors"):
                    readers.append(lambda: fsspec_read_all(url))
                secs = interleaved(readers, a.reps)
                curl, ours = secs[0], secs[1]
                row = {"file": name, "bytes": size, "curl_s": curl, "zt_whole_s": ours,
                       "curl_MBps": size / curl / 1e6, "zt_MBps": size / ours / 1e6,
                       "zt_vs_curl": curl / ours,
                       "one_tensor_sent": bytes_sent(server, lambda: ztensor_read_one(url, "norm.bias")),
                       "one_tensor_budget": 64 * 4 + size // 100}
                if len(secs) > 2:
                    row.update({"fsspec_s": secs[2], "fsspec_MBps": size / secs[2] / 1e6,
                                "fsspec_one_tensor_sent": bytes_sent(server,
                                                                     lambda: fsspec_read_one(url, "norm.bias"))})
                rows.append(row)
        finally:
            server.stop()
    out = REPO / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "remote.json").write_text(json.dumps(rows, indent=2))
    lines = ["| file | size | curl MB/s | zt MB/s | zt/curl | fsspec+safetensors MB/s | zt/fsspec "
             "| one small tensor: bytes sent, zt | fsspec | budget (tensor + 1 %) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        peer = (f"{r['fsspec_MBps']:.0f} | {r['zt_MBps'] / r['fsspec_MBps']:.2f}x" if "fsspec_s" in r else "- | -")
        lines.append(f"| {r['file']} | {r['bytes'] / 2**20:.0f} MiB | {r['curl_MBps']:.0f} | {r['zt_MBps']:.0f} | "
                     f"{r['zt_vs_curl']:.2f}x | {peer} | {r['one_tensor_sent']} | "
                     f"{r.get('fsspec_one_tensor_sent', '-')} | {r['one_tensor_budget']} |")
    (out / "remote.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
