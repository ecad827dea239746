#!/usr/bin/env python3
"""What default z4ai.compress costs next to auto=False, in instructions and CPU time.

    python bench/micro/compress_cost.py [--callgrind] [--before PYTHONPATH] [--rounds 5] [name-substring ...]

Inputs of 1-4 MiB (the sizes where every candidate frame is built): trained-like
gaussian weights (N(0, 0.02)) in bf16, fp16 and fp32; int8-dequantised bf16 and
50 % pruned fp32; the real MTCNN and GE2E (resemblyzer) weights when their
packages are installed (deps/requirements-bench-models.txt, read through the
codec bench's corpus helpers); and a fine-tune pair (2 % of bf16 elements
changed) for compress_delta and model_delta.compress. threads=1 throughout.

CPU time is the best of --rounds calls (process time, so load from other jobs
inflates it less than wall time, but a loaded machine still moves it by +-20 %).
--callgrind also counts instructions (valgrind's Ir, independent of load): a
child interpreter runs the call once and once not, and the difference is the
call's count (the extension is stripped, so the whole process is counted).
--before PATH runs every figure a second time with PATH first on PYTHONPATH
(site-packages of another build: copy its ztensor/ and z4ai/ folders there)
and reports after/before ratios.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ("auto", "noauto")


def _bf16(x: np.ndarray) -> np.ndarray:
    import ml_dtypes

    return x.astype(ml_dtypes.bfloat16)


def _cast(x: np.ndarray, dtype: str) -> np.ndarray:
    return _bf16(x) if dtype == "bf16" else x.astype(np.float16 if dtype == "fp16" else np.float32)


def build_inputs(root: str) -> list:
    """(name, kind, dtype, file[, reference file]); kind: frame, delta or model_delta."""
    rng = np.random.default_rng(20261128)
    out = []

    def put(name, kind, dtype, data: bytes, ref: bytes = b""):
        path = os.path.join(root, name + ".bin")
        open(path, "wb").write(data)
        if ref:
            open(path + ".ref", "wb").write(ref)
        out.append((name, kind, dtype, path))

    for mib in (1, 2, 4):
        for dtype, width in (("bf16", 2), ("fp16", 2), ("fp32", 4)):
            put(f"gauss-{dtype}-{mib}M", "frame", dtype,
                _cast(rng.standard_normal((mib << 20) // width) * 0.02, dtype).tobytes())
    q = np.clip(np.rint(rng.standard_normal(1 << 20) * 127 / 3), -127, 127)
    scale = np.repeat(np.abs(rng.standard_normal((1 << 20) // 1024)) * 0.02 / 127 + 1e-4, 1024)
    put("int8-deq-bf16-2M", "frame", "bf16", _bf16(q * scale).tobytes())
    x = (rng.standard_normal(1 << 19) * 0.02).astype(np.float32)
    x[rng.random(x.size) < 0.5] = 0
    put("pruned50-fp32-2M", "frame", "fp32", x.tobytes())
    sys.path.insert(0, os.path.dirname(HERE))
    from codec_peers import corpus

    for prefix, module, files, reader, _desc, _pt in corpus.REAL_MODELS:
        if prefix not in ("mtcnn-detector", "resemblyzer-rnn"):
            continue
        try:
            flat = np.concatenate([a.ravel() for _, a in corpus.load_real(module, files, reader)])
        except SystemExit:  # package not installed
            continue
        for dtype in ("bf16", "fp16", "fp32"):
            if flat.size * (4 if dtype == "fp32" else 2) <= 4 << 20:
                put(f"{prefix}-{dtype}", "frame", dtype, _cast(flat, dtype).tobytes())
    base = _bf16(rng.standard_normal(1 << 20) * 0.02).view(np.uint16)
    put("finetune2-bf16-2M", "delta", "bf16", corpus._finetune(base, 2, rng).tobytes(), base.tobytes())
    shapes = [(384, 1536), (1536, 384), (384, 384), (384,)] * 3
    bases = [_bf16(rng.standard_normal(s) * 0.02) for s in shapes]
    targets = [corpus._finetune(b.view(np.uint16).ravel(), 2, rng).reshape(b.shape).view(b.dtype) for b in bases]
    put("model-delta2-bf16", "model_delta", "bf16",
        corpus.safetensors_bytes([(f"t{i}", t) for i, t in enumerate(targets)], "BF16"),
        corpus.safetensors_bytes([(f"t{i}", b) for i, b in enumerate(bases)], "BF16"))
    return out


def read_input(kind: str, path: str) -> tuple:
    data = open(path, "rb").read()
    return data, open(path + ".ref", "rb").read() if kind != "frame" else b""


def one_call(kind: str, dtype: str, data: bytes, ref: bytes, mode: str):
    """The call measured; returns the frame."""
    import z4ai
    import z4ai.model_delta

    if kind == "frame":
        return z4ai.compress(data, dtype=dtype, threads=1, auto=mode == "auto")
    if kind == "delta":
        return z4ai.compress_delta(data, ref, dtype=dtype, threads=1)
    return z4ai.model_delta.compress(data, ref, threads=1)


def child(kind: str, dtype: str, path: str, mode: str, calls: int) -> int:
    """Under valgrind: import, read, then the call `calls` times (0: the baseline)."""
    import z4ai  # noqa: F401  (imported in both runs, so the difference is the call)
    import z4ai.model_delta  # noqa: F401

    data, ref = read_input(kind, path)
    for _ in range(calls):
        one_call(kind, dtype, data, ref, mode)
    return 0


def callgrind_ir(python_path: str, kind: str, dtype: str, path: str, mode: str, calls: int) -> int:
    env = dict(os.environ, PYTHONHASHSEED="0")
    if python_path:
        env["PYTHONPATH"] = python_path
    with tempfile.NamedTemporaryFile() as cg:
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg.name}", sys.executable,
                            os.path.abspath(__file__), "--child", kind, dtype, path, mode, str(calls)],
                           capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
    return int(re.search(r"Collected : (\d+)", r.stderr).group(1))


_baselines: dict = {}


def instructions(python_path: str, kind: str, dtype: str, path: str, mode: str) -> int:
    """The call's instructions: a run with it less one without (imports, reading the input)."""
    key = (python_path, kind)
    if key not in _baselines:  # reading a few MiB more or less moves it by < 0.1 % of a call
        _baselines[key] = callgrind_ir(python_path, kind, dtype, path, mode, 0)
    return callgrind_ir(python_path, kind, dtype, path, mode, 1) - _baselines[key]


