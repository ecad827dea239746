"""ztensor.Writer: writing .zt v1.2 files, one object streamed at a time."""

from __future__ import annotations

import os
from typing import Any, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._dtypes import (
    _NUMPY_TO_ZT,
    LOGICAL_TO_NUMPY,
    as_bytes,
    as_little_endian,
    zt_from_numpy,
    zt_from_torch,
)
from ._sparse import check_coo, check_csr
from .errors import error

# "z4ai" works once the codec has registered its blob encoding.
_COMPRESSIONS = (None, "raw", "zstd", "z4ai")
_CHECKSUMS = (None, "none", "sha256", "crc32c")
DEFAULT_ZSTD_LEVEL = 3


def _is_torch(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "dtype") and hasattr(x, "layout")


def _is_scipy_sparse(x) -> bool:
    return type(x).__module__.startswith("scipy.sparse")


def _component(array, logical: Optional[str] = None) -> Tuple[str, str, Any, Tuple[int, ...]]:
    """(storage dtype, logical type, flat uint8 bytes, shape) of an array or tensor."""
    if _is_torch(array):
        import torch

        t = array.detach()
        if t.layout != torch.strided:
            raise error("invalid_argument", "sparse torch tensors go through add() or add_sparse_*()")
        if t.device.type != "cpu":
            t = t.cpu()
        t = t.resolve_conj().resolve_neg().contiguous()
        storage, ltype = zt_from_torch(t.dtype)
        shape = tuple(t.shape)
        flat = t.reshape(-1)
        if flat.numel() <= 1:  # a size-1 "contiguous" tensor may keep any stride
            flat = flat.as_strided((flat.numel(),), (1,))
        data = flat.view(torch.uint8)
    else:
        arr = as_little_endian(np.asarray(array))
        storage, ltype = zt_from_numpy(arr.dtype)
        shape = arr.shape
        data = as_bytes(arr)
    if logical is not None:
        entry = LOGICAL_TO_NUMPY.get(logical)
        if ltype is None and entry is not None and entry[1] != storage:
            raise error("invalid_argument", f"logical type '{logical}' needs storage dtype '{entry[1]}', not '{storage}'")
        if ltype is not None and ltype != logical:
            raise error("invalid_argument", f"array already has logical type '{ltype}', not '{logical}'")
        ltype = logical
    return storage, ltype or "", data, shape


_EFFORTS = (None, "fast", "balanced", "max")
# The CLI's older name for the fast tier, accepted everywhere as an alias.
EFFORT_ALIASES = {"default": "fast"}


def effort_name(effort: Optional[str]) -> Optional[str]:
    """effort=None|"fast"|"balanced"|"max" ("default" = "fast"), checked."""
    effort = EFFORT_ALIASES.get(effort, effort) if isinstance(effort, str) else effort
    if effort not in _EFFORTS:
        raise error("invalid_argument", f"effort must be None, 'fast', 'balanced' or 'max' ('default' = 'fast'), "
                                        f"not {effort!r}")
    return effort


def _encoding(compression, level, compress, effort=None) -> Tuple[str, int]:
    # ztensor 1.2.x spelled it compress=False/True/<level>, and its
    # save_file compression=False/True/<level>.
    if isinstance(compression, (bool, int)) and not isinstance(compression, str):
        compress, compression = compression, None
    if compress is not None and compression is None:
        if compress is True:
            compression = "zstd"
        elif compress is not False and isinstance(compress, int) and compress > 0:
            compression, level = "zstd", compress
    if compression not in _COMPRESSIONS:
        raise error("invalid_argument", f"compression must be None, 'zstd' or 'z4ai', not {compression!r}")
    effort = effort_name(effort)
    if effort is not None and compression != "z4ai":
        raise error("invalid_argument", "effort applies only to compression='z4ai'")
    if compression in (None, "raw"):
        return "raw", DEFAULT_ZSTD_LEVEL
    if compression == "z4ai":
        # The encoding string carries the effort tier to the C++ writer.
        enc = "z4ai" if effort in (None, "fast") else f"z4ai:{effort}"
        return enc, -1 if level is None else int(level)
    return compression, DEFAULT_ZSTD_LEVEL if level is None else int(level)


