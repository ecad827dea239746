"""The ztensor 1.2.x Python surface on top of this implementation.

Code written for the 1.2.x package keeps running unchanged: ``ztensor.Reader``
whose ``read`` returns :class:`Tensor` objects (``.numpy()``/``.torch()``),
``read_into``, ``Writer.write`` / ``Writer.append``, the module functions
``remove_tensors`` / ``replace_tensor`` and the ``DTYPE_*`` tables.
``ztensor.open`` is the current API and returns a plain :class:`Source`, whose
``read`` returns arrays.

1.2.x patched files in place; here ``append``, ``remove_tensors`` and
``replace_tensor`` rewrite the file beside itself and rename it over the old
one, so a crash leaves either the old or the new file, never a torn one, and
digests stay true. The cost is one pass over the file.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Literal, Mapping, Optional, Tuple, Union, overload

import numpy as np

from ._dtypes import STORAGE_TO_LEGACY_NAME, STORAGE_TO_NUMPY
from ._reader import Reader as Source
from ._reader import NumpyObject, TorchObject, _typed
from ._typing import NumpyFramework, TorchFramework
from ._writer import Writer as _Writer
from .errors import error

# 1.2.x named dtypes by numpy's names ("float32"), not storage names ("f32").
DTYPE_NP_TO_ZT: Dict[np.dtype, str] = {STORAGE_TO_NUMPY[s]: n for s, n in STORAGE_TO_LEGACY_NAME.items()}
DTYPE_ZT_TO_NP: Dict[str, np.dtype] = {n: dt for dt, n in DTYPE_NP_TO_ZT.items()}

_PRIMARY = {"dense": "data", "sparse_csr": "values", "sparse_coo": "values"}


def torch_tables():
    """(DTYPE_TORCH_TO_ZT, DTYPE_ZT_TO_TORCH), built when first asked for so
    that importing ztensor does not import torch."""
    import torch

    names = ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")
    to_zt = {getattr(torch, n): n for n in names}
    return to_zt, {v: k for k, v in to_zt.items()}


class Tensor:
    """One object with all its components, as the 1.2.x ``Reader.read`` gave it
    and ``Writer.write`` takes it. Dense: ``Tensor({"data": array})``; other
    formats need ``shape`` and ``format``, e.g.
    ``Tensor({"values": v, "indices": i, "indptr": p}, shape=[4, 4], format="sparse_csr")``.
    """

    __slots__ = ("shape", "dtype", "type", "format", "components", "attributes")

    def __init__(self, components: Mapping[str, Any], *, shape=None, dtype=None, format: str = "dense",
                 type: Optional[str] = None, attributes: Optional[Mapping[str, Any]] = None):
        if not isinstance(components, Mapping):
            raise TypeError("components must be a dict of role -> array")
        primary = _PRIMARY.get(format) or next(iter(components), "data")
        if shape is not None:
            self.shape = [int(d) for d in shape]
        elif format == "dense" and "data" in components:
            self.shape = list(np.shape(components["data"]))
        else:
            raise error("invalid_argument", f"a '{format}' Tensor needs shape= (only dense shapes come from 'data')")
        if dtype is None:
            if primary not in components:
                raise error("invalid_argument", f"cannot infer dtype: the Tensor has no '{primary}' component")
            dtype = components[primary].dtype
        self.dtype = str(dtype)
        self.type = type
        self.format = format
        self.components = dict(components)
        self.attributes = dict(attributes) if attributes is not None else None

    def numpy(self) -> np.ndarray:
        """The dense array (dense tensors only)."""
        if self.format != "dense" or "data" not in self.components:
            raise error("unsupported", f"numpy() needs a dense Tensor with a 'data' component, not '{self.format}'")
        return self.components["data"]

    def torch(self, *, device="cpu"):
        """The dense tensor as a torch.Tensor on ``device``."""
        import torch

        from ._reader import _numpy_to_torch
        from ._dtypes import torch_dtype, zt_from_numpy

        arr = self.numpy()
        storage, logical = zt_from_numpy(arr.dtype)
        t = _numpy_to_torch(arr, torch_dtype(storage, logical), arr.shape, copy=not arr.flags.writeable)
        return t if str(device) == "cpu" else t.to(device)

    def __repr__(self) -> str:
        return f"<ztensor.Tensor shape={self.shape} dtype='{self.dtype}' format='{self.format}'>"


class Reader(Source):
    """``ztensor.Reader(path)``: a :class:`Source` with the 1.2.x meaning of
    ``read``: ``read(name)`` is a :class:`Tensor`, ``read([names])`` a dict of
    them. ``read(name, "numpy"|"torch")`` (a framework given) is the current
    API's array or tensor."""

    # 1.2.x's read(name) -> Tensor differs from Source.read(name) -> array on
    # purpose: this class keeps the old meaning (hence the ignored override).
    @overload  # type: ignore[override]
    def read(self, name: str, framework: None = None, *, copy: bool = ...,
             dequantize: Literal[False] = ...) -> Tensor: ...

    @overload
    def read(self, name: Union[List[str], Tuple[str, ...]], framework: None = None, *, copy: bool = ...,
             dequantize: Literal[False] = ...) -> Dict[str, Tensor]: ...

    @overload
    def read(self, name: str, framework: NumpyFramework, *, copy: bool = ..., dequantize: bool = ...) -> NumpyObject: ...

    @overload
    def read(self, name: str, framework: TorchFramework, *, copy: bool = ..., dequantize: bool = ...) -> TorchObject: ...

    @overload
    def read(self, name: str, framework: None = None, *, copy: bool = ..., dequantize: Literal[True]) -> NumpyObject: ...

    def read(self, name: Union[str, List[str], Tuple[str, ...]], framework: Optional[str] = None, *,
             copy: bool = False, dequantize: bool = False) -> Any:
        if framework is not None or dequantize:
            if not isinstance(name, str):
                raise TypeError(f"read(name, framework) takes one name (a str), not {type(name).__name__}")
            return super().read(name, framework or "numpy", copy=copy, dequantize=dequantize)
        if isinstance(name, str):
            return self._tensor(name, copy)
        if isinstance(name, (list, tuple)):
            return {n: self._tensor(n, copy) for n in name}
        raise TypeError(f"name must be a str or a list of str, not {type(name).__name__}")

    def _tensor(self, name: str, copy: bool) -> Tensor:
        info = self.object(name)
        comps = {}
        for role, c in info.components.items():
            if role == "data" and info.format == "dense":
                comps[role] = super().read(name, copy=copy)
            else:
                arr = _typed(self._r.read_component(name, role), c.dtype, c.type)
                comps[role] = arr.copy() if copy else arr
        main = info._main()
        dtype = STORAGE_TO_LEGACY_NAME.get(main.dtype, main.dtype) if main else "unknown"
        return Tensor(comps, shape=info.shape, format=info.format, type=(main.type or None) if main else None,
                      dtype=dtype, attributes=info.attributes or None)

    def read_tensor(self, name: str) -> NumpyObject:
        """One dense object as a numpy array (1.2 docs' name for ``reader[name]``)."""
        return super().read(name, "numpy")

    def load_numpy(self, *, copy: bool = False) -> Dict[str, Any]:
        """Every object as numpy arrays."""
        return {n: super(Reader, self).read(n, "numpy", copy=copy) for n in self.keys()}

    def load_torch(self, *, device="cpu", copy: bool = False) -> Dict[str, Any]:
        """Every object as torch tensors on ``device`` (always fresh memory here)."""
        return self.read_torch(self.keys(), device=device)

    def read_into(self, name, dst=None) -> None:
        """Copy one dense object into a preallocated numpy array or torch
        tensor (any device), or with a dict {name: dst} several. numpy
        casting follows ``np.copyto``; a shape that cannot broadcast raises."""
        if isinstance(name, Mapping):
            for n, d in name.items():
                self.read_into(n, d)
            return
        if dst is None:
            raise TypeError("read_into(name, dst): dst is required when name is a str")
        src: Any = super().read(name, "numpy" if isinstance(dst, np.ndarray) else "torch")
        if isinstance(dst, np.ndarray):
            np.copyto(dst, src)
        else:
            dst.copy_(src)