def cpu_ms(python_path: str, kind: str, dtype: str, path: str, mode: str, rounds: int) -> tuple:
    """Best process time of `rounds` calls in a child interpreter, and the frame size."""
    code = ("import sys, time; sys.path.insert(0, %r); from compress_cost import one_call, read_input\n"
            "data, ref = read_input(%r, %r); best = 1e9\n"
            "for _ in range(%d):\n"
            "    t = time.process_time(); f = one_call(%r, %r, data, ref, %r); best = min(best, time.process_time() - t)\n"
            "print(best * 1e3, len(f))") % (HERE, kind, path, rounds, kind, dtype, mode)
    env = dict(os.environ)
    if python_path:
        env["PYTHONPATH"] = python_path
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                       cwd=tempfile.gettempdir())
    ms, size = r.stdout.split()
    return float(ms), int(size)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--callgrind", action="store_true", help="also count instructions (valgrind)")
    ap.add_argument("--before", default="", help="PYTHONPATH of the build to compare against")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--child", nargs=5, metavar=("KIND", "DTYPE", "PATH", "MODE", "CALLS"), help=argparse.SUPPRESS)
    ap.add_argument("names", nargs="*", help="only inputs whose name contains one of these")
    args = ap.parse_args()
    if args.child:
        kind, dtype, path, mode, calls = args.child
        return child(kind, dtype, path, mode, int(calls))
    builds = [("after", "")] + ([("before", args.before)] if args.before else [])
    with tempfile.TemporaryDirectory() as root:
        inputs = [i for i in build_inputs(root) if not args.names or any(n in i[0] for n in args.names)]
        head = "| input | MB | frame / auto=False | CPU ms default / auto=False |"
        head += " Ir default / auto=False |" if args.callgrind else ""
        if args.before:
            head += " CPU after / before |" + (" Ir after / before |" if args.callgrind else "")
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for name, kind, dtype, path in inputs:
            modes = MODES if kind == "frame" else ("auto",)
            fig = {}
            for label, pp in builds:
                for mode in modes:
                    ms, size = cpu_ms(pp, kind, dtype, path, mode, args.rounds)
                    want_ir = args.callgrind and (label == "after" or mode == "auto")
                    ir = instructions(pp, kind, dtype, path, mode) if want_ir else 0
                    fig[label, mode] = (ms, size, ir)
            ms, size, ir = fig["after", "auto"]
            mb = os.path.getsize(path) / 1e6
            row = f"| {name} ({kind}) | {mb:.2f} |"
            if kind == "frame":
                p_ms, p_size, p_ir = fig["after", "noauto"]
                row += f" {size / p_size:.4f} | {ms:.1f} / {p_ms:.1f} ({ms / p_ms:.1f}x) |"
                row += f" {ir / 1e6:.0f}M / {p_ir / 1e6:.0f}M ({ir / p_ir:.1f}x) |" if args.callgrind else ""
            else:
                row += f" {size} B | {ms:.1f} ({mb / ms * 1e3:.0f} MB/s) |" + (f" {ir / 1e6:.0f}M |" if args.callgrind else "")
            if args.before:
                b_ms, b_size, b_ir = fig["before", "auto"]
                same = "" if b_size == size else f" (size before {b_size})"
                row += f" {ms / b_ms:.2f}{same} |" + (f" {ir / b_ir:.3f} |" if args.callgrind else "")
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
