"""ztensor.open / ztensor.Reader: reading .zt files (v1.2, v1.1, v0.1) and,
through the same interface, safetensors, GGUF, .npy/.npz, PyTorch zip
checkpoints and ONNX models."""

from __future__ import annotations

import os
import warnings
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Union, overload

import numpy as np

from . import _core
from ._dtypes import STORAGE_TO_LEGACY_NAME, numpy_dtype, torch_dtype
from ._slice import TensorSlice
from ._sparse import check_coo, check_csr, scipy_sparse
from ._typing import NumpyArray, NumpyFramework, SparseArray, TorchFramework
from .errors import ZTensorError, error

if TYPE_CHECKING:
    import torch

_FRAMEWORKS = ("numpy", "torch")
# Every .zt file (v0.1 to v1.2) starts with these bytes.
_ZT_MAGIC = b"ZTEN"


class Shape(tuple):
    """An object's shape: a tuple (like numpy's) that also equals the list
    the manifest holds, so ``shape == [2, 3]`` and ``shape == (2, 3)`` agree."""

    __slots__ = ()

    def __eq__(self, other):
        if isinstance(other, list):
            return list(self) == other
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = tuple.__hash__


class ComponentInfo:
    """One component of an object as the manifest describes it."""

    __slots__ = ("role", "dtype", "type", "offset", "length", "encoding", "digest", "uncompressed_length")

    def __init__(self, role: str, d: dict):
        self.role = role
        self.dtype = d["dtype"]
        self.type = d["type"]
        self.offset = d["offset"]
        self.length = d["length"]
        self.encoding = d["encoding"]
        self.digest = d["digest"]
        self.uncompressed_length = d["uncompressed_length"]

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__ if k != "role"}

    def __repr__(self) -> str:
        t = f" type={self.type!r}" if self.type else ""
        return f"<Component {self.role!r} dtype={self.dtype!r}{t} encoding={self.encoding!r} length={self.length}>"


class ObjectInfo:
    """An object's manifest entry: name, format, shape, attributes, components."""

    __slots__ = ("name", "format", "shape", "attributes", "components")

    def __init__(self, name, format, shape, attributes, components):
        self.name = name
        self.format = format
        self.shape = Shape(shape)
        self.attributes = attributes if attributes is not None else {}
        self.components = {role: ComponentInfo(role, d) for role, d in components}

    @property
    def dtype(self) -> Optional[str]:
        """Storage dtype of the main component (data/values/packed_weight)."""
        c = self._main()
        return c.dtype if c else None

    @property
    def type(self) -> Optional[str]:
        c = self._main()
        return c.type if c else None

    def _main(self):
        for role in ("data", "values", "packed_weight"):
            if role in self.components:
                return self.components[role]
        return next(iter(self.components.values()), None)

    def __repr__(self) -> str:
        return f"<Object {self.name!r} format={self.format!r} shape={list(self.shape)} components={list(self.components)}>"


class TensorMetadata:
    """Per-tensor metadata in the shape the ztensor 1.2.x package returned."""

    __slots__ = ("name", "dtype", "shape", "format", "type", "components", "attributes")

    def __init__(self, info: ObjectInfo):
        self.name = info.name
        self.dtype = STORAGE_TO_LEGACY_NAME.get(info.dtype, info.dtype) if info.dtype else None
        self.shape = list(info.shape)
        self.format = info.format
        self.type = info.type
        self.components = {role: c.to_dict() for role, c in info.components.items()}
        self.attributes = info.attributes or None

    def __repr__(self) -> str:
        return f"<TensorMetadata name={self.name!r} shape={self.shape} dtype={self.dtype!r}>"


class QuantizedGroup:
    """A quantized_group object: its components (arrays) and parameters."""

    def __init__(self, name, shape, attributes, components):
        self.name = name
        self.shape = tuple(shape)
        self.attributes = dict(attributes or {})
        self.components = components
        self.bits = self.attributes.get("bits")
        self.group_size = self.attributes.get("group_size")
        self.packing = self.attributes.get("packing")

    @property
    def packed_weight(self):
        return self.components["packed_weight"]

    @property
    def scales(self):
        return self.components["scales"]

    @property
    def zeros(self):
        return self.components["zeros"]

    def __getitem__(self, role):
        return self.components[role]

    def __repr__(self) -> str:
        return (f"<QuantizedGroup {self.name!r} shape={list(self.shape)} bits={self.bits} "
                f"group_size={self.group_size} packing={self.packing!r}>")


