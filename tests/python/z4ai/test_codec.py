"""z4ai.compress / decompress: byte-identical round trips for every dtype,
thread-count independence, out= buffers, corrupt frames raise."""

import numpy as np
import pytest

import z4ai

DTYPES = [None, "bf16", "fp16", "fp32", "fp64", "f8_e4m3fn", "f8_e5m2", "fp8_e4m3", "int8", "uint8",
          "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool", "float32", "raw"]


def weights(n, seed=0, dtype=np.float32):
    return (np.random.default_rng(seed).standard_normal(n) * 0.02).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 3, 1001, 65537])
def test_round_trip_every_dtype_and_length(dtype, n):
    data = weights(n // 4 + 1).tobytes()[:n]
    blob = z4ai.compress(data, dtype=dtype)
    assert z4ai.peek_is_z4ai(blob)
    assert z4ai.decompress(blob) == data
    assert z4ai.decompress(z4ai.compress(data, dtype=dtype, auto=False)) == data


@pytest.mark.parametrize("effort", [None, "fast", "balanced", "max"])
def test_efforts_round_trip_and_pick_frame(effort):
    data = weights(50_000).view(np.uint16)[1::2].tobytes()  # bf16 = fp32 high halves
    blob = z4ai.compress(data, dtype="bf16", effort=effort)
    assert blob[:4] == (b"ZARA" if effort in ("balanced", "max") else b"Z4AI")
    assert z4ai.decompress(blob) == data


def test_output_is_identical_for_any_thread_count():
    data = weights(3_000_001).tobytes()  # > one 4 MiB chunk
    one = z4ai.compress(data, dtype="fp32", threads=1)
    two = z4ai.compress(data, dtype="fp32", threads=2)
    assert one == two
    assert z4ai.decompress(one, threads=1) == data
    assert z4ai.decompress(one, threads=2) == data


def test_accepts_bytearray_memoryview_and_numpy_buffers():
    arr = weights(1000)
    for buf in (bytearray(arr.tobytes()), memoryview(arr.tobytes()), memoryview(arr).cast("B")):
        assert z4ai.decompress(z4ai.compress(buf, dtype="fp32")) == arr.tobytes()


def test_out_writes_into_the_given_buffer():
    data = weights(10_000).tobytes()
    blob = z4ai.compress(data, dtype="fp32")
    out = bytearray(len(data))
    assert z4ai.decompress(blob, out=out) is out
    assert out == data
    arr = np.zeros(10_000, dtype=np.float32)
    z4ai.decompress(blob, out=arr)
    assert arr.tobytes() == data
    with pytest.raises(ValueError):
        z4ai.decompress(blob, out=bytearray(len(data) - 1))


def test_float_split_beats_opaque_bytes():
    data = weights(200_000).tobytes()
    assert len(z4ai.compress(data, dtype="fp32")) < len(z4ai.compress(data))


@pytest.mark.parametrize("cut", [0, 1, 4, 31, 32, 100, -1])
def test_truncated_frames_raise(cut):
    blob = z4ai.compress(weights(5000).tobytes(), dtype="fp32")
    with pytest.raises(ValueError):
        z4ai.decompress(blob[:cut] if cut >= 0 else blob[:-1])


def test_bit_flips_raise_or_return_the_exact_data():
    data = weights(5000).tobytes()
    blob = bytearray(z4ai.compress(data, dtype="fp32"))
    rejected = 0
    for i in range(0, len(blob), 13):
        bad = bytearray(blob)
        bad[i] ^= 0x10
        try:
            assert z4ai.decompress(bytes(bad)) == data
        except z4ai.Z4aiError:
            rejected += 1
    assert rejected > 0


def test_corrupt_checksum_is_a_digest_error():
    blob = bytearray(z4ai.compress(weights(5000).tobytes(), dtype="fp32"))
    blob[16] ^= 0xFF
    with pytest.raises(z4ai.Z4aiError, match="digest_mismatch"):
        z4ai.decompress(bytes(blob))


def test_garbage_is_rejected():
    assert not z4ai.peek_is_z4ai(b"hello world")
    with pytest.raises(ValueError):
        z4ai.decompress(b"hello world, not a frame")


def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        z4ai.compress(b"abc", dtype="complex7")
    with pytest.raises(ValueError):
        z4ai.compress(b"abc", level=99)
    with pytest.raises(ValueError):
        z4ai.compress(b"abc", effort="ultra")
    with pytest.raises(TypeError):
        z4ai.compress(12345)


def test_dtype_width_table():
    assert z4ai.dtype_width(None) == 1
    for name, width in z4ai.DTYPE_WIDTHS.items():
        assert z4ai.dtype_width(name) == width
    with pytest.raises(ValueError):
        z4ai.dtype_width("nope")


def test_quantised_weights_take_the_palette_path():
    rng = np.random.default_rng(9)
    q = (rng.integers(-8, 8, 200_000).astype(np.float32) * np.float32(0.01)).tobytes()
    blob = z4ai.compress(q, dtype="fp32")
    assert len(blob) < len(q) * 0.14
    assert z4ai.decompress(blob) == q
