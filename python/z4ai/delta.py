"""Checkpoint deltas: ``current`` stored as the XOR with a reference.

Consecutive checkpoints differ in few bits, so ``current ^ reference`` is
mostly zero bytes and compresses far below a standalone frame. The frame
(``Z4XD``, docs/codec.md) keeps the smaller of delta and standalone and
records the reference's length and XXH3-64: decoding against a different
reference raises :class:`z4ai.Z4aiError` instead of returning wrong weights.
"""

from __future__ import annotations

from typing import Any, Optional, TypeVar, overload

from . import _z4ai
from ._args import as_buffer, level_arg, max_output_arg

MAGIC = b"Z4XD"


# PyPI z4ai 0.x's delta frames: decoded by decompress() too (docs/codec.md).
PYPI_MAGIC = b"Z4DL"


def peek_is_delta(blob) -> bool:
    return len(blob) >= 4 and bytes(blob[:4]) in (MAGIC, PYPI_MAGIC)


def compress(current, reference, *, dtype: Optional[str] = None, level: Optional[int] = None,
             threads: int = 0, auto: bool = True, effort: Optional[str] = None) -> bytes:
    """Compress ``current`` as a delta against ``reference`` (bytes-like)."""
    from . import dtype_width
    from ._args import effort_arg

    dtype_width(dtype)
    return _z4ai.compress_delta(as_buffer(current), as_buffer(reference), dtype or "", level_arg(level),
                                int(threads), bool(auto), effort_arg(effort))


# decompress(..., out=buf) returns buf itself.
_Out = TypeVar("_Out")


@overload
def decompress(blob: Any, reference: Any, *, out: None = None, threads: int = ...,
               max_output: Optional[int] = ...) -> bytes: ...


@overload
def decompress(blob: Any, reference: Any, *, out: _Out, threads: int = ..., max_output: Optional[int] = ...) -> _Out: ...


def decompress(blob: Any, reference: Any, *, out: Any = None, threads: int = 0,
               max_output: Optional[int] = None) -> Any:
    """Reconstruct the checkpoint; ``out`` (writable buffer) receives it if given.

    ``max_output`` (bytes) caps the declared size: a larger one raises
    ``limit_exceeded`` before anything is allocated.
    """
    data = _z4ai.decompress_delta(as_buffer(blob), as_buffer(reference), int(threads), max_output_arg(max_output))
    if out is None:
        return data
    mv = memoryview(out).cast("B")
    if len(mv) < len(data):
        raise ValueError(f"out buffer too small: {len(mv)} < {len(data)}")
    mv[: len(data)] = data
    return out