class GgufQuantized:
    """A GGUF block-quantized tensor (object format ``gguf_quantized``, see
    docs/formats/gguf.md): the ggml blocks byte for byte plus their type.

    ``blocks`` is a read-only uint8 view of the file. :meth:`dequantize`
    decodes to float32 in ``shape`` (Q4_0..Q8_0, K-quants; other ggml types
    raise UnsupportedError). ``reader.read(name, dequantize=True)`` does the
    same in one step.
    """

    def __init__(self, reader: "Reader", info: "ObjectInfo", blocks):
        self._reader = reader
        self.name = info.name
        self.shape = tuple(info.shape)
        self.attributes = dict(info.attributes or {})
        self.blocks = blocks
        self.ggml_type = self.attributes.get("ggml_type")
        self.ggml_type_id = self.attributes.get("ggml_type_id")
        self.block_size = self.attributes.get("block_size")
        self.type_size = self.attributes.get("type_size")

    def dequantize(self, framework: str = "numpy"):
        return self._reader.read(self.name, framework, dequantize=True)

    def __repr__(self) -> str:
        return (f"<GgufQuantized {self.name!r} shape={list(self.shape)} ggml_type={self.ggml_type!r} "
                f"blocks={self.blocks.nbytes} bytes>")


# What read() returns for each framework: an array or tensor for dense (and,
# in torch, sparse) objects; scipy.sparse arrays for sparse ones in numpy.
NumpyObject = Union[NumpyArray, SparseArray, QuantizedGroup, GgufQuantized]
TorchObject = Union["torch.Tensor", QuantizedGroup, GgufQuantized]


def _typed(arr: np.ndarray, storage: str, logical: Optional[str]) -> np.ndarray:
    """View storage elements as their logical numpy type (bf16, fp8, complex)."""
    dt = numpy_dtype(storage, logical)
    if arr.dtype == dt:
        return arr
    if dt.itemsize != arr.dtype.itemsize:  # complex pairs
        arr = arr.reshape(-1)
    return arr.view(dt)


def _numpy_to_torch(arr: np.ndarray, dtype, shape, copy: bool = True):
    """torch tensor over (a copy of) a numpy storage array. numpy cannot hold
    every torch dtype, so the bytes go through uint8."""
    import torch

    if not arr.flags.writeable or copy:
        arr = np.array(arr, copy=True)
    t = torch.from_numpy(arr.reshape(-1).view(np.uint8))
    return t.view(dtype).reshape(tuple(shape))


def _open_path(path: str, verify: bool):
    """The core reader of a local path. A .zstn file (z4ai's container,
    which the core refuses) goes through z4ai; the core is asked first, so
    opening any other file costs no extra read of its magic."""
    from ._zstn import is_zstn_file, zstn_core_reader  # imports this module

    try:
        r = _core.Reader.open(path, verify)
    except ZTensorError:
        if not is_zstn_file(path):
            raise
    else:
        # ONNX has no magic: a file named .onnx goes to its parser whatever it holds.
        if r.format != "onnx" or not is_zstn_file(path):
            return r
        r.close()
    return zstn_core_reader(path, verify)


