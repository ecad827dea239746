"""safetensors-style helpers for numpy arrays.

    from ztensor.numpy import save_file, load_file
    save_file({"w": np.zeros((2, 3), np.float32)}, "model.zt", metadata={"k": "v"})
    tensors = load_file("model.zt")

load_file/load return read-only arrays that view the file mapping for raw
objects (no copy; like safetensors' numpy arrays they are not writable) and
fresh arrays for compressed ones; call .copy() to modify. Non-dense objects
come back as scipy.sparse arrays (scipy is the `ztensor[scipy]` extra, imported
only when a sparse object is read) or ztensor.QuantizedGroup.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Union

import numpy as np

from ._files import Compression, copies, save_to_bytes, write_tensors
from ._fsspec import open_any
from ._reader import Reader, load_all_numpy

__all__ = ["save_file", "load_file", "save", "load"]


def save_file(tensors: Dict[str, np.ndarray], filename: Union[str, os.PathLike],
              metadata: Optional[Dict[str, str]] = None, compression: Compression = None, *,
              level: Optional[int] = None, checksum: Optional[str] = None, effort: Optional[str] = None,
              durable: bool = True, max_shard_size: Optional[Union[int, str]] = None) -> None:
    """Save `tensors` to `filename`; each array is streamed to disk as it is
    added, so no whole-file buffer is built. `metadata` becomes the file
    attributes. `max_shard_size` (bytes, or "5GB"/"2GiB" as Hugging Face
    accepts) writes NAME-00001-of-0000N.zt ... and NAME.zt.index.json for
    `filename` NAME.zt, or the one file when everything fits.
    `compression` is None, "zstd" or "z4ai" (`level`; `effort`
    "fast"|"balanced"|"max" for z4ai), or as in ztensor 1.2.x True (zstd
    level 3) or an int (that zstd level). A `filename` ending in
    .safetensors gets a safetensors file (raw dense arrays only: no
    compression, checksum or shards), as the safetensors library writes."""
    write_tensors(tensors, filename, metadata, compression=compression, level=level, checksum=checksum, effort=effort,
                  durable=durable, max_shard_size=max_shard_size)


def save(tensors: Dict[str, np.ndarray], metadata: Optional[Dict[str, str]] = None, **kwargs) -> bytes:
    """The bytes of the .zt file save_file would write."""
    if kwargs.get("max_shard_size") is not None:  # the bytes of one file: a shard set has several
        raise TypeError("save() returns one file's bytes; max_shard_size applies to save_file")
    kwargs.setdefault("durable", False)  # a scratch file read straight back: no fsync
    return save_to_bytes(lambda path: save_file(tensors, path, metadata, **kwargs))


def load_file(filename: Union[str, os.PathLike], copy: bool = False, *, backend: str = "mmap",
              storage_options: Optional[Dict[str, Any]] = None, threads: int = 0) -> Dict[str, np.ndarray]:
    """Every object of `filename` (any format, path or URL ztensor.open
    reads, with its `storage_options`). copy=True (or safetensors'
    backend="pread") returns writable arrays of their own instead of
    read-only views. Compressed and remote arrays are fetched and decoded
    on `threads` threads at once (0 = all cores)."""
    copy = copies(backend, copy)
    with open_any(filename, storage_options=storage_options) as r:
        out = load_all_numpy(r, threads)
    if copy:
        out = {k: v.copy() if isinstance(v, np.ndarray) and not v.flags.writeable else v for k, v in out.items()}
    return out


def load(data: bytes, *, threads: int = 0) -> Dict[str, np.ndarray]:
    with Reader.from_bytes(data) as r:
        return load_all_numpy(r, threads)
