#!/usr/bin/env python3
"""The .zt container against safetensors, side by side, same data, same run.

    python3 bench/container_bench.py            # full run (~1 GiB models, 5 reps)
    python3 bench/container_bench.py --quick    # smoke run (~64 MiB, 3 reps)

Measures save_file / load_file (numpy and torch APIs of both libraries) on a
transformer-shaped model in bf16 and in fp32 and on a file of 10,000 small
tensors; open + list keys; ztensor zstd read throughput with 1 and 2 threads;
peak RSS of a save in a fresh subprocess. Every load is followed by the same
XOR over every byte for both libraries, so lazy (mmap) and eager loaders pay
the same price for the data. Results go to <out>/container[-quick].json and
a Markdown table to <out>/container[-quick].md; see docs/benchmarks.md.

This is a benchmark, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import platform
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

MIB = 1 << 20
SEED = 20240601
LIBS = ("ztensor", "safetensors")


# --- data ---------------------------------------------------------------------

def model_layout(target_bytes: int, itemsize: int, hidden: int = 1024, ffn: int = 4096,
                 vocab: int = 32000) -> List[Tuple[str, Tuple[int, ...]]]:
    """A decoder-only transformer (names as in HF Llama) with as many layers
    as fit in `target_bytes`; at least one layer."""
    per_layer = 4 * hidden * hidden + 3 * hidden * ffn + 2 * hidden
    fixed = 2 * vocab * hidden + hidden  # embed_tokens, lm_head, final norm
    layers = max(1, round((target_bytes / itemsize - fixed) / per_layer))
    out = [("model.embed_tokens.weight", (vocab, hidden))]
    for i in range(layers):
        p = f"model.layers.{i}."
        out += [(p + "input_layernorm.weight", (hidden,))]
        out += [(p + f"self_attn.{n}_proj.weight", (hidden, hidden)) for n in "qkvo"]
        out += [(p + "post_attention_layernorm.weight", (hidden,))]
        out += [(p + "mlp.gate_proj.weight", (ffn, hidden)), (p + "mlp.up_proj.weight", (ffn, hidden)),
                (p + "mlp.down_proj.weight", (hidden, ffn))]
    out += [("model.norm.weight", (hidden,)), ("lm_head.weight", (vocab, hidden))]
    return out


def make_model(dtype: str, target_bytes: int, quick: bool) -> Dict[str, np.ndarray]:
    """Deterministic N(0, 0.02) weights (norms are ones), one tensor at a time
    so generation never holds more than one float32 temporary."""
    import ml_dtypes

    np_dtype = {"fp32": np.float32, "bf16": ml_dtypes.bfloat16}[dtype]
    itemsize = np.dtype(np_dtype).itemsize
    kw = dict(hidden=512, ffn=2048, vocab=8000) if quick else {}
    rng = np.random.default_rng(SEED)
    out = {}
    for name, shape in model_layout(target_bytes, itemsize, **kw):
        if len(shape) == 1:
            a = np.ones(shape, np.float32)
        else:
            a = rng.standard_normal(shape, dtype=np.float32)
            a *= 0.02
        out[name] = a if np_dtype is np.float32 else a.astype(np_dtype)
    return out


def make_small(count: int) -> Dict[str, np.ndarray]:
    """`count` f32 tensors of 64..256 elements, 1-D and 2-D."""
    rng = np.random.default_rng(SEED + 1)
    out = {}
    for i in range(count):
        n = int(rng.integers(64, 257))
        shape = (n,) if i % 2 else (n // 8, 8) if n % 8 == 0 else (n,)
        out[f"block.{i // 16}.param_{i % 16}"] = (rng.standard_normal(n, dtype=np.float32) * 0.02).reshape(shape)
    return out


def to_torch(tensors: Dict[str, np.ndarray]):
    """torch tensors sharing the numpy arrays' memory (bf16 via uint16)."""
    import torch

    out = {}
    for k, a in tensors.items():
        if a.dtype.name == "bfloat16":
            out[k] = torch.from_numpy(a.view(np.uint16)).view(torch.bfloat16)
        else:
            out[k] = torch.from_numpy(a)
    return out


def touch(value) -> int:
    """XOR of every byte-lane (as uint64 words plus a byte tail): forces each
    byte of a lazily mapped tensor to be read. Same code for both libraries."""
    if hasattr(value, "untyped_storage"):  # torch
        import torch
        b = value.reshape(-1).view(torch.uint8).numpy()
    else:
        b = value.reshape(-1).view(np.uint8)
    n8 = b.size & ~7
    acc = int(np.bitwise_xor.reduce(b[:n8].view(np.uint64))) if n8 else 0
    if n8 != b.size:
        acc ^= int(np.bitwise_xor.reduce(b[n8:]))
    return acc