class Writer(_Writer):
    """``ztensor.Writer``: the current writer plus the 1.2.x ``write`` and
    ``append``."""

    def write(self, name: str, data: Tensor, *, compress=None, checksum: Optional[str] = "none") -> None:
        """Write a :class:`Tensor` (any format) under ``name``."""
        if not isinstance(data, Tensor):
            raise TypeError(f"Writer.write takes a ztensor.Tensor, not {type(data).__name__} (use add())")
        if data.format == "dense" and data.type is None and set(data.components) == {"data"}:
            self.add(name, np.asarray(data.components["data"]).reshape(data.shape), compress=compress,
                     checksum=checksum, attributes=data.attributes)
            return
        comps = {role: (arr, data.type) if data.type and role == _PRIMARY.get(data.format) else arr
                 for role, arr in data.components.items()}
        self.add_object(name, data.shape, data.format, comps, attributes=data.attributes,
                        compression=_legacy_compression(compress), level=_legacy_level(compress), checksum=checksum)

    @classmethod
    def append(cls, path) -> "Writer":
        """A writer that starts with every object of the existing file at
        ``path`` (encodings, digests and attributes kept); objects added
        after it, and :meth:`finish` publishes the result at ``path``."""
        path = os.fspath(path)
        with Source(path) as src:
            w = cls(path, attributes=src.attributes or None)
            try:
                copy_objects(src, w, skip=())
            except BaseException:
                w.abort()
                raise
        return w