class Reader:
    """A validated, memory-mapped .zt file, or any other weight file
    ztensor reads (safetensors or a sharded ``*.index.json`` of safetensors
    or .zt shards, read lazily as one source; .zstn (z4ai-compressed
    safetensors, format "safetensors"); GGUF, .npy/.npz, PyTorch zip
    checkpoints, ONNX), detected by content; see :attr:`format`.

    ``ztensor.open(path)`` returns one (exported as ``ztensor.Source``);
    ``ztensor.Reader(path)`` is a subclass whose ``read`` keeps its ztensor
    1.2.x meaning (see ``ztensor._compat``). Use it as
    a context manager or call :meth:`close`; arrays already handed out stay
    valid after closing (they keep the mapping alive).
    """

    def __init__(self, path, *, verify: bool = False, _core_reader=None):
        if _core_reader is None:
            self._path = os.fspath(path)
            self._r = _open_path(self._path, verify)
        else:
            self._path = None
            self._r = _core_reader
        self._verify_on_read = verify
        self._attributes: Optional[Dict[str, Any]] = None
        self._store: Any = None  # an fsspec URL's StoreSource (_fsspec), for reopening that version elsewhere

    @classmethod
    def from_bytes(cls, data: bytes, *, verify: bool = False) -> "Reader":
        """A reader over a whole .zt file held in memory (copied once), or a
        safetensors file's bytes (what safetensors' ``save`` returns)."""
        if bytes(data[:len(_ZT_MAGIC)]) == _ZT_MAGIC:
            return cls(None, verify=verify, _core_reader=_core.Reader.from_bytes(bytes(data), verify))
        view = memoryview(data).cast("B")  # anything else is read as safetensors, whose parser judges it

        def read(offset: int, length: int) -> bytes:
            return bytes(view[offset:offset + length])

        return cls(None, verify=verify, _core_reader=_core.Reader.open_callback("bytes.safetensors", len(view), read,
                                                                                verify))

    # -- lifetime -----------------------------------------------------------
    def close(self) -> None:
        self._r.close()

    @property
    def closed(self) -> bool:
        return self._r.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- manifest -----------------------------------------------------------
    @property
    def path(self) -> Optional[str]:
        return self._path

    @property
    def version(self) -> str:
        """Spec version of the file ("1.2.0", or "1.1.0"/"0.1.0" for legacy
        files). Other formats are presented as v1.2 objects: "1.2.0"."""
        v = self._r.version
        return v if v or self._r.format == "zt" else "1.2.0"

    @property
    def format(self) -> str:
        """What the file is: "zt", "zt_index" (a set of .zt shards),
        "safetensors", "gguf", "npy", "npz", "pytorch" or "onnx"."""
        return self._r.format

    @property
    def file_size(self) -> int:
        """Bytes of the file read (.zt and safetensors, local or remote), summed
        over every shard of a sharded index; 0 for formats that do not tell."""
        return self._r.file_size

    @property
    def attributes(self) -> Dict[str, Any]:
        """File attributes (an empty dict when the file has none)."""
        if self._attributes is None:
            a = self._r.attributes()
            self._attributes = attrs = a if isinstance(a, dict) else {}
            return attrs
        return self._attributes

    def keys(self) -> List[str]:
        """Object names in file order."""
        return self._r.names()

    def __len__(self) -> int:
        return len(self._r)

    def __contains__(self, name) -> bool:
        return isinstance(name, str) and self._r.has(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._r.names())

    def object(self, name: str) -> ObjectInfo:
        """Manifest entry of one object. NotFoundError (a KeyError) if absent."""
        return ObjectInfo(*self._r.object_info(name))

    def objects(self) -> Dict[str, ObjectInfo]:
        return {n: self.object(n) for n in self._r.names()}

    # -- data ---------------------------------------------------------------
    def read_component(self, name: str, role: str) -> np.ndarray:
        """1-D array of one component's decoded little-endian storage elements.

        Raw components are read-only zero-copy views of the mapping.
        """
        arr = self._r.read_component(name, role)
        if arr.dtype == np.uint16:  # u16 or bf16 (numpy has no bfloat16)
            return _typed(arr, self.object(name).components[role].dtype, None)
        return arr

    @overload
    def read(self, name: str, framework: NumpyFramework = ..., *, copy: bool = ...,
             dequantize: bool = ...) -> NumpyObject: ...

    @overload
    def read(self, name: str, framework: TorchFramework, *, copy: bool = ..., dequantize: bool = ...) -> TorchObject: ...

    @overload
    def read(self, name: str, framework: str, *, copy: bool = ...,
             dequantize: bool = ...) -> Union[NumpyObject, TorchObject]: ...

    def read(self, name: str, framework: str = "numpy", *, copy: bool = False, dequantize: bool = False) -> Any:
        """One object in the chosen framework ("numpy" or "torch").

        dense -> array of its shape and logical type; sparse_csr/sparse_coo ->
        scipy.sparse csr_array/coo_array (numpy) or torch sparse tensors;
        quantized_group -> QuantizedGroup; gguf_quantized -> GgufQuantized,
        or with ``dequantize=True`` a float32 array/tensor of its shape
        (``dequantize`` leaves dense objects as they are). numpy arrays of
        raw objects are read-only views of the file unless copy=True; torch
        tensors are always fresh memory.
        """
        if framework == "numpy":
            # Dense objects (the common case) skip building ObjectInfo.
            arr = self._r.read_dense_one(name)
            if arr is not None:
                if type(arr) is tuple:
                    arr = _typed(*arr)
                return arr.copy() if copy else arr
        elif framework not in _FRAMEWORKS:
            raise error("invalid_argument", f"framework must be one of {_FRAMEWORKS}, not {framework!r}")
        info = self.object(name)
        if info.format == "gguf_quantized":
            if dequantize:
                arr = self._r.dequantize(name)
                if framework == "torch":
                    import torch
                    return torch.from_numpy(arr)
                return arr
            blocks = self._component(info, "blocks")
            if framework == "torch":
                import torch
                blocks = _numpy_to_torch(blocks, torch.uint8, blocks.shape)
            elif copy:
                blocks = blocks.copy()
            return GgufQuantized(self, info, blocks)
        if info.format == "dense":
            if framework == "torch":
                return self._dense_torch(info)
            arr = self._dense_numpy([name])[0]
            return arr.copy() if copy else arr
        if info.format == "sparse_csr":
            return self._csr(info, framework)
        if info.format == "sparse_coo":
            return self._coo(info, framework)
        if info.format == "quantized_group":
            return self._quantized(info, framework)
        raise error("unknown_format", f"object '{name}': format '{info.format}' is not supported by this reader")

    def _dense_numpy(self, names: List[str], threads: int = 0) -> List[np.ndarray]:
        arrays, fixups = self._r.read_dense(names, threads_arg(threads))
        for i, storage, logical in fixups:
            arrays[i] = _typed(arrays[i], storage, logical)
        return arrays

    def _dense_torch(self, info: ObjectInfo):
        c = info.components["data"]
        arr = self._r.read_component(info.name, "data")
        return _numpy_to_torch(arr, torch_dtype(c.dtype, c.type), info.shape, copy=not arr.flags.writeable)

    def _component(self, info: ObjectInfo, role: str) -> np.ndarray:
        if role not in info.components:
            raise error("missing_component", f"object '{info.name}' ({info.format}) has no component '{role}'")
        c = info.components[role]
        return _typed(self._r.read_component(info.name, role), c.dtype, c.type)

    def _csr(self, info: ObjectInfo, framework: str):
        sparse: Any = None if framework == "torch" else scipy_sparse(info.name)  # before any decoding
        values = self._component(info, "values")
        indices, indptr = check_csr(info.name, info.shape, values,
                                    self._component(info, "indices"), self._component(info, "indptr"))
        if framework == "torch":
            import torch
            c = info.components["values"]
            v = _numpy_to_torch(self._r.read_component(info.name, "values"), torch_dtype(c.dtype, c.type), (len(values),))
            with warnings.catch_warnings():  # "sparse CSR support is in beta"
                warnings.simplefilter("ignore", UserWarning)
                # check_sparse_csr validated the structure already
                return torch.sparse_csr_tensor(torch.from_numpy(np.array(indptr)), torch.from_numpy(np.array(indices)),
                                               v, size=info.shape, check_invariants=False)
        return sparse.csr_array((values, indices, indptr), shape=info.shape)

    def _coo(self, info: ObjectInfo, framework: str):
        sparse: Any = None if framework == "torch" else scipy_sparse(info.name)  # before any decoding
        values = self._component(info, "values")
        coords = check_coo(info.name, info.shape, values, self._component(info, "coords"))
        if framework == "torch":
            import torch
            c = info.components["values"]
            v = _numpy_to_torch(self._r.read_component(info.name, "values"), torch_dtype(c.dtype, c.type), (len(values),))
            return torch.sparse_coo_tensor(torch.from_numpy(np.array(coords)), v, size=info.shape,
                                           check_invariants=False)
        return sparse.coo_array((values, tuple(coords)), shape=info.shape)

    def _quantized(self, info: ObjectInfo, framework: str):
        comps = {}
        for role, c in info.components.items():
            arr = self._r.read_component(info.name, role)
            if framework == "torch":
                comps[role] = _numpy_to_torch(arr, torch_dtype(c.dtype, c.type), (-1,), copy=not arr.flags.writeable)
            else:
                comps[role] = _typed(arr, c.dtype, c.type)
        for role in ("packed_weight", "scales", "zeros"):
            if role not in comps:
                raise error("missing_component", f"object '{info.name}' (quantized_group) has no component '{role}'")
        return QuantizedGroup(info.name, info.shape, info.attributes, comps)

    def verify(self, name: Optional[str] = None) -> None:
        """Check every digest (or one object's). Raises DigestMismatchError.

        Other formats check what they carry (.npz and PyTorch CRC-32s); for
        them ``verify(name)`` checks the whole file."""
        if name is None:
            self._r.verify()
        else:
            self._r.verify_object(name)

    @overload
    def get_slice(self, name: str, framework: NumpyFramework = ...) -> TensorSlice[NumpyArray]: ...

    @overload
    def get_slice(self, name: str, framework: TorchFramework) -> TensorSlice[torch.Tensor]: ...

    @overload
    def get_slice(self, name: str, framework: str) -> TensorSlice[Any]: ...

    def get_slice(self, name: str, framework: str = "numpy") -> TensorSlice[Any]:
        """A :class:`~ztensor.TensorSlice` of one dense object, indexed lazily
        like safetensors' ``safe_open(...).get_slice(name)``: ``s[1000:1010]``
        of a raw object reads only those rows (a view of the file for numpy;
        for ``framework="torch"`` a view of a private copy-on-write mapping,
        or for other sources a tensor of just those rows); a compressed
        object is decoded whole, then sliced. Non-dense objects raise
        UnsupportedError."""
        if framework not in _FRAMEWORKS:
            raise error("invalid_argument", f"get_slice('{name}'): framework must be one of {_FRAMEWORKS}, "
                        f"not {framework!r}")
        return TensorSlice(self._r, name, framework == "torch")

    # -- ztensor 1.2.x / safetensors compatible surface ----------------------
    def __getitem__(self, name: str) -> NumpyObject:
        if not isinstance(name, str) or not self._r.has(name):
            raise KeyError(f"Tensor '{name}' not found")
        return self.read(name, "numpy")

    def get_tensor(self, name: str) -> NumpyObject:
        return self[name]

    def read_numpy(self, name, *, copy: bool = False):
        if isinstance(name, str):
            return self.read(name, "numpy", copy=copy)
        return {n: self.read(n, "numpy", copy=copy) for n in name}

    def read_torch(self, name, *, copy: bool = False, device: str = "cpu"):
        if isinstance(name, str):
            t = self.read(name, "torch")
            if device == "cpu":
                return t
            if isinstance(t, (QuantizedGroup, GgufQuantized)):
                raise error("unsupported", f"object '{name}' is not a tensor ({type(t).__name__}): it cannot be "
                                           f"moved to {device}")
            return t.to(device)
        return {n: self.read_torch(n, device=device) for n in name}

    def read_tensors(self, names, *, copy: bool = False) -> Dict[str, Any]:
        return self.read_numpy(list(names), copy=copy)

    def metadata(self, name=None):
        """No argument: file attributes as a dict (safetensors style). A name or
        a list of names: TensorMetadata (ztensor 1.2.x style)."""
        if name is None:
            return self.attributes
        if isinstance(name, str):
            return TensorMetadata(self.object(name))
        return [TensorMetadata(self.object(n)) for n in name]

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{len(self)} objects"
        if self.closed:
            return f"<ztensor.{type(self).__name__} {self._path!r} closed>"
        return f"<ztensor.{type(self).__name__} {self._path!r} {self.format} v{self.version} {state}>"


