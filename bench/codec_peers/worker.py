#!/usr/bin/env python3
"""Benchmark worker: runs inside one interpreter (main Python or a peer venv).

    <python> bench/codec_peers/worker.py

Reads one JSON request per line on stdin and answers one JSON line each on
its original stdout (library chatter is sent to stderr so it cannot corrupt
the protocol). The orchestrator (bench/codec_bench.py) keeps one worker per
interpreter alive and interleaves requests, so every codec sees the same
machine load at about the same time.

Requests:
  {"op": "hello"}                                   -> {"codecs": [...], "versions": {...}}
  {"op": "bench", "codec", "dtype", "threads", "path", "segments", "reps"}
      compress + decompress every segment of the input file (segments = list
      of byte lengths; null = the whole file is one buffer), `reps` rounds
      each, and check that every round trip is byte-identical; returns the
      frames' SHA-256 too (byte-identity across implementations).
  {"op": "peak", "codec", "dtype", "threads", "path", "scratch"}
      peak memory of one compress and one decompress, each in a fresh child
      interpreter (see peak_child).
  {"op": "delta", "kind": "buffer"|"model", "target", "base", "dtype", "threads", "reps"}
      compress_delta / model_delta.compress versus standalone compress.
  {"op": "quit"}
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
import traceback
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import adapters as bench_codecs  # noqa: E402

_cache = {}
_codecs = {}


def _load(path: str) -> bytes:
    if path not in _cache:
        if len(_cache) > 2:
            _cache.clear()
        with open(path, "rb") as f:
            data = f.read()
        _cache[path] = (data, zlib.crc32(data))
    return _cache[path][0]


def _check_unmutated(path: str) -> bool:
    """False (and the cache entry dropped) if a codec wrote into its input buffer."""
    data, crc = _cache[path]
    if zlib.crc32(data) != crc:
        del _cache[path]
        return False
    return True


def _split(data: bytes, segments):
    if not segments:
        return [data]
    mv, out, off = memoryview(data), [], 0
    for n in segments:
        out.append(mv[off:off + n])
        off += n
    if off != len(data):
        raise ValueError(f"segments cover {off} bytes, file has {len(data)}")
    return out


def _versions() -> dict:
    out = {"python": sys.version.split()[0]}
    for mod in ("z4ai", "zipnn", "zstandard", "brotli", "numpy"):
        try:
            from importlib.metadata import version

            out[mod] = version(mod)
        except Exception:
            pass
    return out


def bench(req: dict) -> dict:
    data = _load(req["path"])
    segs = _split(data, req.get("segments"))
    key = (req["codec"], req["dtype"], int(req["threads"]))
    if key not in _codecs:  # setup (e.g. ZipNN's constructor) stays out of the per-cell cost
        _codecs[key] = bench_codecs.make(*key)
    comp, decomp, prepare = _codecs[key]
    reps = int(req.get("reps", 3))
    ctimes, dtimes, sizes, failures = [], [], [], 0
    blobs = None
    while len(ctimes) < reps:
        blobs = None
        inputs = [prepare(s) for s in segs] if prepare else segs
        gc.collect()
        t0 = time.perf_counter()
        blobs = [comp(s) for s in inputs]
        ctimes.append(time.perf_counter() - t0)
        sizes.append(sum(len(b) for b in blobs))
        inputs = None
    # Decompress rounds on the last compressed blobs; the first one is verified.
    while len(dtimes) < reps:
        gc.collect()
        t0 = time.perf_counter()
        outs = [decomp(b) for b in blobs]
        dtimes.append(time.perf_counter() - t0)
        if len(dtimes) == 1:
            for s, o in zip(segs, outs):
                if bytes(o) != bytes(s):
                    failures += 1
        outs = None
    orig = len(data)
    if not _check_unmutated(req["path"]):
        failures += 1000000  # loud: the input itself was corrupted by the codec
    cmed, dmed = statistics.median(ctimes), statistics.median(dtimes)
    sha = hashlib.sha256()
    for b in blobs:
        sha.update(b)
    return {
        "frames_sha256": sha.hexdigest(),
        "orig_bytes": orig,
        "comp_bytes": sizes[-1],
        "sizes_vary": len(set(sizes)) > 1,
        "ratio": orig / max(1, sizes[-1]),
        "c_times": ctimes,
        "d_times": dtimes,
        "c_mbps": orig / 1e6 / cmed if cmed > 0 else None,
        "d_mbps": orig / 1e6 / dmed if dmed > 0 else None,
        "n_segments": len(segs),
        "roundtrip_failures": failures,
    }


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise OSError(f"/proc/self/status has no {field}")


def peak_child(req: dict) -> dict:
    """One operation in this (fresh) process: peak RSS over it minus RSS just before it.

    The input is read, the codec set up and the heap collected first; then the
    kernel's peak-RSS mark (VmHWM) is reset by writing 5 to /proc/self/clear_refs
    (Linux >= 4.0), so the imports' own transient peak (~300 MB here) does not hide
    the operation's. The figure is what the call adds on top of holding its input:
    working buffers plus its output."""
    comp, decomp, prepare = bench_codecs.make(req["codec"], req["dtype"], int(req["threads"]))
    with open(req["in"], "rb") as f:
        data = f.read()
    if prepare:
        data = prepare(data)
    gc.collect()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = _status_kib("VmRSS") * 1024
    t0 = time.perf_counter()
    out = comp(data) if req["direction"] == "compress" else decomp(data)
    dt = time.perf_counter() - t0
    peak_rss = _status_kib("VmHWM") * 1024
    if req.get("out"):
        with open(req["out"], "wb") as f:
            f.write(out)
    return {"peak_over_input": peak_rss - before, "rss_before": before, "seconds": dt,
            "out_bytes": len(out), "out_sha256": hashlib.sha256(out).hexdigest()}


def peak(req: dict) -> dict:
    """compress then decompress, each in a fresh child of this interpreter; frame via a scratch file."""
    frame = os.path.join(req["scratch"], f"peak-{req['codec']}-{req['threads']}.frame")
    res = {}
    try:
        for direction, src, dst in (("compress", req["path"], frame), ("decompress", frame, None)):
            child = {"codec": req["codec"], "dtype": req["dtype"], "threads": req["threads"],
                     "direction": direction, "in": src, "out": dst}
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--peak-child", json.dumps(child)],
                               capture_output=True, text=True, timeout=600)
            if p.returncode != 0:
                return {"error": f"{direction} child failed: {p.stderr.strip()[-300:]}"}
            res[direction] = json.loads(p.stdout.strip().splitlines()[-1])
    finally:
        if os.path.exists(frame):
            os.remove(frame)
    with open(req["path"], "rb") as f:
        res["roundtrip_ok"] = hashlib.sha256(f.read()).hexdigest() == res["decompress"]["out_sha256"]
    res["frame_sha256"] = res["compress"]["out_sha256"]
    return res


def delta(req: dict) -> dict:
    """Delta frame vs standalone frame of the same target; both round-trip checked."""
    import z4ai

    target, base = _load(req["target"]), _load(req["base"])
    threads, dtype, reps = int(req["threads"]), req.get("dtype"), int(req.get("reps", 3))
    if req["kind"] == "buffer":
        c = lambda: z4ai.compress_delta(target, base, dtype=dtype, threads=threads)  # noqa: E731
        d = lambda blob: z4ai.decompress_delta(blob, base)  # noqa: E731
        standalone = z4ai.compress(target, dtype=dtype, threads=threads)
        failures = int(bytes(z4ai.decompress(standalone)) != target)
    else:
        from z4ai import model_delta

        c = lambda: model_delta.compress(target, base, threads=threads)  # noqa: E731
        d = lambda blob: model_delta.decompress(blob, base)  # noqa: E731
        # Standalone = what a user stores without the base: the ZSTN container if present.
        try:
            from z4ai import safetensors as zs

            standalone = zs.compress_bytes(target, threads=threads)
            failures = int(bytes(zs.decompress_bytes(standalone)) != target)
        except Exception:
            standalone = z4ai.compress(target, threads=threads)
            failures = int(bytes(z4ai.decompress(standalone)) != target)
    ctimes, dtimes = [], []
    while len(ctimes) < reps:
        t0 = time.perf_counter()
        blob = c()
        ctimes.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        out = d(blob)
        dtimes.append(time.perf_counter() - t0)
        if len(dtimes) == 1:
            failures += int(bytes(out) != target)
    n = len(target)
    return {
        "orig_bytes": n,
        "delta_bytes": len(blob),
        "standalone_bytes": len(standalone),
        "gain_vs_standalone": len(standalone) / max(1, len(blob)),
        "c_mbps": n / 1e6 / statistics.median(ctimes),
        "d_mbps": n / 1e6 / statistics.median(dtimes),
        "roundtrip_failures": failures,
    }


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--peak-child":
        print(json.dumps(peak_child(json.loads(sys.argv[2]))))
        return 0
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything a library prints goes to stderr
    sys.stdout = sys.stderr
    for line in sys.stdin:
        req = json.loads(line)
        op = req.get("op")
        if op == "quit":
            break
        try:
            if op == "hello":
                res = {"codecs": sorted(bench_codecs.available()), "versions": _versions()}
            elif op == "bench":
                res = bench(req)
            elif op == "peak":
                res = peak(req)
            elif op == "delta":
                res = delta(req)
            else:
                res = {"error": f"unknown op {op!r}"}
        except Exception as e:  # reported, not fatal: one codec failing must not stop the run
            res = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc(limit=4)}
        proto.write(json.dumps(res) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
