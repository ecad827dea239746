"""Reader.get_slice: safetensors-style lazy indexing of one dense object.

Cost model (README "Slices"): an index of ints, slices, Ellipsis and None
is worked out in the extension (``_core.TensorSlice``), which reads only the
bytes it selects from a raw (uncompressed) component: a read-only view of
the mapped file locally, one HTTP range request (or fsspec read) remotely.
Compressed components (zstd, z4ai) have no random access: each index
decodes the whole component, then slices it. Other indices (arrays, lists,
bools) are numpy's, applied to the whole object. numpy results of basic
indexing on raw data are read-only views of the file (like ``Reader.read``).
torch results of basic indexing (no negative step) on a raw component of a
local .zt file are views of the reader's one copy-on-write mapping of the
file it opened, as safetensors' are of its safe_open's: writable, writes
never reach the file, and the reader's torch views share them. Other torch
results are fresh tensors holding only the selected elements.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, List, TypeVar

from . import _core

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


class TensorSlice(_core.TensorSlice, Generic[T]):
    """One dense object, indexed lazily: ``s[a:b]``, ``s[a:b, c:d]``,
    ``s[..., 3]``, ``s[i]``, negative indices and steps, with numpy's rules
    and errors (IndexError for an out-of-range index or too many indices).

    Made by :meth:`ztensor.Reader.get_slice`; mirrors safetensors'
    ``safe_open(...).get_slice(name)`` (``get_shape``, ``get_dtype``).
    Indexing is the extension's ``__getitem__``: one call per index.
    """

    __slots__ = ()

    if TYPE_CHECKING:
        def __getitem__(self, key: Any) -> T: ...

    def get_shape(self) -> List[int]:
        return list(self.shape)

    def get_dtype(self) -> str:
        return safetensors_dtype_name(self.storage, self.logical)

    def __len__(self) -> int:
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor slice")
        return shape[0]

    def __repr__(self) -> str:
        return (f"<ztensor.TensorSlice {self.name!r} shape={self.get_shape()} "
                f"dtype={self.get_dtype()} {'torch' if self.torch else 'numpy'}>")