def open(path, *, verify: bool = False) -> Reader:  # noqa: A001 (mirrors builtins.open)
    """Open and validate a .zt file, a sharded set's ``NAME.zt.index.json``,
    or any other format ztensor reads (safetensors and its index, GGUF,
    .npy/.npz, PyTorch zip, ONNX), detected by content whatever the file is
    called. A compressed .zt component's digest is checked whenever it is
    read; ``verify=True`` also checks raw (zero-copy) components' digests
    when they are read (see also :meth:`Reader.verify`)."""
    return Reader(path, verify=verify)


# --- bulk loaders behind ztensor.numpy / ztensor.torch ----------------------

def threads_arg(threads: int) -> int:
    """A loader's ``threads=``: how many threads fetch and decode (0 = all cores, as z4ai's)."""
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise error("invalid_argument", f"threads must be an int >= 0 (0 = all cores), not {threads!r}")
    return threads


def load_all_numpy(reader: Reader, threads: int = 0) -> Dict[str, Any]:
    """Every object: dense ones in one extension call (zero-copy when raw,
    compressed ones decoded on `threads` threads at once)."""
    dense, other = reader._r.partition()
    out = dict(zip(dense, reader._dense_numpy(dense, threads)))
    for name in other:
        out[name] = reader.read(name, "numpy")
    if other:  # keep file order
        out = {n: out[n] for n in reader.keys()}
    return out


