"""Structure checks for sparse objects (spec v1.2 §3), done before any
scipy/torch object is built, so a corrupt file is an error, not a crash."""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import error


def scipy_sparse(name: str) -> Any:
    """scipy.sparse, imported only when a sparse object is read as numpy; its
    absence is named with the extra that installs it."""
    try:
        import scipy.sparse  # type: ignore[import-untyped]  # scipy ships no stubs
    except ImportError as e:
        raise ModuleNotFoundError(
            f"object '{name}' is sparse and reads as a scipy.sparse array, but scipy is not installed: "
            "pip install ztensor[scipy] (the dense objects of the file read without it)", name="scipy") from e
    return scipy.sparse


# scipy and torch index with signed 64-bit integers.
_MAX_INDEX = np.iinfo(np.int64).max


def _fail(name: str, rule: str):
    return error("invalid_structure", f"object '{name}': {rule}")


def _as_index(name: str, role: str, arr: np.ndarray) -> np.ndarray:
    arr = np.asarray(arr)
    if arr.size == 0:  # [] arrives as float64
        return arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise error("invalid_structure", f"object '{name}' component '{role}': indices must be integers, got {arr.dtype}")
    if arr.size and arr.dtype.kind == "u" and arr.max() > _MAX_INDEX:
        raise _fail(name, f"component '{role}' holds an index above 2**63-1")
    if arr.size and arr.dtype.kind == "i" and arr.min() < 0:
        raise _fail(name, f"component '{role}' holds a negative index")
    return arr.astype(np.int64, copy=False)


def check_csr(name, shape, values, indices, indptr):
    """int64 (indices, indptr) after checking: 2-D shape, len(indptr) ==
    rows + 1, indptr[0] == 0, non-decreasing, indptr[-1] == nnz ==
    len(indices) == len(values), every column index < cols."""
    shape = tuple(int(d) for d in shape)
    if len(shape) != 2:
        raise _fail(name, f"sparse_csr needs a 2-D shape, got {list(shape)}")
    rows, cols = shape
    indices = _as_index(name, "indices", indices).reshape(-1)
    indptr = _as_index(name, "indptr", indptr).reshape(-1)
    nnz = len(values)
    if len(indptr) != rows + 1:
        raise _fail(name, f"component 'indptr' must have rows + 1 = {rows + 1} entries, has {len(indptr)}")
    if indptr[0] != 0:
        raise _fail(name, "component 'indptr' must start at 0")
    if rows and np.any(indptr[1:] < indptr[:-1]):
        raise _fail(name, "component 'indptr' must be non-decreasing")
    if indptr[-1] != nnz or len(indices) != nnz:
        raise _fail(name, f"indptr[-1] ({indptr[-1]}), len(indices) ({len(indices)}) and len(values) ({nnz}) must agree")
    if nnz and indices.max() >= cols:
        raise _fail(name, f"component 'indices' holds a column index >= {cols} columns")
    return indices, indptr


def check_coo(name, shape, values, coords):
    """int64 coords of shape (ndim, nnz) after checking: flat length ndim * nnz
    (Structure-of-Arrays) and every coordinate < its dimension."""
    shape = tuple(int(d) for d in shape)
    ndim = len(shape)
    nnz = len(values)
    coords = _as_index(name, "coords", coords)
    if coords.ndim == 2:
        if coords.shape != (ndim, nnz):
            raise _fail(name, f"coords must have shape (ndim, nnz) = ({ndim}, {nnz}), got {coords.shape}")
    else:
        coords = coords.reshape(-1)
        if len(coords) != ndim * nnz:
            raise _fail(name, f"component 'coords' must hold ndim * nnz = {ndim * nnz} entries, has {len(coords)}")
        coords = coords.reshape(ndim, nnz)
    if nnz and ndim:
        limits = np.asarray(shape, dtype=np.int64).reshape(ndim, 1)
        if np.any(coords >= limits):
            raise _fail(name, "component 'coords' holds a coordinate outside the shape")
    if ndim == 0 and nnz > 1:
        raise _fail(name, "a 0-d sparse_coo object holds at most one value")
    return coords