def touch_all(d) -> int:
    acc = 0
    for v in d.values():
        acc ^= touch(v)
    return acc


# --- libraries under test ------------------------------------------------------

def savers(framework: str) -> Dict[str, Callable]:
    if framework == "numpy":
        import safetensors.numpy as st
        import ztensor.numpy as zt
    else:
        import safetensors.torch as st
        import ztensor.torch as zt
    return {"ztensor": zt.save_file, "safetensors": st.save_file}


def loaders(framework: str) -> Dict[str, Callable]:
    if framework == "numpy":
        import safetensors.numpy as st
        import ztensor.numpy as zt
    else:
        import safetensors.torch as st
        import ztensor.torch as zt
    return {"ztensor": zt.load_file, "safetensors": st.load_file}


def open_list(lib: str, path: str) -> int:
    if lib == "ztensor":
        import ztensor
        with ztensor.open(path) as r:
            return len(r.keys())
    from safetensors import safe_open
    with safe_open(path, framework="np") as f:
        return len(list(f.keys()))


# --- measurement -----------------------------------------------------------------

def drop_caches() -> bool:
    """Drop the page cache (root only); True if the kernel accepted it."""
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def cache_drop_works(path: str) -> bool:
    """Does dropping the cache really evict `path`? (Containers may accept the
    write and do nothing.) Checked with mincore via os.posix_fadvise-free
    timing-free means: /proc/meminfo Cached shrinking by most of the file."""
    def cached_kib() -> int:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("Cached:"):
                    return int(line.split()[1])
        return 0

    with open(path, "rb") as f:
        while f.read(64 * MIB):
            pass
    before = cached_kib()
    if not drop_caches():
        return False
    after = cached_kib()
    return before - after >= os.path.getsize(path) // 1024 // 2


@dataclass
class Stat:
    samples: List[float] = field(default_factory=list)

    def add(self, s: float) -> None:
        self.samples.append(s)

    def summary(self) -> dict:
        s = self.samples
        return {"median": statistics.median(s), "min": min(s), "max": max(s), "n": len(s), "samples": s}


def timed(fn, *a, **kw) -> Tuple[float, object]:
    t0 = time.perf_counter()
    r = fn(*a, **kw)
    return time.perf_counter() - t0, r


_T0 = time.time()


def log(msg: str) -> None:
    print(f"[{time.time() - _T0:6.1f}s] {msg}", file=sys.stderr, flush=True)


def bench_save(tensors_np, framework: str, paths: Dict[str, str], reps: int) -> Dict[str, dict]:
    """save_file for both libraries, rotating which goes first. The previous
    file is deleted and dirty pages are flushed before each timed call, so
    every save starts from the same state. ztensor's default save fsyncs
    before its atomic rename; safetensors does not fsync. So two like-for-like
    pairs are recorded: ztensor (durable) against 'safetensors + fsync', and
    ztensor durable=False (rename kept, no fsync) against safetensors."""
    tensors = tensors_np if framework == "numpy" else to_torch(tensors_np)
    fns = savers(framework)
    fns["ztensor-nofsync"] = functools.partial(fns["ztensor"], durable=False)
    paths = dict(paths, **{"ztensor-nofsync": paths["ztensor"]})
    runs = ("ztensor", "ztensor-nofsync", "safetensors")
    stats = {lib: Stat() for lib in runs}
    stats["safetensors+fsync"] = Stat()
    for rep in range(reps):
        order = runs[rep % len(runs):] + runs[:rep % len(runs)]
        for lib in order:
            if os.path.exists(paths[lib]):
                os.unlink(paths[lib])
            os.sync()
            t0 = time.perf_counter()
            fns[lib](tensors, paths[lib])
            t1 = time.perf_counter()
            stats[lib].add(t1 - t0)
            if lib == "safetensors":
                fd = os.open(paths[lib], os.O_RDONLY)
                os.fsync(fd)
                os.close(fd)
                stats["safetensors+fsync"].add(time.perf_counter() - t0)
    return {k: v.summary() for k, v in stats.items()}


