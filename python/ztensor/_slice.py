"""Reader.get_slice: safetensors-style lazy indexing of one dense object.

Cost model (README "Slices"): the first index picks a window of rows and
only those rows are read from a raw (uncompressed) component: a read-only
view of the mapped file locally, one HTTP range request (or fsspec read)
remotely; the rest of the index is applied to that window. Compressed
components (zstd, z4ai) have no random access: each index decodes the whole
component, then slices it. numpy results of basic indexing on raw data are
read-only views of the file (like ``Reader.read``); torch results are fresh
tensors holding only the selected elements.
"""

from __future__ import annotations

from typing import Any, Generic, List, TypeVar, cast

import numpy as np

from ._dtypes import torch_dtype
from ._files import is_url
from ._reader import _FRAMEWORKS, Reader, _numpy_to_torch, _typed
from .errors import error

# numpy arrays or torch tensors, per the framework the slice was made for.
T = TypeVar("T")

# (storage dtype, logical type) -> safetensors' dtype name (get_dtype()).
_SAFETENSORS_NAMES = {
    ("f64", None): "F64", ("f32", None): "F32", ("f16", None): "F16", ("bf16", None): "BF16",
    ("i64", None): "I64", ("i32", None): "I32", ("i16", None): "I16", ("i8", None): "I8",
    ("u64", None): "U64", ("u32", None): "U32", ("u16", None): "U16", ("u8", None): "U8",
    ("bool", None): "BOOL",
    ("u8", "f8_e4m3fn"): "F8_E4M3", ("u8", "f8_e5m2"): "F8_E5M2",
    ("f32", "complex64"): "C64",
}


def safetensors_dtype_name(storage: str, logical) -> str:
    """safetensors' name for an element type; types safetensors has no name
    for (fnuz fp8, complex128, unknown logical types) get ours, upper case."""
    name = _SAFETENSORS_NAMES.get((storage, logical))
    return name if name is not None else (logical or storage).upper()


def _row_window(key, shape):
    """(lo, hi, key') when ``key`` starts with an int or a slice of axis 0:
    rows lo..hi-1 hold everything it selects, and ``key'`` selects the same
    from those rows. None otherwise (Ellipsis, None, arrays, a 0-d tensor);
    an out-of-range int is left to numpy's IndexError."""
    if not shape:
        return None
    rest = key if isinstance(key, tuple) else (key,)
    if not rest:
        return None
    first, rows = rest[0], shape[0]
    if isinstance(first, slice):
        picked = range(*first.indices(rows))
        if not picked:
            return 0, 0, (slice(0, 0),) + rest[1:]
        lo, hi = min(picked[0], picked[-1]), max(picked[0], picked[-1]) + 1
        stop = picked[-1] - lo + (1 if picked.step > 0 else -1)
        return lo, hi, (slice(picked[0] - lo, stop if stop >= 0 else None, picked.step),) + rest[1:]
    if isinstance(first, (int, np.integer)) and not isinstance(first, bool):
        i = int(first) + rows if first < 0 else int(first)
        if not 0 <= i < rows:
            return None
        return i, i + 1, (0,) + rest[1:]
    return None


class TensorSlice(Generic[T]):
    """One dense object, indexed lazily: ``s[a:b]``, ``s[a:b, c:d]``,
    ``s[..., 3]``, ``s[i]``, negative indices and steps, with numpy's rules
    and errors (IndexError for an out-of-range index or too many indices).

    Made by :meth:`ztensor.Reader.get_slice`; mirrors safetensors'
    ``safe_open(...).get_slice(name)`` (``get_shape``, ``get_dtype``).
    """

    __slots__ = ("_reader", "_name", "_shape", "_storage", "_logical", "_framework", "_ranged")

    def __init__(self, reader: Reader, name: str, framework: str):
        if framework not in _FRAMEWORKS:
            raise error("invalid_argument", f"get_slice('{name}'): framework must be one of {_FRAMEWORKS}, "
                        f"not {framework!r}")
        meta = reader._r.dense_meta(name)  # NotFoundError when absent
        if meta is None:
            raise error("unsupported", f"object '{name}' has format '{reader.object(name).format}': get_slice "
                        f"takes dense objects only; use read()")
        self._reader = reader
        self._name = name
        self._shape, self._storage, self._logical = meta
        self._framework = framework
        # A local file is mapped: slicing the whole view touches only the
        # selected pages and costs less Python than cutting a row window.
        self._ranged = reader.path is None or is_url(reader.path)

    def get_shape(self) -> List[int]:
        return list(self._shape)

    def get_dtype(self) -> str:
        return safetensors_dtype_name(self._storage, self._logical)

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor slice")
        return self._shape[0]

    def __getitem__(self, key: Any) -> T:
        window = _row_window(key, self._shape) if self._ranged else None
        full = None
        if window is not None:
            lo, hi, key = window
            full = self._reader._r.read_dense_rows(self._name, lo, hi)
        if full is None:  # the index does not start with rows: read it all
            full = self._reader._r.read_dense_one(self._name)
        if type(full) is tuple:  # bf16/fp8: storage ints viewed as ml_dtypes
            full = _typed(*full)
        part = full[key]
        if self._framework == "numpy":
            return cast(T, part)
        # One copy of the selected elements only; C order so torch can view
        # the bytes (numpy cannot hold every torch dtype, see _numpy_to_torch).
        arr = np.array(part, order="C", copy=True)
        return cast(T, _numpy_to_torch(arr, torch_dtype(self._storage, self._logical), arr.shape, copy=False))

    def __repr__(self) -> str:
        return (f"<ztensor.TensorSlice {self._name!r} shape={self.get_shape()} "
                f"dtype={self.get_dtype()} {self._framework}>")
