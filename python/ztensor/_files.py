"""Shared pieces of ztensor.numpy / ztensor.torch."""

from __future__ import annotations

import os
import tempfile
from typing import Dict, Optional, Union

# save_file's compression=: None/"raw", "zstd" or "z4ai"; or as ztensor 1.2.x
# had it, False (raw), True (zstd level 3) or an int (that zstd level).
Compression = Union[None, str, bool, int]


def is_url(path) -> bool:
    """Whether the core reads `path` over HTTP(S) (see zt::is_remote_url)
    rather than as a local file that could be mapped."""
    return isinstance(path, str) and path[:8].lower().startswith(("http://", "https://"))


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
