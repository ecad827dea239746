"""NumPy array frames: a small wrapper recording dtype and shape around a
z4ai frame (layout in docs/codec.md):

    b"Z4NA" | u8 version (1) | u8 len(dtype) | dtype str (NumPy dtype name)
    | u8 ndim | ndim x u64 dims | inner Z4AI/ZARA frame
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

from . import _z4ai
from ._args import effort_arg, level_arg, max_output_arg

if TYPE_CHECKING:  # numpy is imported only when an array is handled
    import numpy.typing as npt

MAGIC = b"Z4NA"
_VERSION = 1

# NumPy (and ml_dtypes) dtype name -> codec dtype code.
_CODEC_DTYPE = {
    "float16": "fp16", "float32": "fp32", "float64": "fp64", "bfloat16": "bf16",
    "float8_e4m3fn": "f8_e4m3fn", "float8_e5m2": "f8_e5m2",
    "float8_e4m3fnuz": "f8_e4m3fnuz", "float8_e5m2fnuz": "f8_e5m2fnuz",
    "int8": "int8", "uint8": "uint8", "int16": "int16", "uint16": "uint16",
    "int32": "int32", "uint32": "uint32", "int64": "int64", "uint64": "uint64", "bool": "bool",
}


def _numpy():
    import numpy as np

    return np


def compress_array(arr, *, level=None, threads: int = 0, auto: bool = True, effort=None) -> bytes:
    """Compress a NumPy array, recording dtype and shape for exact restore."""
    np = _numpy()
    arr = np.ascontiguousarray(arr)
    name = arr.dtype.name if arr.dtype.byteorder in ("=", "|", "<") else arr.dtype.str
    code = _CODEC_DTYPE.get(arr.dtype.name, "") if arr.dtype.byteorder != ">" else ""
    raw = arr.reshape(-1).view(np.uint8)
    inner = _z4ai.compress(raw, code, level_arg(level), int(threads), bool(auto), effort_arg(effort))
    name_b = name.encode()
    head = MAGIC + struct.pack("<BB", _VERSION, len(name_b)) + name_b + struct.pack("<B", arr.ndim)
    head += struct.pack(f"<{arr.ndim}Q", *arr.shape)
    return head + inner


def is_array_frame(blob) -> bool:
    return len(blob) >= 4 and bytes(blob[:4]) == MAGIC


def unwrap_array_frame(blob):
    """(dtype name, shape, inner frame view); ValueError if malformed."""
    mv = memoryview(blob).cast("B")
    try:
        if bytes(mv[:4]) != MAGIC:
            raise ValueError("not a z4ai array frame (magic 'Z4NA')")
        version, nlen = struct.unpack_from("<BB", mv, 4)
        if version != _VERSION:
            raise ValueError(f"z4ai array frame: unsupported version {version}")
        name = bytes(mv[6 : 6 + nlen]).decode()
        (ndim,) = struct.unpack_from("<B", mv, 6 + nlen)
        shape = struct.unpack_from(f"<{ndim}Q", mv, 7 + nlen)
        return name, tuple(shape), mv[7 + nlen + 8 * ndim :]
    except (struct.error, UnicodeDecodeError) as e:
        raise ValueError(f"z4ai array frame: truncated or malformed header ({e})") from None


def _resolve_dtype(name: str):
    np = _numpy()
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes  # bf16 / fp8 names live here

        return np.dtype(getattr(ml_dtypes, name))


def decompress_array(blob: Any, *, max_output: Any = None) -> npt.NDArray[Any]:
    """Decompress a frame created by :func:`compress_array` into an array.

    ``max_output`` (bytes) caps the declared size, as for :func:`z4ai.decompress`.
    """
    np = _numpy()
    name, shape, inner = unwrap_array_frame(blob)
    dtype = _resolve_dtype(name)
    raw = _z4ai.decompress(inner, 0, max_output_arg(max_output))
    count = 1
    for d in shape:
        count *= d
    if count * dtype.itemsize != len(raw):
        raise ValueError("z4ai array frame: shape and dtype do not match the decoded length")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
