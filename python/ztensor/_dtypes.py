"""Storage dtypes / logical types <-> numpy and torch dtypes (spec v1.2 §2).

One table per direction; every other module goes through these helpers.
"""

from __future__ import annotations

import numpy as np
import ml_dtypes

from .errors import error

# Storage dtype (the closed set of 13) -> numpy dtype. bf16 needs ml_dtypes.
STORAGE_TO_NUMPY = {
    "f64": np.dtype("<f8"),
    "f32": np.dtype("<f4"),
    "f16": np.dtype("<f2"),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "i64": np.dtype("<i8"),
    "i32": np.dtype("<i4"),
    "i16": np.dtype("<i2"),
    "i8": np.dtype("i1"),
    "u64": np.dtype("<u8"),
    "u32": np.dtype("<u4"),
    "u16": np.dtype("<u2"),
    "u8": np.dtype("u1"),
    "bool": np.dtype("?"),
}

# Logical type -> (numpy dtype, storage dtype it requires).
LOGICAL_TO_NUMPY = {
    "f8_e4m3fn": (np.dtype(ml_dtypes.float8_e4m3fn), "u8"),
    "f8_e5m2": (np.dtype(ml_dtypes.float8_e5m2), "u8"),
    "f8_e4m3fnuz": (np.dtype(ml_dtypes.float8_e4m3fnuz), "u8"),
    "f8_e5m2fnuz": (np.dtype(ml_dtypes.float8_e5m2fnuz), "u8"),
    "complex64": (np.dtype("<c8"), "f32"),
    "complex128": (np.dtype("<c16"), "f64"),
}

# numpy dtype -> (storage dtype, logical type or None).
_NUMPY_TO_ZT = {dt: (name, None) for name, dt in STORAGE_TO_NUMPY.items()}
_NUMPY_TO_ZT.update({dt: (storage, name) for name, (dt, storage) in LOGICAL_TO_NUMPY.items()})

# Names the 1.2.x package used in TensorMetadata.dtype.
STORAGE_TO_LEGACY_NAME = {
    "f64": "float64", "f32": "float32", "f16": "float16", "bf16": "bfloat16",
    "i64": "int64", "i32": "int32", "i16": "int16", "i8": "int8",
    "u64": "uint64", "u32": "uint32", "u16": "uint16", "u8": "uint8", "bool": "bool",
}


def numpy_dtype(storage: str, logical: str | None = None) -> np.dtype:
    """numpy dtype of the logical elements; unknown logical types fall back to storage."""
    if logical:
        entry = LOGICAL_TO_NUMPY.get(logical)
        if entry is not None and entry[1] == storage:
            return entry[0]
    try:
        return STORAGE_TO_NUMPY[storage]
    except KeyError:
        raise error("unknown_dtype", f"unknown storage dtype '{storage}'") from None


def zt_from_numpy(dtype: np.dtype) -> tuple[str, str | None]:
    """(storage dtype, logical type) for a numpy dtype, little-endian assumed."""
    dtype = np.dtype(dtype)
    if dtype.byteorder == ">":
        dtype = dtype.newbyteorder("<")
    try:
        return _NUMPY_TO_ZT[dtype]
    except KeyError:
        raise error("unsupported", f"numpy dtype {dtype} has no zTensor storage type") from None


def as_little_endian(arr: np.ndarray) -> np.ndarray:
    """C-contiguous little-endian version of `arr` (a view when it already is)."""
    if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "=" and np.little_endian is False):
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    # not np.ascontiguousarray: it turns 0-d arrays into 1-d ones
    return arr if arr.flags.c_contiguous else np.array(arr, order="C")


def as_bytes(arr: np.ndarray) -> np.ndarray:
    """Flat uint8 view of a C-contiguous array (zero-size and scalars included)."""
    return arr.reshape(-1).view(np.uint8)


# --- torch (imported lazily: ztensor works without it) ---------------------

_torch_tables = None


def _tables():
    global _torch_tables
    if _torch_tables is None:
        import torch

        to_zt = {
            torch.float64: ("f64", None), torch.float32: ("f32", None),
            torch.float16: ("f16", None), torch.bfloat16: ("bf16", None),
            torch.int64: ("i64", None), torch.int32: ("i32", None),
            torch.int16: ("i16", None), torch.int8: ("i8", None),
            torch.uint8: ("u8", None), torch.bool: ("bool", None),
            torch.complex64: ("f32", "complex64"), torch.complex128: ("f64", "complex128"),
        }
        for name, storage in (("uint16", "u16"), ("uint32", "u32"), ("uint64", "u64")):
            if hasattr(torch, name):
                to_zt[getattr(torch, name)] = (storage, None)
        for name in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"):
            if hasattr(torch, name):
                to_zt[getattr(torch, name)] = ("u8", "f8_" + name[len("float8_"):])
        from_zt = {v: k for k, v in to_zt.items()}
        _torch_tables = (to_zt, from_zt)
    return _torch_tables


def zt_from_torch(dtype) -> tuple[str, str | None]:
    try:
        return _tables()[0][dtype]
    except KeyError:
        raise error("unsupported", f"torch dtype {dtype} has no zTensor storage type") from None


def torch_dtype(storage: str, logical: str | None = None):
    from_zt = _tables()[1]
    if logical and (storage, logical) in from_zt:
        return from_zt[(storage, logical)]
    try:
        return from_zt[(storage, None)]
    except KeyError:
        raise error("unsupported", f"dtype '{storage}' has no torch equivalent in this torch build") from None