def _shard_size(max_shard_size) -> int:
    """Bytes per shard from an int or a Hugging Face size string ("5GB",
    "500MB" powers of 10; "2GiB" powers of 2); None or 0 = one file."""
    if max_shard_size is None:
        return 0
    if isinstance(max_shard_size, bool) or not isinstance(max_shard_size, (int, str)):
        raise TypeError(f"max_shard_size must be an int or a str such as '5GB', not {type(max_shard_size).__name__}")
    return _core.parse_byte_size(str(max_shard_size))


def _checksum(checksum) -> str:
    if checksum not in _CHECKSUMS:
        raise error("invalid_argument", f"checksum must be None, 'sha256' or 'crc32c', not {checksum!r}")
    return "" if checksum in (None, "none") else checksum


class Writer:
    """Writes a .zt file. Objects go to a temporary file beside ``path`` as
    they are added; :meth:`finish` (or leaving the ``with`` block normally)
    publishes it atomically. On an exception inside ``with``, or :meth:`abort`,
    nothing appears at ``path``.

    ``durable=True`` (the default) fsyncs the file before the rename, so a
    published file survives a power loss. ``durable=False`` keeps the atomic
    rename but leaves the data in the page cache for the OS to write later,
    as safetensors and ``torch.save`` do: faster, safe against a crash of the
    program, not of the machine.

    ``max_shard_size`` (bytes, or "5GB"/"500MB"/"2GiB" as Hugging Face
    accepts) writes ``NAME-00001-of-0000N.zt`` ... plus ``NAME.zt.index.json``
    for ``path`` NAME.zt, by transformers' rule (objects in order, never
    split); one file at ``path`` when everything fits. The whole set is
    published atomically by :meth:`finish`; :attr:`files` lists it.
    """

    def __init__(self, path, *, attributes: Optional[Mapping[str, Any]] = None, durable: bool = True,
                 max_shard_size=None):
        self._path = os.fspath(path)
        self._w = _core.Writer(self._path, dict(attributes) if attributes is not None else None, bool(durable),
                               _shard_size(max_shard_size))
        self._size: Optional[int] = None
        self._files: List[str] = []

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.abort()
        elif not self._w.closed:
            self.finish()

    def __del__(self):
        w = getattr(self, "_w", None)
        if w is not None and not w.closed:
            w.abort()

    @property
    def path(self) -> str:
        return self._path

    def __len__(self) -> int:
        return self._w.object_count

    def _add(self, name, shape, format, attributes, components, compression, level, checksum, compress=None,
             effort=None):
        encoding, lvl = _encoding(compression, level, compress, effort)
        digest = _checksum(checksum)
        comps = [(role, storage, ltype, data, encoding, lvl, digest) for role, (storage, ltype, data, _) in components]
        self._w.add(name, [int(d) for d in shape], format, attributes, comps)

    def add(self, name: str, array, *, compression: Optional[str] = None, level: Optional[int] = None,
            checksum: Optional[str] = None, attributes: Optional[Mapping[str, Any]] = None, compress=None,
            effort: Optional[str] = None) -> None:
        """Add a dense object from a numpy array or torch tensor (any supported
        dtype; bf16/fp8 via ml_dtypes or torch; complex). scipy.sparse arrays
        and sparse torch tensors are stored as sparse_csr / sparse_coo.
        `compress` (False/True/level) is the ztensor 1.2.x spelling.
        compression="z4ai" takes effort=None|"fast"|"balanced"|"max"."""
        if compression is None and compress is None and checksum is None and effort is None:
            encoding, lvl, digest = "raw", DEFAULT_ZSTD_LEVEL, ""
        else:
            encoding, lvl = _encoding(compression, level, compress, effort)
            digest = _checksum(checksum)
        if type(array) is np.ndarray and array.flags.c_contiguous:
            # Fast path (many small tensors): the array itself is the buffer.
            zt = _NUMPY_TO_ZT.get(array.dtype)
            if zt is not None:
                self._w.add_dense(name, array.shape, zt[0], zt[1] or "", array, encoding, lvl, digest, attributes)
                return
        if _is_scipy_sparse(array):
            return self._add_scipy(name, array, compression=compression, level=level, checksum=checksum, effort=effort,
                                   attributes=attributes)
        if _is_torch(array) and array.layout != __import__("torch").strided:
            return self._add_torch_sparse(name, array, compression=compression, level=level, checksum=checksum, effort=effort,
                                          attributes=attributes)
        storage, ltype, data, shape = _component(array)
        self._w.add_dense(name, shape, storage, ltype, data, encoding, lvl, digest, attributes)

    # ztensor 1.2.x names
    def write_numpy(self, name, data, *, compress=None, checksum="none"):
        self.add(name, data, compress=compress, checksum=checksum)

    write_torch = write_numpy

    def add_sparse_csr(self, name: str, values, indices, indptr, shape: Sequence[int], *,
                       compression=None, level=None, checksum=None, attributes=None, effort=None) -> None:
        """A sparse_csr object; indices and indptr are stored as u64."""
        v = _component(values)
        if len(v[3]) != 1:
            raise error("invalid_argument", f"object '{name}': values must be 1-D")
        idx, ptr = check_csr(name, shape, range(v[3][0]), _index_array(indices), _index_array(indptr))
        comps = [("values", v), ("indices", _component(idx.astype("<u8"))), ("indptr", _component(ptr.astype("<u8")))]
        self._add(name, shape, "sparse_csr", attributes, comps, compression, level, checksum, effort=effort)

    def add_sparse_coo(self, name: str, values, coords, shape: Sequence[int], *,
                       compression=None, level=None, checksum=None, attributes=None, effort=None) -> None:
        """A sparse_coo object; coords (ndim, nnz) or flat SoA, stored as u64."""
        v = _component(values)
        if len(v[3]) != 1:
            raise error("invalid_argument", f"object '{name}': values must be 1-D")
        co = check_coo(name, shape, range(v[3][0]), _index_array(coords))
        comps = [("values", v), ("coords", _component(co.reshape(-1).astype("<u8")))]
        self._add(name, shape, "sparse_coo", attributes, comps, compression, level, checksum, effort=effort)

    def add_quantized_group(self, name: str, packed_weight, scales, zeros, shape: Sequence[int], *,
                            bits: int, group_size: int, packing: str,
                            compression=None, level=None, checksum=None, attributes=None, effort=None) -> None:
        """A quantized_group object (e.g. GPTQ 4-bit: packing="8_per_i32")."""
        attrs = dict(attributes or {})
        attrs.update(bits=int(bits), group_size=int(group_size), packing=str(packing))
        comps = [("packed_weight", _component(packed_weight)), ("scales", _component(scales)),
                 ("zeros", _component(zeros))]
        self._add(name, shape, "quantized_group", attrs, comps, compression, level, checksum, effort=effort)

    def add_object(self, name: str, shape: Sequence[int], format: str, components: Mapping[str, Any], *,
                   attributes=None, compression=None, level=None, checksum=None, effort=None) -> None:
        """Any object: components maps role -> array, or role -> (array, logical_type)."""
        comps = []
        for role, value in components.items():
            if isinstance(value, tuple):
                array, logical = value
                comps.append((role, _component(array, logical)))
            else:
                comps.append((role, _component(value)))
        self._add(name, shape, format, attributes, comps, compression, level, checksum, effort=effort)

    def _add_scipy(self, name, m, **kw):
        if m.format == "csr":
            m = m.copy()
            m.sort_indices()
            return self.add_sparse_csr(name, m.data, m.indices, m.indptr, m.shape, **kw)
        coo = m.tocoo()
        coords = np.stack([np.asarray(c) for c in coo.coords]) if hasattr(coo, "coords") else np.stack([coo.row, coo.col])
        return self.add_sparse_coo(name, coo.data, coords, coo.shape, **kw)

    def _add_torch_sparse(self, name, t, **kw):
        import torch

        t = t.detach().cpu()
        if t.layout == torch.sparse_csr:
            return self.add_sparse_csr(name, t.values(), t.col_indices().numpy(), t.crow_indices().numpy(),
                                       tuple(t.shape), **kw)
        if t.layout == torch.sparse_coo:
            t = t.coalesce()
            return self.add_sparse_coo(name, t.values(), t.indices().numpy(), tuple(t.shape), **kw)
        raise error("unsupported", f"object '{name}': torch layout {t.layout} is not supported")

    def finish(self) -> int:
        """Write manifest and footer and publish the file (or the set of
        shards and its index). Returns the bytes written."""
        self._files = list(self._w.finish())
        size = sum(os.path.getsize(f) for f in self._files)
        self._size = size
        return size

    @property
    def files(self) -> list:
        """The files :meth:`finish` published: ``path``, or with
        ``max_shard_size`` the shards in order followed by the index."""
        return list(self._files)

    def abort(self) -> None:
        """Drop everything written; the destination is left untouched."""
        self._w.abort()


def _index_array(x) -> np.ndarray:
    if _is_torch(x):
        x = x.detach().cpu().numpy()
    return np.asarray(x)