def _legacy_compression(compress) -> Optional[str]:
    return "zstd" if compress is True or (type(compress) is int and compress > 0) else None


def _legacy_level(compress) -> Optional[int]:
    return compress if type(compress) is int and compress > 0 else None


def copy_objects(src: Source, dst: _Writer, skip=(), replace: Optional[Mapping[str, Any]] = None) -> None:
    """Add every object of ``src`` to ``dst`` (file order) except ``skip``,
    one component at a time, keeping each component's encoding and digest
    algorithm. ``replace`` maps a dense object's name to new bytes for its
    data component."""
    replace = replace or {}
    for name in src.keys():
        if name in skip:
            continue
        info = src.object(name)
        comps = []
        for role, c in info.components.items():
            if name in replace and role == "data":
                raw = replace[name]
            else:
                raw = src._r.read_component(name, role)
            data = np.ascontiguousarray(raw).reshape(-1).view(np.uint8)
            encoding = c.encoding if c.encoding != "raw" else "raw"
            digest = c.digest.split(":", 1)[0] if c.digest else ""
            comps.append((role, c.dtype, c.type or "", data, encoding, -1 if encoding.startswith("z4ai") else 3, digest))
        dst._w.add(name, [int(d) for d in info.shape], info.format, info.attributes or None, comps)


def remove_tensors(input, output, names: List[str]) -> None:
    """Write ``input`` without the objects ``names`` to ``output`` (which may
    be ``input``). A name the file does not hold raises NotFoundError (a
    KeyError) and writes nothing."""
    with Source(input) as src:
        for n in names:
            if n not in src:
                raise error("not_found", f"remove_tensors: '{os.fspath(input)}' has no object '{n}'")
        with _Writer(output, attributes=src.attributes or None) as w:
            copy_objects(src, w, skip=set(names))


def replace_tensor(path, name: str, data) -> None:
    """Replace the bytes of dense raw object ``name`` in ``path`` by those of
    ``data`` (a numpy array or torch tensor of the same byte length; shape
    and dtype of the object stay as stored, as in 1.2.x)."""
    from ._writer import _component

    path = os.fspath(path)
    with Source(path) as src:
        info = src.object(name)
        c = info.components.get("data")
        if info.format != "dense" or c is None:
            raise error("unsupported", f"replace_tensor: object '{name}' is {info.format}, only dense objects")
        if c.encoding != "raw":
            raise error("unsupported", f"replace_tensor: object '{name}' is stored '{c.encoding}'; "
                                       "only raw (uncompressed) objects can be replaced")
        new = _component(data)[2]
        expected = int(c.length)
        if new.nbytes != expected:
            raise error("invalid_argument", f"replace_tensor: object '{name}' holds {expected} bytes; "
                                            f"the new data has {new.nbytes}")
        with _Writer(path, attributes=src.attributes or None) as w:
            copy_objects(src, w, replace={name: np.asarray(new)})

