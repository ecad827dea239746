"""Chunked, multi-threaded codec: the ``Z4AIMF01`` layout, byte-compatible
with the PyPI z4ai ``z4ai.chunked`` frames.

Frame layout (all integers little-endian)::

    magic       8 bytes   b"Z4AIMF01"
    flags       u8        reserved (0)
    width       u8        element width used for the transpose
    n_chunks    u32
    per chunk:  u32 elems, u8 tail_len, tail bytes, then
                width * (u8 method, u32 comp_len, comp_bytes)

``method`` 0 = stored raw, 1 = Zstd; plane j holds byte j of every element.
Chunking caps Zstd's match horizon at one chunk; use :func:`z4ai.compress`
when ratio matters more than throughput.
"""

from __future__ import annotations

from typing import Optional

from . import _z4ai
from ._args import as_buffer, max_output_arg

MAGIC = b"Z4AIMF01"
DEFAULT_CHUNK_SIZE = 2097152
DEFAULT_LEVEL = 1


def compress(data, *, dtype: Optional[str] = None, level: Optional[int] = None, threads: int = 0,
             chunk_size: int = DEFAULT_CHUNK_SIZE) -> bytes:
    """Compress ``data`` with the chunked, multi-threaded pipeline (one Z4AIMF01 frame)."""
    from . import dtype_width

    width = dtype_width(dtype)
    lvl = DEFAULT_LEVEL if level is None else int(level)
    if int(chunk_size) <= 0:
        raise ValueError("chunk_size must be positive")
    return _z4ai.chunked_compress(as_buffer(data), width, lvl, int(threads), int(chunk_size))


def is_chunked(blob) -> bool:
    """True if ``blob`` is a chunked ``Z4AIMF01`` frame."""
    return len(blob) >= 8 and bytes(blob[:8]) == MAGIC


def decompress(blob, *, threads: int = 0, max_output: Optional[int] = None) -> bytes:
    """Inverse of :func:`compress`; reconstructs the exact original buffer.

    ``max_output`` (bytes) caps the declared decoded size: a larger one raises
    ``limit_exceeded`` before anything is allocated.
    """
    if not is_chunked(blob):
        raise ValueError("not a chunked z4ai frame (bad magic)")
    return _z4ai.chunked_decompress(as_buffer(blob), int(threads), max_output_arg(max_output))
