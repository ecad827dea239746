"""Writes the golden frames of this codec: every frame kind and coding path
our encoder writes, each from a small seeded input.

    .venv/bin/python tests/golden/codec/make_frames.py [OUTDIR]

OUTDIR (default: this folder) receives one file per case and manifest.json.
Each case names the API that made it, its options, the SHA-256 and length of
its input and the coding path it pins. The inputs are not stored: the frame
decodes to them (tests/unit/codec/golden_frames_test.cc checks the digest)
and is then encoded again from those bytes, which must give the frame byte
for byte. So an encoder change, even one matched by its decoder, shows up as
a golden diff. Regenerate only for a deliberate format or encoder change,
and say in the commit which cases changed and why (tests/golden/README.md).

Inputs use integer arithmetic only (splitmix64 over the element index, then
exact conversions), so every platform and NumPy version makes the same
bytes. Each case asserts the path it is meant to pin (transform ids, stream
methods, frame mode): if an encoder change moves an input off its path, this
script fails instead of silently pinning another one.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import sys
import tempfile
from pathlib import Path

import numpy as np

import z4ai
from z4ai import chunked, model_delta
from z4ai import safetensors as zst
import ztensor

HERE = Path(__file__).resolve().parent

# ---------------------------------------------------------------- inputs

_GAMMA = np.uint64(0x9E3779B97F4A7C15)


def draws(seed: int, n: int) -> np.ndarray:
    """n uint64 values of splitmix64 (element i from seed + i * gamma)."""
    with np.errstate(over="ignore"):
        z = np.arange(n, dtype=np.uint64) * _GAMMA + np.uint64(seed)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def uniform(seed: int, n: int, k: int) -> np.ndarray:
    """n integers in [0, k), k <= 2^32."""
    return ((draws(seed, n) >> np.uint64(32)) % np.uint64(k)).astype(np.int64)


def gauss(seed: int, n: int) -> np.ndarray:
    """Bell-shaped integers: the sum of the four 16-bit lanes of each draw,
    centred (|v| < 2^18, so every value is exact in fp32)."""
    z = draws(seed, n)
    s = np.zeros(n, dtype=np.int64)
    for lane in range(4):
        s += ((z >> np.uint64(16 * lane)) & np.uint64(0xFFFF)).astype(np.int64)
    return s - 2 * 65535


def f32(ints: np.ndarray, shift: int) -> np.ndarray:
    """ints * 2^-shift as fp32: exact for |ints| < 2^24."""
    return ints.astype(np.float32) * np.float32(2.0 ** -shift)


def bf16(x: np.ndarray) -> np.ndarray:
    """fp32 to bf16 bits, rounded to nearest even in integer arithmetic
    (what the scale grid's decoder does; no NaN among these inputs)."""
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((b + np.uint64(0x7FFF) + ((b >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)).astype(np.uint16)


def weights_f32(seed: int, n: int, top: int = 122) -> np.ndarray:
    """Trained-weight-like fp32: the exponent of a bell-shaped magnitude (the
    largest one 2^(top-127)), a random sign and 23 random mantissa bits."""
    g = np.abs(gauss(seed, n)) + 1
    octave = np.frexp(g.astype(np.float64))[1].astype(np.int64) - 1  # floor(log2 g), exact
    exp = np.maximum(top - (17 - octave), 1).astype(np.uint32)
    z = draws(seed + 1000, n)
    sign = ((z >> np.uint64(63)).astype(np.uint32)) << np.uint32(31)
    mant = (z & np.uint64(0x7FFFFF)).astype(np.uint32)
    return (sign | (exp << np.uint32(23)) | mant).view(np.float32)


def correlated_f32(seed: int, n: int) -> np.ndarray:
    """Magnitudes that follow their neighbour (CNN kernels): a random walk of
    the exponent, so the previous element's exponent predicts the next."""
    steps = uniform(seed, n, 3) - 1
    level = np.cumsum(steps) % 24
    mant = uniform(seed + 1, n, 1 << 16)
    sign = uniform(seed + 2, n, 2)
    return ((mant + (1 << 16)) * (1 - 2 * sign)).astype(np.float32) * np.float32(2.0 ** -40) * \
        np.exp2(level).astype(np.float32)


def dequantised_f32(seed: int, rows: int, cols: int, levels: int = 127, zeros: bool = False) -> np.ndarray:
    """int8 (or int4: levels=7) weights times one fp32 scale per row."""
    q = uniform(seed, rows * cols, 2 * levels + 1) - levels
    if not zeros:
        q[q == 0] = 1
    scale = f32(uniform(seed + 1, rows, 1 << 20) + (1 << 20), 30)
    return (q.reshape(rows, cols).astype(np.float32) * scale[:, None]).reshape(-1)


def rare_exponents_bf16(seed: int, n: int) -> np.ndarray:
    """bf16 bits whose exponent is 120 99 % of the time and one of 200 others
    otherwise (too many to pair: the plain field split), 95 % of mantissas 0:
    so many rare exponents that 12-bit rANS frequencies take ~4 % of the
    probability from the common one, which 14-bit ones (method 9) give back,
    over 1 % of the chunk."""
    u = uniform(seed, n, 10000)
    e = np.where(u < 9900, 120, 20 + uniform(seed + 1, n, 200))
    v = uniform(seed + 2, n, 10000)
    mant = np.where(v < 9500, 0, 1 + uniform(seed + 3, n, 127))
    return ((e << 7) | mant).astype(np.uint16)


def coarse_mantissa(x: np.ndarray) -> np.ndarray:
    """fp32 with only the top 3 mantissa bits kept (cheap mantissa streams)."""
    return (x.view(np.uint32) & np.uint32(0xFFF00000)).view(np.float32)


def vocabulary_json(seed: int, n: int) -> bytes:
    """Tokenizer-like JSON: n entries "tok_<id>": <index>."""
    ids = uniform(seed, n, 5000)
    return ("{" + ", ".join(f'"tok_{int(v)}": {i}' for i, v in enumerate(ids)) + "}").encode()


def text(seed: int, n_words: int) -> bytes:
    vocab = [b"layer", b"weight", b"bias", b"attention", b"0.125", b"norm", b"embed", b"{", b"}", b"\"dtype\":"]
    idx = uniform(seed, n_words, len(vocab))
    return b" ".join(vocab[i] for i in idx)


def safetensors(tensors: list, metadata: dict | None = None) -> bytes:
    """A safetensors file from (name, dtype, shape, bytes), in that order."""
    header, data, off = {}, b"", 0
    if metadata:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + len(raw)]}
        data += raw
        off += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


# ---------------------------------------------------------------- frame paths

SPARSE = 0x80


def z4ai_layout(frame: bytes) -> dict:
    """Mode, chunk size and per chunk (transform byte, stream methods)."""
    magic, mode = frame[:4].decode(), frame[6]
    if mode == 1:
        return {"magic": magic, "mode": 1, "chunks": []}
    chunk_bytes, n = struct.unpack_from("<II", frame, 24)
    lens = struct.unpack_from(f"<{n}I", frame, 32)
    off, chunks = 32 + 4 * n, []
    for length in lens:
        body = frame[off:off + length]
        tail = body[1]
        k = body[2 + tail]
        chunks.append((body[0], tuple(body[3 + tail + 9 * i] for i in range(k))))
        off += length
    return {"magic": magic, "mode": 0, "chunk_bytes": chunk_bytes, "chunks": chunks}


def describe(layout: dict) -> str:
    if layout["mode"] == 1:
        return f"{layout['magic']} mode 1 (whole-buffer zstd)"
    parts = [f"{layout['magic']} mode 0, {len(layout['chunks'])} chunk(s) of {layout['chunk_bytes']} B"]
    seen = []
    for c in layout["chunks"]:
        if c not in seen:
            seen.append(c)
    for t, methods in seen:
        flag = " sparse" if t & SPARSE else ""
        parts.append(f"transform {t & 0x7F}{flag} methods {list(methods)}")
    return "; ".join(parts)


def expect(layout: dict, mode=0, magic="Z4AI", transform=None, sparse=False, method=None, chunks=None, check=None):
    """Asserts the path a case exists for; returns the layout's description."""
    assert layout["magic"] == magic, layout
    assert layout["mode"] == mode, layout
    if transform is not None:
        ts = {c[0] for c in layout["chunks"]}
        want = transform | (SPARSE if sparse else 0)
        assert want in ts, f"transform {want:#x} not in {sorted(ts)}"
    if method is not None:
        ms = {m for c in layout["chunks"] for m in c[1]}
        assert method in ms, f"method {method} not in {sorted(ms)}"
    if chunks is not None:
        assert len(layout["chunks"]) == chunks, layout["chunks"]
    if check is not None:
        assert check(layout), layout
    return describe(layout)


def zstn_layout(frame: bytes) -> str:
    """contiguous flag and entry kinds of a ZSTN v3 container."""
    if frame[5] == 0:
        return "ZSTN v3 contiguous=0: one opaque frame"
    index_at, index_len = struct.unpack_from("<QQ", frame, len(frame) - 20)
    n, off, kinds = struct.unpack_from("<I", frame, index_at)[0], index_at + 4, []
    for _ in range(n):
        name_len = struct.unpack_from("<H", frame, off)[0]
        kind = frame[off + 2 + name_len + 16]
        kinds.append(kind)
        off += 2 + name_len + 17 + (16 if kind == 0 else 4)
    assert off == index_at + index_len
    return f"ZSTN v3 contiguous=1: {kinds.count(0)} FRAME, {kinds.count(1)} REF"


def z4dm_kinds(frame: bytes) -> list:
    """Entry kinds of a Z4DM v1 frame (0 COPY, 1 DELTA, 2 FULL)."""
    hlen = struct.unpack_from("<Q", frame, 8)[0]
    off = 16 + hlen + 24
    n, off, kinds = struct.unpack_from("<I", frame, off)[0], off + 4, []
    for _ in range(n):
        name_len = struct.unpack_from("<H", frame, off)[0]
        off += 2 + name_len + 16
        kind = frame[off]
        kinds.append(kind)
        off += 1
        if kind == 0:
            off += 8
        else:
            off += 16 if kind == 1 else 0
            off += 8 + struct.unpack_from("<Q", frame, off)[0]
    assert off == len(frame) - 8
    return kinds


def chunked_methods(frame: bytes) -> tuple:
    """(chunk count, plane methods used, tail bytes) of a Z4AIMF01 frame."""
    width, n = frame[9], struct.unpack_from("<I", frame, 10)[0]
    off, methods, tail = 14, set(), 0
    for _ in range(n):
        tail = frame[off + 4]
        off += 5 + tail
        for _ in range(width):
            methods.add(frame[off])
            off += 5 + struct.unpack_from("<I", frame, off + 1)[0]
    assert off == len(frame)
    return n, sorted(methods), tail


# ---------------------------------------------------------------- cases

CASES: list = []
FILES: dict = {}


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def add(name: str, kind: str, frame: bytes, data: bytes, options: dict, path: str, why: str, **extra):
    assert name not in FILES, name
    fname = name + {"zstn": ".zstn", "model_delta": ".z4dm", "zt": ".zt"}.get(kind, ".z4")
    FILES[fname] = frame
    CASES.append({"name": name, "kind": kind, "frame": fname, "input_sha256": sha(data), "input_bytes": len(data),
                  "options": options, **extra, "path": path, "why": why})


def codec(name, data, why, *, dtype="", effort="fast", level=None, auto=True, **want):
    frame = z4ai.compress(data, dtype=dtype or None, level=level, effort=effort, auto=auto, threads=1)
    for threads in (2, 0):
        assert z4ai.compress(data, dtype=dtype or None, level=level, effort=effort, auto=auto, threads=threads) == frame
    assert bytes(z4ai.decompress(frame)) == data
    options = {"dtype": dtype, "effort": effort, "level": -1 if level is None else level, "auto": auto}
    magic = want.pop("magic", "Z4AI" if effort == "fast" else "ZARA")
    add(name, "z4ai", frame, data, options, expect(z4ai_layout(frame), magic=magic, **want), why)
    return frame


def build() -> None:
    # Whole-buffer zstd (mode 1) and the empty input.
    codec("empty", b"", "the empty input: a chunked frame of no chunks", chunks=0)
    codec("text_whole_zstd", text(1, 600), "tiny opaque input: whole-buffer zstd beats the chunked frame", mode=1)
    codec("text_whole_zstd_level19", text(1, 600), "the level reaches the whole-buffer zstd stage", level=19,
          mode=1)
    skew = (np.minimum(uniform(2, 96 << 10, 1 << 12), uniform(3, 96 << 10, 1 << 12)) % 29).astype(np.uint8)
    codec("opaque_rans0", skew.tobytes(), "opaque bytes without matches: transform none, rANS order-0",
          transform=0, method=2)

    # The lean coding (effort fast, floats without palette or sparse structure).
    w = weights_f32(10, 48 << 10)
    # auto=False: the primary coding alone (on inputs this small auto also
    # builds the one-chunk long-stream frame, which often wins).
    codec("bf16_lean_paired", bf16(w).tobytes(), "lean bf16: paired field split, exponent pairs rANS, mantissa stored",
          dtype="bf16", auto=False, transform=4, method=0)
    codec("bf16_auto_small", bf16(w).tobytes(), "auto on a small bf16 input: the best of lean, long-stream and zstd",
          dtype="bf16")
    codec("fp32_lean_paired", w[:24 << 10].tobytes(), "lean fp32: paired field split, three mantissa streams stored",
          auto=False, dtype="fp32", transform=4)
    codec("fp16_lean_byte_planes", w.astype(np.float16).tobytes(),
          "lean fp16: byte planes, the high byte (sign, exponent, top mantissa bits) one rANS symbol",
          auto=False, dtype="fp16", transform=1)
    fp8 = (w.astype(np.float16).view(np.uint16) >> 8).astype(np.uint8)
    codec("f8_e5m2_lean_none", fp8.tobytes(), "lean fp8: the whole byte one symbol (transform none), rANS order-0",
          auto=False, dtype="f8_e5m2", transform=0, method=2)
    codec("fp64_lean_field_split", f32(gauss(11, 16 << 10), 20).astype(np.float64).tobytes(),
          "lean fp64: field split", auto=False, dtype="fp64", transform=2)
    wide = f32(gauss(12, 32 << 10), 20) * np.exp2(uniform(13, 32 << 10, 60) - 30).astype(np.float32)
    codec("bf16_lean_wide_exponents", bf16(wide).tobytes(),
          "lean bf16 whose exponents miss the 15-value window: plain field split", auto=False, dtype="bf16", transform=2)
    codec("bf16_lean_order1", bf16(correlated_f32(14, 64 << 10)).tobytes(),
          "lean bf16 whose exponents follow their neighbour: exponent stream rANS order-1", auto=False, dtype="bf16",
          method=3)
    codec("bf16_lean_rans14", rare_exponents_bf16(15, 256 << 10).tobytes(),
          "lean bf16 with many rare exponents: 14-bit rANS (method 9) saves over 1 % of the chunk", auto=False,
          dtype="bf16", method=9)
    codec("bf16_lean_mantissa_coded", bf16(coarse_mantissa(w)).tobytes(),
          "lean bf16 whose mantissas take few values: the mantissa stream gets the coder search",
          auto=False, dtype="bf16", check=lambda lay: any(c[1][-1] != 0 for c in lay["chunks"]))
    # The noise test samples 16 runs of 256 bytes spread over each stream
    # (every 2167 bytes here): 980 elements between two of them end in 16
    # zero bits, so the low mantissa streams repeat bytes a sample never sees.
    runs = weights_f32(16, 32 << 10).view(np.uint32).copy()
    runs[15600:16580] &= np.uint32(0xFFFF0000)
    codec("fp32_lean_mantissa_runs", runs.view(np.float32).tobytes(),
          "lean fp32 noise mantissas with a run the sample misses: zstd on the whole stream", auto=False, dtype="fp32",
          method=1)

    # Transforms ranked per chunk (inputs the lean coding does not take).
    grid = dequantised_f32(20, 256, 256)
    codec("fp32_lean_scale_grid", grid.tobytes(), "int8-dequantised fp32 (few zeros): lean chunk coded as a scale grid",
          dtype="fp32", transform=6)
    codec("bf16_scale_grid", bf16(dequantised_f32(21, 256, 256)).tobytes(), "int8-dequantised bf16: scale grid",
          dtype="bf16", transform=6)
    codec("fp16_scale_grid", dequantised_f32(22, 256, 256, levels=7).astype(np.float16).tobytes(),
          "int4-dequantised fp16: scale grid", dtype="fp16", transform=6)
    book = f32(gauss(23, 10), 16)
    codec("fp32_palette", book[uniform(24, 48 << 10, 10)].tobytes(), "ten distinct values: palette", dtype="fp32",
          transform=3)
    pruned = weights_f32(25, 32 << 10)
    pruned[uniform(26, 32 << 10, 2) == 0] = 0
    codec("fp32_sparse", pruned.tobytes(), "half the elements exact zeros: sparse field split", dtype="fp32",
          transform=2, sparse=True)
    small = (uniform(27, 64 << 10, 601) - 300).astype(np.int32)
    codec("int32_byte_planes", small.tobytes(),
          "small int32 in 64 KiB chunks sharing one ranking of the whole input: byte planes", dtype="int32",
          transform=1)
    codec("int16_noauto", small.astype(np.int16).tobytes(), "auto=False on int16: byte planes, coder search",
          dtype="int16", auto=False, transform=1)
    drift = np.concatenate([uniform(28 + b, 16 << 10, 8) * 32 + b for b in range(8)]).astype(np.uint8)
    codec("opaque_rans_blocks", drift.tobytes(), "bytes whose statistics change every 16 KiB: blocked rANS",
          method=7)
    succ = uniform(30, 64 * 4, 64).reshape(64, 4)  # each of 64 symbols has 4 successors
    markov, prev = np.zeros(64 << 10, dtype=np.uint8), 0
    for i, step in enumerate(uniform(29, markov.size, 4)):
        prev = markov[i] = succ[prev, step]
    codec("opaque_rans_order1", markov.tobytes(), "bytes that follow the byte before: rANS order-1", method=3)

    # One-chunk frames: long-range repeats and the long-stream candidate.
    tied = bf16(weights_f32(30, 64 << 10))
    codec("bf16_repeat_path", np.concatenate([tied, tied]).tobytes(),
          "a tied copy: one chunk, streams zstd with long-distance matching", dtype="bf16", chunks=1, method=1)
    table = weights_f32(31, 24 << 10)
    codec("fp32_long_stream_sign_split", np.concatenate([table, -table]).tobytes(),
          "a table repeated with flipped signs: one-chunk sign split (the long-stream frame)", dtype="fp32",
          transform=5, chunks=1)
    layers = np.concatenate([weights_f32(32 + p, 64 << 10, top=112 + 2 * p) for p in range(2)]).astype(np.float16)
    layers = layers.view(np.uint16) & np.uint16(0xFF80)  # one random bit in the low byte
    codec("fp16_long_stream_slices", layers.tobytes(),
          "fp16 layers of changing scale: one chunk, high byte plane with a table per 64 KiB (method 10)",
          dtype="fp16", chunks=1, method=10)
    # Words of 13 values from a vocabulary of 512: zstd finds every word again,
    # while 64-byte aligned blocks (spanning 2-3 random words) rarely repeat,
    # so the repeat path stays off.
    vocab = weights_f32(33, 512 * 13).reshape(512, 13)
    words = vocab[uniform(34, (4 << 20) // 52 + 1, 512)].reshape(-1)[:1 << 20]
    codec("fp32_zstd_chunks", words.tobytes(),
          "4 MiB of recurring 13-value words: zstd beats the chunk coder on the probe windows, every chunk zstd",
          dtype="fp32", transform=0, method=1)

    # ZARA (effort balanced and max).
    # A checkpoint's layers back to back (each its own scale, 3 mantissa bits).
    layers = [coarse_mantissa(weights_f32(40 + p, 4000 + 1500 * p, top=108 + 3 * p)) for p in range(8)]
    codec("bf16_balanced_segments", bf16(np.concatenate(layers)).tobytes(),
          "ZARA balanced: segmented rANS cut where the scale changes", dtype="bf16", effort="balanced",
          method=8)
    codec("text_max_whole_zstd", vocabulary_json(70, 3000),
          "ZARA max on metadata text: whole-buffer zstd at level 19 (balanced: level 9) wins", effort="max",
          mode=1)
    codec("fp32_balanced_relabelled", np.concatenate([table, -table]).tobytes(),
          "ZARA balanced where the fast frame (the sign-split long stream) is smaller: it, under the ZARA magic",
          dtype="fp32", effort="balanced", transform=5)

    other_kinds(bf16(w))


def other_kinds(ref: np.ndarray) -> None:
    """Z4XD, ZSTN, Z4DM, Z4AIMF01, a .zt with z4ai components and Z4NA."""
    # Z4XD: a fine-tuned copy (XOR delta, mode 0) and an unrelated buffer (mode 1).
    tuned = ref.copy()
    hit = uniform(50, ref.size, 50) == 0
    tuned[hit] ^= np.uint16(1)
    for name, cur, mode in (("delta_xor", tuned, 0), ("delta_standalone", bf16(weights_f32(51, ref.size)), 1)):
        frame = z4ai.compress_delta(cur.tobytes(), ref.tobytes(), dtype="bf16", threads=1)
        assert z4ai.compress_delta(cur.tobytes(), ref.tobytes(), dtype="bf16", threads=2) == frame
        assert frame[:4] == b"Z4XD" and frame[5] == mode
        inner = z4ai_layout(frame[32:])
        add(name, "delta", frame, cur.tobytes(), {"dtype": "bf16", "level": -1}, f"Z4XD mode {mode}; inner "
            + describe(inner), "the XOR delta against a reference" if mode == 0 else
            "a current buffer unlike its reference: the plain frame", reference="bf16_lean_paired")

    # ZSTN: a tiling safetensors (a FRAME per tensor, a tied copy as REF) and one with a gap (one opaque frame).
    emb = bf16(weights_f32(52, 32 << 10))
    tensors = [("embed.weight", "BF16", (256, 128), emb.tobytes()),
               ("layer.bias", "F32", (128,), f32(gauss(53, 128), 20).tobytes()),
               ("layer.steps", "I64", (4,), np.arange(4, dtype=np.int64).tobytes()),
               ("lm_head.weight", "BF16", (256, 128), emb.tobytes()),
               ("layer.weight", "F16", (128, 64), weights_f32(54, 128 * 64).astype(np.float16).tobytes())]
    base = safetensors(tensors, {"format": "pt"})
    frame = zst.compress_bytes(base, threads=1, workers=1)
    assert zst.compress_bytes(base, threads=2, workers=2) == frame
    path = zstn_layout(frame)
    assert path == "ZSTN v3 contiguous=1: 4 FRAME, 1 REF", path
    add("zstn_tiled", "zstn", frame, base, {"level": -1, "effort": "fast"}, path,
        "a tensor per frame; a byte-identical tensor stored as a REF")
    gap = bytearray(safetensors(tensors[:2]))
    gap += b"\0" * 16  # bytes no tensor covers
    gap = bytes(gap)
    # The writer now refuses such a file (the one safetensors parser wants the tensors to tile the
    # buffer); readers still take the contiguous=0 containers earlier writers made, so that frame
    # stays pinned as committed, decode-only.
    try:
        zst.compress_bytes(gap, threads=1, workers=1)
        raise AssertionError("the ZSTN writer accepted a safetensors file with a gap")
    except z4ai.Z4aiError as e:
        assert e.code == "invalid_argument", e
    frame = (HERE / "zstn_opaque.zstn").read_bytes()
    assert frame[5] == 0 and zst.decompress_bytes(frame) == gap
    add("zstn_opaque", "zstn", frame, gap, {"level": -1, "effort": "fast"}, zstn_layout(frame),
        "tensors that do not tile the data buffer: the whole buffer one frame, as earlier writers made it",
        encoder_refuses="invalid_argument")

    # Z4DM against zstn_tiled's safetensors: COPY, a rename (COPY), DELTA and FULL entries.
    tuned_emb = emb.copy()
    tuned_emb[uniform(55, emb.size, 64) == 0] ^= np.uint16(1)
    target = safetensors([("embed.weight", "BF16", (256, 128), tuned_emb.tobytes()),
                          ("layer.bias", "F32", (128,), f32(gauss(53, 128), 20).tobytes()),
                          ("head.weight", "BF16", (256, 128), emb.tobytes()),
                          ("layer.weight", "F16", (128, 64), weights_f32(56, 128 * 64).astype(np.float16).tobytes()),
                          ("new.scale", "F32", (32,), f32(gauss(57, 32), 10).tobytes())], {"format": "pt"})
    frame = model_delta.compress(target, base, threads=1)
    assert model_delta.compress(target, base, threads=2) == frame
    kinds = z4dm_kinds(frame)
    assert kinds == [1, 0, 0, 2, 2], kinds  # DELTA, COPY, COPY of a renamed tensor, FULL (new values), FULL (new)
    add("model_delta", "model_delta", frame, target, {"level": -1},
        "Z4DM v1 entries: DELTA, COPY, COPY by content (a rename), FULL, FULL",
        "a fine-tuned checkpoint against its base, aligned by name", base="zstn_tiled")

    # Z4AIMF01: stored and zstd planes, several chunks and a tail byte.
    planes = bf16(weights_f32(58, 50 << 10)).tobytes() + b"\x5a"
    frame = chunked.compress(planes, dtype="bf16", chunk_size=32 << 10, threads=1)
    assert chunked.compress(planes, dtype="bf16", chunk_size=32 << 10, threads=2) == frame
    n, methods, tail = chunked_methods(frame)
    assert methods == [0, 1] and tail == 1, (methods, tail)
    add("chunked_bf16", "chunked", frame, planes, {"width": 2, "level": 1, "chunk_size": 32 << 10},
        f"Z4AIMF01: {n} chunks, planes stored (method 0) and zstd (method 1), a 1-byte tail",
        "the chunked layout (PyPI z4ai.chunked's, byte for byte)")

    zt_file()
    z4na()


def zt_file() -> None:
    """A .zt whose components are z4ai frames, one object per codec dtype mapping and effort."""
    import ml_dtypes

    objects = [("w_bf16", weights_f32(60, 8192).astype(ml_dtypes.bfloat16).reshape(64, 128), "fast"),
               ("w_f32", weights_f32(61, 4096).reshape(64, 64), "balanced"),
               ("w_f16", weights_f32(62, 4096).astype(np.float16), "max"),
               ("w_fp8", weights_f32(63, 4096).astype(ml_dtypes.float8_e4m3fn), "fast"),
               ("w_c64", weights_f32(64, 2048).view(np.complex64), "fast"),
               ("steps", np.arange(-512, 512, dtype=np.int64), "fast"),
               ("mask", uniform(65, 1000, 2).astype(bool), "fast")]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "g.zt")
        with ztensor.Writer(path) as wr:
            for name, arr, effort in objects:
                wr.add(name, arr, compression="z4ai", effort=effort, checksum="sha256")
        blob = Path(path).read_bytes()
    data = b"".join(np.ascontiguousarray(a).tobytes() for _, a, _ in objects)
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "g.zt"), "wb") as f:
            f.write(blob)
        with ztensor.open(os.path.join(d, "g.zt")) as r:
            for name, arr, _ in objects:
                assert np.ascontiguousarray(r.read(name)).tobytes() == np.ascontiguousarray(arr).tobytes(), name
    add("zt_z4ai_components", "zt", blob, data, {"objects": [[n, e] for n, _, e in objects]},
        ".zt v1.2, every component encoding z4ai (bf16, f32, f16, fp8, complex64, i64, bool)",
        "the z4ai .zt encoding: the codec dtype each component maps to, the effort, the sha256 digest")


def z4na() -> None:
    arr = weights_f32(70, 2048).reshape(32, 64)
    frame = z4ai.compress_array(arr, threads=1)
    assert frame[:4] == b"Z4NA"
    add("z4na_fp32", "z4na", frame, arr.tobytes(), {"dtype": "float32", "shape": [32, 64]},
        "Z4NA v1 around a Z4AI frame", "NumPy's dtype and shape around the frame (Python only)")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    build()
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        if old.suffix in (".z4", ".zstn", ".z4dm", ".zt"):
            old.unlink()
    for fname, frame in FILES.items():
        (out / fname).write_bytes(frame)
    manifest = {"generator": "tests/golden/codec/make_frames.py", "cases": CASES}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    total = sum(len(f) for f in FILES.values())
    print(f"{len(CASES)} cases, {total} bytes of frames")
    for c in CASES:
        print(f"  {c['name']:34s} {len(FILES[c['frame']]):8d}  {c['path']}")


if __name__ == "__main__":
    main()