def bench_load(framework: str, paths: Dict[str, str], reps: int, cold: bool) -> Dict[str, dict]:
    """load_file then touch every byte; 'call' is load_file alone."""
    fns = loaders(framework)
    out = {}
    stats = {lib: (Stat(), Stat()) for lib in LIBS}
    if not cold:  # warm the page cache and the imports
        for lib in LIBS:
            touch_all(fns[lib](paths[lib]))
    for rep in range(reps):
        order = LIBS if rep % 2 == 0 else LIBS[::-1]
        for lib in order:
            if cold:
                drop_caches()
            gc.collect()
            t0 = time.perf_counter()
            d = fns[lib](paths[lib])
            t1 = time.perf_counter()
            touch_all(d)
            t2 = time.perf_counter()
            del d
            stats[lib][0].add(t1 - t0)
            stats[lib][1].add(t2 - t0)
    for lib in LIBS:
        out[lib] = {"call": stats[lib][0].summary(), "total": stats[lib][1].summary()}
    return out


def bench_open(paths: Dict[str, str], reps: int) -> Dict[str, dict]:
    stats = {lib: Stat() for lib in LIBS}
    for lib in LIBS:
        open_list(lib, paths[lib])
    for rep in range(reps):
        for lib in (LIBS if rep % 2 == 0 else LIBS[::-1]):
            stats[lib].add(timed(open_list, lib, paths[lib])[0])
    return {k: v.summary() for k, v in stats.items()}


def bench_zstd(tensors_np, path: str, reps: int) -> dict:
    """ztensor zstd (level 3): write once, then read every tensor with 1 and
    2 threads; throughput in MB/s (1e6 bytes) of decoded data."""
    import ztensor
    import ztensor.numpy as ztnp

    t_save, _ = timed(ztnp.save_file, tensors_np, path, compression="zstd")
    raw = sum(a.nbytes for a in tensors_np.values())
    stored = os.path.getsize(path)
    result = {"save_s": t_save, "raw_bytes": raw, "file_bytes": stored, "ratio": raw / stored}
    with ztensor.open(path) as r:
        names = r.keys()
        for n in names:  # warm page cache
            r.read(n)
        for threads in (1, 2):
            st = Stat()
            for _ in range(reps):
                gc.collect()
                t0 = time.perf_counter()
                if threads == 1:
                    arrays = [r.read(n) for n in names]
                else:
                    with ThreadPoolExecutor(threads) as ex:
                        arrays = list(ex.map(r.read, names))
                st.add(time.perf_counter() - t0)
                assert sum(a.nbytes for a in arrays) == raw
                del arrays
            s = st.summary()
            s["mb_per_s"] = raw / 1e6 / s["median"]
            result[f"threads_{threads}"] = s
    return result


# --- peak RSS of save in a fresh process ----------------------------------------------

def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} missing from /proc/self/status")


