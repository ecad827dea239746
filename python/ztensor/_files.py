"""Shared pieces of ztensor.numpy / ztensor.torch."""

from __future__ import annotations

import os
import tempfile
from typing import Any, Dict, Mapping, Optional, Union

from .errors import error

# save_file's compression=: None/"raw", "zstd" or "z4ai"; or as ztensor 1.2.x
# had it, False (raw), True (zstd level 3) or an int (that zstd level).
Compression = Union[None, str, bool, int]


def is_url(path) -> bool:
    """Whether the core reads `path` over HTTP(S) (see zt::is_remote_url)
    rather than as a local file that could be mapped."""
    return isinstance(path, str) and path[:8].lower().startswith(("http://", "https://"))


# safetensors' backend= values: "mmap" maps the file, "pread" reads each
# tensor into memory of its own (our copy=True).
BACKENDS = ("mmap", "pread")


def copies(backend: str, copy: bool = False) -> bool:
    """Whether a load gives tensors with memory of their own (copy=, or
    safetensors' backend="pread"); checks `backend`."""
    if backend not in BACKENDS:
        raise error("invalid_argument", f"backend must be one of {BACKENDS}, not {backend!r}")
    return bool(copy) or backend == "pread"


def check_metadata(metadata: Optional[Dict[str, str]]) -> Optional[Dict[str, str]]:
    """safetensors' rule: metadata is a str -> str dict."""
    if metadata is None:
        return None
    if not isinstance(metadata, dict):
        raise TypeError(f"metadata must be a dict of str -> str, not {type(metadata).__name__}")
    for k, v in metadata.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise TypeError(f"metadata must map str -> str; got {type(k).__name__} -> {type(v).__name__} for {k!r}")
    return metadata


def string_metadata(attributes) -> Dict[str, str]:
    return {k: v for k, v in attributes.items() if isinstance(k, str) and isinstance(v, str)}


def save_to_bytes(write) -> bytes:
    """Run write(path) on a temporary file and return the file's bytes (the
    Writer only writes files)."""
    fd, path = tempfile.mkstemp(suffix=".zt")
    os.close(fd)
    try:
        write(path)
        with open(path, "rb") as f:
            return f.read()
    finally:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


SAFETENSORS_SUFFIX = ".safetensors"


def is_safetensors_path(filename) -> bool:
    """Whether save_file writes safetensors to `filename` (by its extension,
    as ztensor.convert chooses its output)."""
    return isinstance(filename, (str, os.PathLike)) and os.fspath(filename).lower().endswith(SAFETENSORS_SUFFIX)


def write_tensors(tensors: Mapping[str, Any], filename, metadata: Optional[Dict[str, str]], *,
                  compression: Compression = None, level: Optional[int] = None, checksum: Optional[str] = None,
                  effort: Optional[str] = None, durable: bool = True,
                  max_shard_size: Optional[Union[int, str]] = None) -> None:
    """save_file of ztensor.numpy and ztensor.torch: `tensors` streamed to a
    .zt file (or shard set), or to a safetensors file when `filename` ends in
    .safetensors."""
    from ._writer import Writer  # imports the extension

    def write_zt(path, compression=compression, level=level, checksum=checksum, effort=effort, durable=durable,
                 max_shard_size=max_shard_size) -> None:
        with Writer(path, attributes=check_metadata(metadata), durable=durable, max_shard_size=max_shard_size) as w:
            for name, t in tensors.items():
                w.add(name, t, compression=compression, level=level, checksum=checksum, effort=effort)

    if not is_safetensors_path(filename):
        write_zt(filename)
        return
    from ._convert import convert  # imports the extension

    # safetensors holds raw tensors only: the options a .zt carries are refused.
    options = dict(compression=compression, level=level, checksum=checksum, effort=effort,
                   max_shard_size=max_shard_size)
    used = sorted(k for k, v in options.items() if v not in (None, False, "raw", "none"))  # 0 == False: raw too
    if used:
        raise error("invalid_argument", f"'{os.fspath(filename)}': {', '.join(used)} apply to .zt files; a "
                                        ".safetensors file holds raw tensors only")
    # A raw .zt in a temporary folder, converted by the core (the layout the
    # safetensors library writes; string metadata as __metadata__) and
    # published atomically.
    with tempfile.TemporaryDirectory(prefix="ztensor-") as tmp:
        staged = os.path.join(tmp, "tensors.zt")
        write_zt(staged, compression=None, level=None, checksum=None, effort=None, durable=False, max_shard_size=None)
        convert(staged, filename, durable=durable)
