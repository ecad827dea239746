"""Shared helpers for the ztensor pytest suite."""

import ml_dtypes
import numpy as np

# numpy dtype -> (storage dtype, logical type) as the file must record it.
DTYPES = {
    np.dtype("float64"): ("f64", None),
    np.dtype("float32"): ("f32", None),
    np.dtype("float16"): ("f16", None),
    np.dtype(ml_dtypes.bfloat16): ("bf16", None),
    np.dtype("int64"): ("i64", None),
    np.dtype("int32"): ("i32", None),
    np.dtype("int16"): ("i16", None),
    np.dtype("int8"): ("i8", None),
    np.dtype("uint64"): ("u64", None),
    np.dtype("uint32"): ("u32", None),
    np.dtype("uint16"): ("u16", None),
    np.dtype("uint8"): ("u8", None),
    np.dtype("bool"): ("bool", None),
    np.dtype(ml_dtypes.float8_e4m3fn): ("u8", "f8_e4m3fn"),
    np.dtype(ml_dtypes.float8_e5m2): ("u8", "f8_e5m2"),
    np.dtype(ml_dtypes.float8_e4m3fnuz): ("u8", "f8_e4m3fnuz"),
    np.dtype(ml_dtypes.float8_e5m2fnuz): ("u8", "f8_e5m2fnuz"),
    np.dtype("complex64"): ("f32", "complex64"),
    np.dtype("complex128"): ("f64", "complex128"),
}


def sample(dtype, shape, seed=0):
    """Deterministic values of `dtype`, exactly representable in it."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == np.bool_:
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True).reshape(shape)
    if dtype.kind == "c":
        re = rng.standard_normal(n)
        im = rng.standard_normal(n)
        return (re + 1j * im).astype(dtype).reshape(shape)
    # floats incl. ml_dtypes: small integers and halves are exact everywhere
    return (rng.integers(-8, 8, n) / 2).astype(dtype).reshape(shape)


def same(a, b):
    """Bit-exact equality (NaN-safe), dtype and shape included."""
    a = np.asarray(a)
    b = np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def read_manifest(path):
    """The raw CBOR manifest of a v1.2 file (independent of our reader)."""
    import struct

    import cbor2

    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[-16:-8])
    return cbor2.loads(data[-16 - n:-16])


def write_gguf(path, tensors):
    """A GGUF file holding `tensors` (name -> array), written by the gguf package."""
    import gguf

    w = gguf.GGUFWriter(str(path), "llama")
    for name, array in tensors.items():
        w.add_tensor(name, array)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