def _storage_to_torch(arr: np.ndarray, dtype, shape):
    """A decoded dense array as a torch tensor of `dtype` over the same memory
    (copied only when the array is a read-only view of the file); flat
    storage elements for an unknown compound logical type."""
    t = _numpy_to_torch(arr, dtype, (-1,), copy=not arr.flags.writeable)
    try:
        return t.view(tuple(shape))
    except RuntimeError:
        return t


def read_dense_torch(reader: Reader, entries: List[tuple], threads: int = 0) -> Dict[str, Any]:
    """Dense objects (their ``_r.index()`` entries) fetched and decoded in one
    batch on `threads` threads (0 = all cores), each a torch tensor over the
    memory it was decoded into."""
    import torch  # noqa: F401 (torch_dtype needs it loaded)

    if not entries:
        return {}
    decoded = reader._r.read_dense([e[0] for e in entries], threads_arg(threads))[0]
    return {name: _storage_to_torch(arr, torch_dtype(storage_dtype, logical), shape)
            for (name, _, shape, storage_dtype, logical, *_), arr in zip(entries, decoded)}


def load_all_torch(reader: Reader, device="cpu", threads: int = 0) -> Dict[str, Any]:
    """Every object as torch tensors. Raw dense objects are views of the
    reader's one private copy-on-write mapping of the file, like
    safetensors: no copy, writes never reach the file (but show in the
    reader's other torch views). It maps the inode the reader validated,
    not the path again, so a file replaced since the open cannot show its
    bytes under this manifest. The other dense objects (compressed, legacy
    big-endian, or any of a URL) are fetched and decoded in one batch on
    `threads` threads (0 = all cores), each straight into its tensor's memory."""
    index = reader._r.index()
    base = None
    if not reader._verify_on_read and any(e[7] for e in index):
        base = reader._r.torch_mapping()  # None for a .zt not in a local file
    mapped = [e for e in index if e[1] == "dense" and e[7] and base is not None]
    found = read_dense_torch(reader, [e for e in index if e[1] == "dense" and e[3] is not None
                                      and not (e[7] and base is not None)], threads)
    dtypes: Dict[Any, Any] = {}
    t: Any
    for name, _, shape, storage_dtype, logical, offset, length, _ in mapped:
        dt = dtypes.get((storage_dtype, logical))
        if dt is None:
            dt = dtypes[(storage_dtype, logical)] = torch_dtype(storage_dtype, logical)
        t = base[offset:offset + length].view(dt)  # type: ignore[index]
        try:
            t = t.view(shape)
        except RuntimeError:  # unknown compound logical type: flat storage elements
            pass
        found[name] = t
    out = {}
    for name, *_ in index:  # file order; sparse, quantized and GGUF objects one at a time
        t = found[name] if name in found else reader.read(name, "torch")
        out[name] = t if device == "cpu" else t.to(device)
    return out
