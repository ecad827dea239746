"""compress_array / decompress_array, XOR deltas and the Z4AIMF01 codec."""

import numpy as np
import pytest

import z4ai
from z4ai import chunked, delta


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "uint8", "int16", "int32",
                                   "int64", "uint64", "bool", "complex64"])
def test_array_round_trip_keeps_dtype_and_shape(dtype):
    arr = (np.random.default_rng(1).standard_normal((17, 3, 5)) * 10).astype(dtype)
    blob = z4ai.compress_array(arr)
    out = z4ai.decompress_array(blob)
    assert out.dtype == arr.dtype and out.shape == arr.shape
    assert out.tobytes() == arr.tobytes()
    assert z4ai.peek_is_z4ai(blob)
    assert z4ai.decompress(blob) == arr.tobytes()


def test_compress_infers_array_and_handles_non_contiguous_and_scalars():
    arr = np.arange(100, dtype=np.float32).reshape(10, 10).T
    assert np.array_equal(z4ai.decompress_array(z4ai.compress(arr)), arr)
    scalar = np.float64(3.5)
    assert z4ai.decompress_array(z4ai.compress_array(np.asarray(scalar))) == scalar
    empty = np.zeros((0, 4), dtype=np.int32)
    assert z4ai.decompress_array(z4ai.compress_array(empty)).shape == (0, 4)


def test_bfloat16_arrays_via_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    arr = np.linspace(-3, 3, 999).astype(ml_dtypes.bfloat16)
    out = z4ai.decompress_array(z4ai.compress_array(arr))
    assert out.dtype == arr.dtype and out.tobytes() == arr.tobytes()


def test_delta_is_small_for_a_close_checkpoint_and_exact():
    rng = np.random.default_rng(2)
    ref = (rng.standard_normal(200_000) * 0.02).astype(np.float32)
    cur = ref.copy()
    idx = rng.choice(ref.size, ref.size // 50, replace=False)
    cur[idx] += np.float32(1e-4)
    blob = z4ai.compress_delta(cur.tobytes(), ref.tobytes(), dtype="fp32")
    assert len(blob) * 5 < len(z4ai.compress(cur.tobytes(), dtype="fp32"))
    assert z4ai.decompress_delta(blob, ref.tobytes()) == cur.tobytes()
    out = bytearray(cur.nbytes)
    assert delta.decompress(blob, ref.tobytes(), out=out) is out and out == cur.tobytes()
    assert delta.peek_is_delta(blob)


def test_delta_against_wrong_reference_fails_loudly():
    ref = np.arange(1000, dtype=np.float32).tobytes()
    cur = bytearray(ref)
    cur[10] ^= 1
    blob = delta.compress(bytes(cur), ref)
    wrong = bytearray(ref)
    wrong[500] ^= 1
    with pytest.raises(z4ai.Z4aiError, match="digest_mismatch"):
        delta.decompress(blob, bytes(wrong))


def test_delta_never_much_larger_than_standalone():
    rng = np.random.default_rng(3)
    cur = rng.integers(0, 256, 50_000, dtype=np.uint8).tobytes()
    ref = rng.integers(0, 256, 40_000, dtype=np.uint8).tobytes()
    blob = delta.compress(cur, ref)
    assert len(blob) <= len(z4ai.compress(cur)) + 32
    assert delta.decompress(blob, ref) == cur


@pytest.mark.parametrize("dtype", [None, "bf16", "fp16", "fp32", "fp64", "int32"])
@pytest.mark.parametrize("n", [0, 1, 7, 100_003])
def test_chunked_round_trip(dtype, n):
    data = (np.random.default_rng(4).standard_normal(n // 4 + 1) * 0.02).astype(np.float32).tobytes()[:n]
    blob = chunked.compress(data, dtype=dtype, chunk_size=65536)
    assert blob[:8] == b"Z4AIMF01" and chunked.is_chunked(blob)
    assert chunked.decompress(blob) == data
    assert chunked.decompress(blob, threads=1) == data
    assert z4ai.decompress(blob) == data


def test_chunked_thread_independent_and_header_fields():
    data = (np.random.default_rng(5).standard_normal(1_000_000) * 0.02).astype(np.float32).tobytes()
    a = chunked.compress(data, dtype="fp32", threads=1)
    b = chunked.compress(data, dtype="fp32", threads=2)
    assert a == b
    assert a[8] == 0 and a[9] == 4  # flags, width
    n_chunks = int.from_bytes(a[10:14], "little")
    assert n_chunks == -(-len(data) // chunked.DEFAULT_CHUNK_SIZE)


def test_chunked_corrupt_frames_raise():
    blob = chunked.compress(b"x" * 10_000, dtype="int16")
    with pytest.raises(ValueError):
        chunked.decompress(blob[:-1])
    with pytest.raises(ValueError):
        chunked.decompress(b"Z4AIMF01" + b"\x00" * 3)
    with pytest.raises(ValueError):
        chunked.decompress(b"nope")