def child_save(spec: dict) -> None:
    """Runs in a fresh interpreter: read the tensors of a safetensors file
    into anonymous memory with np.fromfile (no temporaries), reset the RSS
    high-water mark, save with the library under test, report VmHWM."""
    import ml_dtypes  # noqa: F401 (registers bfloat16)

    src, lib, framework, dst = spec["src"], spec["lib"], spec["framework"], spec["dst"]
    with open(src, "rb") as f:
        hlen = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(hlen))
    header.pop("__metadata__", None)
    dt = {"F32": np.float32, "BF16": ml_dtypes.bfloat16}
    tensors = {}
    for name, h in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
        a, b = h["data_offsets"]
        arr = np.fromfile(src, dtype=np.uint8, count=b - a, offset=8 + hlen + a)
        tensors[name] = arr.view(dt[h["dtype"]]).reshape(h["shape"])
    if framework == "torch":
        import torch  # noqa: F401
        tensors = to_torch(tensors)
    fn = savers(framework)[lib]
    gc.collect()
    # "5" resets the peak RSS (VmHWM) to the current RSS (Linux >= 4.0).
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = _status_kib("VmRSS") * 1024
    fn(tensors, dst)
    print(json.dumps({"before_bytes": before, "peak_bytes": _status_kib("VmHWM") * 1024,
                      "ru_maxrss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


def bench_rss(src: str, tmpdir: str, largest: int) -> Dict[str, dict]:
    """Peak RSS per (library, framework), measured inside a fresh process as
    VmHWM after resetting it just before the save. (ru_maxrss, from
    RUSAGE_CHILDREN or wait4, is useless here: Linux carries the parent's
    high-water mark into a child across fork + exec, and the parent holds
    the whole model.)"""
    out = {}
    for framework in ("numpy", "torch"):
        for lib in LIBS:
            dst = os.path.join(tmpdir, f"rss.{lib}")
            spec = {"src": src, "lib": lib, "framework": framework, "dst": dst}
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child-save", json.dumps(spec)],
                               stdout=subprocess.PIPE, check=True)
            r = json.loads(p.stdout)
            r["extra_bytes"] = r["peak_bytes"] - r["before_bytes"]
            r["largest_tensor_bytes"] = largest
            out[f"{lib}/{framework}"] = r
            if os.path.exists(dst):
                os.unlink(dst)
    return out


# --- report -----------------------------------------------------------------------------

def machine_info() -> dict:
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import safetensors
    import torch
    import ztensor
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {"nproc": os.cpu_count(), "cpu": cpu, "mem_gib": round(mem / (1 << 30), 1),
            "python": platform.python_version(), "numpy": np.__version__, "torch": torch.__version__,
            "safetensors": safetensors.__version__, "ztensor": getattr(ztensor, "__version__", "?"),
            "kernel": platform.release()}


def fmt_s(s: dict) -> str:
    def one(x):
        return f"{x * 1e3:.1f} ms" if x < 1 else f"{x:.2f} s"
    return f"{one(s['median'])} ({one(s['min'])}–{one(s['max'])})"


def ratio(z: dict, s: dict) -> float:
    return z["median"] / s["median"]


def markdown(res: dict) -> str:
    """The results table (ratios are ztensor / safetensors medians; < 1 means
    ztensor is faster)."""
    rows = ["| dataset | operation | ztensor median (min–max) | safetensors median (min–max) | ratio zt/st |",
            "|---|---|---|---|---|"]
    for ds, d in res["datasets"].items():
        label = f"{ds} ({d['bytes'] / MIB:.0f} MiB, {d['tensors']} tensors)"
        for fw in ("numpy", "torch"):
            sv = d["save"][fw]
            rows.append(f"| {label} | save_file {fw} (both fsync) | {fmt_s(sv['ztensor'])} | "
                        f"{fmt_s(sv['safetensors+fsync'])} | **{ratio(sv['ztensor'], sv['safetensors+fsync']):.2f}** |")
            rows.append(f"| {label} | save_file {fw} (neither fsyncs: durable=False) | "
                        f"{fmt_s(sv['ztensor-nofsync'])} | {fmt_s(sv['safetensors'])} | "
                        f"**{ratio(sv['ztensor-nofsync'], sv['safetensors']):.2f}** |")
            rows.append(f"| {label} | save_file {fw}, default ztensor vs plain safetensors | {fmt_s(sv['ztensor'])} | "
                        f"{fmt_s(sv['safetensors'])} | {ratio(sv['ztensor'], sv['safetensors']):.2f} |")
        for kind in ("warm", "cold"):
            if kind not in d["load"]:
                continue
            for fw in ("numpy", "torch"):
                ld = d["load"][kind][fw]
                rows.append(f"| {label} | load_file {fw} + touch all, {kind} | {fmt_s(ld['ztensor']['total'])} | "
                            f"{fmt_s(ld['safetensors']['total'])} | "
                            f"**{ratio(ld['ztensor']['total'], ld['safetensors']['total']):.2f}** |")
                rows.append(f"| {label} | load_file {fw} call only, {kind} | {fmt_s(ld['ztensor']['call'])} | "
                            f"{fmt_s(ld['safetensors']['call'])} | "
                            f"{ratio(ld['ztensor']['call'], ld['safetensors']['call']):.2f} |")
        op = d["open"]
        rows.append(f"| {label} | open + list keys | {fmt_s(op['ztensor'])} | {fmt_s(op['safetensors'])} | "
                    f"**{ratio(op['ztensor'], op['safetensors']):.2f}** |")
    lines = ["\n".join(rows), ""]
    z = [(ds, d["zstd"]) for ds, d in res["datasets"].items() if "zstd" in d]
    if z:
        lines += ["| dataset | zstd ratio | write (level 3) | read 1 thread | read 2 threads | speedup |",
                  "|---|---|---|---|---|---|"]
        for ds, s in z:
            t1, t2 = s["threads_1"], s["threads_2"]
            lines.append(f"| {ds} | {s['ratio']:.3f} | {s['save_s']:.2f} s | {t1['mb_per_s']:.0f} MB/s "
                         f"({fmt_s(t1)}) | {t2['mb_per_s']:.0f} MB/s ({fmt_s(t2)}) | "
                         f"{t1['median'] / t2['median']:.2f}× |")
        lines.append("")
    rss = [(ds, d["rss"]) for ds, d in res["datasets"].items() if "rss" in d]
    if rss:
        lines += ["| dataset | save | RSS before save | peak RSS | extra | largest tensor | extra − largest |",
                  "|---|---|---|---|---|---|---|"]
        for ds, r in rss:
            for k, v in r.items():
                lines.append(f"| {ds} | {k} | {v['before_bytes'] / MIB:.0f} MiB | {v['peak_bytes'] / MIB:.0f} MiB | "
                             f"{v['extra_bytes'] / MIB:.1f} MiB | {v['largest_tensor_bytes'] / MIB:.1f} MiB | "
                             f"{(v['extra_bytes'] - v['largest_tensor_bytes']) / MIB:+.1f} MiB |")
        lines.append("")
    return "\n".join(lines)


def targets(res: dict) -> List[dict]:
    """The issue's targets, each with the worst ratio over datasets/APIs."""
    out = []

    def worst(items):
        return max(items, key=lambda x: x[1]) if items else (None, float("nan"))

    load_items, save_items, open_items, rss_items = [], [], [], []
    for ds, d in res["datasets"].items():
        for fw in ("numpy", "torch"):
            sv = d["save"][fw]
            save_items.append((f"{ds} {fw} durable", ratio(sv["ztensor"], sv["safetensors+fsync"])))
            save_items.append((f"{ds} {fw} durable=False", ratio(sv["ztensor-nofsync"], sv["safetensors"])))
            for kind, l in d["load"].items():
                ld = l[fw]
                load_items.append((f"{ds} {fw} {kind}", ratio(ld["ztensor"]["total"], ld["safetensors"]["total"])))
        if d["kind"] == "small":
            open_items.append((ds, ratio(d["open"]["ztensor"], d["open"]["safetensors"])))
        for k, v in d.get("rss", {}).items():
            if k.startswith("ztensor/"):
                rss_items.append((f"{ds} {k}", (v["extra_bytes"] - v["largest_tensor_bytes"]) / MIB))
    for tname, items, limit, unit in (("load <= 1.0x safetensors", load_items, 1.0, "x"),
                                      ("save <= 1.0x safetensors, like for like (fsync or not on both)", save_items, 1.0, "x"),
                                      ("open+list of the small-tensor file <= 1.0x", open_items, 1.0, "x"),
                                      ("save peak RSS <= largest tensor + 64 MiB", rss_items, 64.0, "MiB")):
        w = worst(items)
        out.append({"target": tname, "worst_case": w[0], "worst_value": w[1], "unit": unit,
                    "met": bool(w[1] <= limit), "all": items})
    return out


# --- driver --------------------------------------------------------------------------------

def run_dataset(name: str, tensors, tmpdir: str, reps: int, cold_ok: bool, big: bool, res: dict,
                zstd: bool = False, rss: bool = False) -> None:
    """All measurements on one dataset, plus zstd throughput and save peak
    RSS where asked (each takes about a minute on a 1 GiB model)."""
    nbytes = sum(a.nbytes for a in tensors.values())
    largest = max(a.nbytes for a in tensors.values())
    d = {"kind": "model" if big else "small", "bytes": nbytes, "tensors": len(tensors), "largest_tensor_bytes": largest, "save": {}, "load": {}}
    res["datasets"][name] = d
    paths = {"ztensor": os.path.join(tmpdir, f"{name}.zt"), "safetensors": os.path.join(tmpdir, f"{name}.safetensors")}
    for fw in ("torch", "numpy"):  # numpy last: its files are the ones loaded below
        log(f"[{name}] save_file {fw} x{reps}")
        d["save"][fw] = bench_save(tensors, fw, paths, reps)
    d["load"]["warm"] = {}
    for fw in ("numpy", "torch"):
        log(f"[{name}] load_file {fw} warm x{reps}")
        d["load"]["warm"][fw] = bench_load(fw, paths, reps, cold=False)
    if cold_ok and big:
        d["load"]["cold"] = {}
        for fw in ("numpy", "torch"):
            log(f"[{name}] load_file {fw} cold x{reps}")
            d["load"]["cold"][fw] = bench_load(fw, paths, reps, cold=True)
    log(f"[{name}] open + list keys")
    d["open"] = bench_open(paths, max(reps, 15))
    if zstd:
        log(f"[{name}] zstd read throughput")
        d["zstd"] = bench_zstd(tensors, os.path.join(tmpdir, f"{name}.zstd.zt"), reps)
        os.unlink(os.path.join(tmpdir, f"{name}.zstd.zt"))
    if rss:
        log(f"[{name}] peak RSS of save (subprocesses)")
        d["rss"] = bench_rss(paths["safetensors"], tmpdir, largest)
    for p in paths.values():
        if os.path.exists(p):
            os.unlink(p)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="~64 MiB models, 3 repetitions (< 1 minute)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out"))
    ap.add_argument("--reps", type=int, default=None, help="repetitions (default 5, quick 3)")
    ap.add_argument("--size-mib", type=int, default=None, help="model size per dtype (default 1024, quick 64)")
    ap.add_argument("--small-count", type=int, default=None, help="small tensors (default 10000, quick 2000)")
    ap.add_argument("--no-cold", action="store_true", help="skip cold-cache loads (drop_caches)")
    ap.add_argument("--tmp", default=None, help="scratch directory (default: a new one under /tmp)")
    ap.add_argument("--only", default=None, help="comma list of datasets: bf16,fp32,small10k")
    ap.add_argument("--extras-everywhere", action="store_true",
                    help="zstd throughput and save RSS on both models (default: zstd on bf16, RSS on fp32)")
    ap.add_argument("--child-save", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child_save:
        child_save(json.loads(args.child_save))
        return 0

    reps = args.reps or (3 if args.quick else 5)
    size = (args.size_mib or (64 if args.quick else 1024)) * MIB
    only = set(args.only.split(",")) if args.only else {"bf16", "fp32", "small10k"}
    os.makedirs(args.out, exist_ok=True)
    tmpdir = tempfile.mkdtemp(prefix="ztbench-", dir=args.tmp)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # still clean up the scratch files
    started = time.time()
    res = {"command": "python3 bench/container_bench.py" + (" --quick" if args.quick else ""),
           "argv": sys.argv[1:], "reps": reps, "machine": machine_info(), "datasets": {}}
    try:
        probe = os.path.join(tmpdir, "probe")
        with open(probe, "wb") as f:
            f.write(os.urandom(32 * MIB))
        cold_ok = not args.no_cold and cache_drop_works(probe)
        os.unlink(probe)
        res["cache"] = "warm and cold (drop_caches)" if cold_ok else "warm only (drop_caches unavailable)"
        log(f"scratch {tmpdir}; {res['cache']}")
        for dtype in ("bf16", "fp32"):
            if dtype not in only:
                continue
            log(f"[{dtype}] generating ~{size // MIB} MiB")
            tensors = make_model(dtype, size, args.quick)
            # zstd on bf16 (it compresses; fp32 noise barely does), RSS on fp32
            # (largest tensors); both on both with --extras-everywhere
            run_dataset(dtype, tensors, tmpdir, reps, cold_ok, True, res,
                        zstd=args.extras_everywhere or dtype == "bf16",
                        rss=args.extras_everywhere or dtype == "fp32")
            del tensors
            gc.collect()
        if "small10k" in only:
            count = args.small_count or (2000 if args.quick else 10000)
            run_dataset("small10k" if count == 10000 else f"small{count}", make_small(count), tmpdir, reps,
                        cold_ok, False, res)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    res["elapsed_s"] = time.time() - started
    res["targets"] = targets(res)
    table = markdown(res)
    suffix = "-quick" if args.quick else ""
    with open(os.path.join(args.out, f"container{suffix}.json"), "w") as f:
        json.dump(res, f, indent=1)
    m = res["machine"]
    md = [f"Machine: {m['nproc']} cores ({m['cpu']}), {m['mem_gib']} GiB, Python {m['python']}, numpy {m['numpy']}, "
          f"torch {m['torch']}, safetensors {m['safetensors']}, ztensor {m['ztensor']}. {res['cache']}. "
          f"{reps} repetitions; median (min–max). Run: `{res['command']}` ({res['elapsed_s']:.0f} s).", "", table,
          "| target | worst case | value | met |", "|---|---|---|---|"]
    for t in res["targets"]:
        v = f"{t['worst_value']:.2f}{'×' if t['unit'] == 'x' else ' MiB over'}"
        md.append(f"| {t['target']} | {t['worst_case']} | {v} | {'yes' if t['met'] else '**no**'} |")
    text = "\n".join(md) + "\n"
    with open(os.path.join(args.out, f"container{suffix}.md"), "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
