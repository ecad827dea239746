"""z4ai: lossless compression for neural-network weights.

The codec is C++ (``z4ai._z4ai``, built into ztensor's extension module); this package only
adapts Python arguments.
Frames: ``Z4AI`` (default, fast), ``ZARA`` (``effort="balanced"``/``"max"``),
``Z4AIMF01`` (:mod:`z4ai.chunked`), ``Z4XD`` (:mod:`z4ai.delta`), ``Z4DM``
(:mod:`z4ai.model_delta`), ``ZSTN``
(:mod:`z4ai.safetensors`). Layouts are in docs/codec.md.

    >>> import z4ai
    >>> blob = z4ai.compress(weights_bytes, dtype="bf16")
    >>> assert z4ai.decompress(blob) == weights_bytes
"""

from __future__ import annotations

from typing import Any, Optional, TypeVar, overload

from . import _z4ai
from ._arrays import compress_array, decompress_array, is_array_frame, unwrap_array_frame
from ._errors import Z4aiError
from ._args import as_buffer, effort_arg, level_arg, max_output_arg
from . import chunked, delta, model_delta, safetensors

__all__ = [
    "compress",
    "decompress",
    "compress_array",
    "decompress_array",
    "compress_ndarray",
    "decompress_ndarray",
    "compress_delta",
    "decompress_delta",
    "peek_is_z4ai",
    "dtype_width",
    "DTYPE_WIDTHS",
    "Z4aiError",
    "chunked",
    "delta",
    "model_delta",
    "safetensors",
    "__version__",
]

from importlib.metadata import PackageNotFoundError as _PackageNotFound
from importlib.metadata import version as _dist_version

# The distribution's version (project(... VERSION) in CMakeLists.txt): z4ai
# ships inside the ztensor distribution, so both report the same one.
try:
    __version__: str = _dist_version("ztensor")
except _PackageNotFound:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

# Byte-plane width per dtype code (the reference table, plus our fp8 names).
DTYPE_WIDTHS = {
    None: 1, "raw": 1, "uint8": 1, "int8": 1, "bool": 1,
    "fp8_e4m3": 1, "fp8_e5m2": 1,
    "f8_e4m3fn": 1, "f8_e5m2": 1, "f8_e4m3fnuz": 1, "f8_e5m2fnuz": 1,
    "bf16": 2, "fp16": 2, "float16": 2, "int16": 2, "uint16": 2,
    "fp32": 4, "float32": 4, "int32": 4, "uint32": 4,
    "fp64": 8, "float64": 8, "int64": 8, "uint64": 8,
}


def dtype_width(dtype: Optional[str]) -> int:
    """Return the byte-plane width for a dtype code (see :data:`DTYPE_WIDTHS`).

    Raises ``ValueError`` for an unknown code.
    """
    if dtype is None:
        return 1
    if not isinstance(dtype, str):
        raise ValueError(f"unknown dtype code {dtype!r}")
    return _z4ai.dtype_width(dtype)


def _is_ndarray(data) -> bool:
    return hasattr(data, "dtype") and hasattr(data, "shape") and hasattr(data, "tobytes")


def compress(data, *, dtype: Optional[str] = None, level: Optional[int] = None, threads: int = 0,
             auto: bool = True, effort: Optional[str] = None) -> bytes:
    """Compress a buffer (or NumPy array) into a self-describing z4ai frame.

    ``dtype`` names the element type of a raw buffer (``None`` = opaque
    bytes); for a NumPy array dtype and shape are recorded and ``dtype`` is
    ignored. ``effort`` None/"fast" gives a ``Z4AI`` frame, "balanced"/"max"
    a ``ZARA`` frame. Output is identical for any ``threads``.

    ``auto=False`` writes the dtype's primary coding only (the fastest
    compress); ``auto=True`` builds on it and is never larger than it, and
    never larger than whole-buffer zstd at ``level`` plus the 32-byte header
    for inputs up to 64 KiB and for opaque bytes up to 64 MiB (larger inputs
    probe zstd first). ``level`` (1..22) is the level of every zstd stage; see
    docs/codec.md, "How the encoder chooses".
    """
    if _is_ndarray(data):
        return compress_array(data, level=level, threads=threads, auto=auto, effort=effort)
    dtype_width(dtype)  # validate early for a friendly error
    return _z4ai.compress(as_buffer(data), dtype or "", level_arg(level), int(threads), bool(auto),
                          effort_arg(effort))


# decompress(..., out=buf) returns buf itself.
_Out = TypeVar("_Out")


@overload
def decompress(blob: Any, *, out: None = None, threads: int = ..., max_output: Optional[int] = ...) -> bytes: ...


@overload
def decompress(blob: Any, *, out: _Out, threads: int = ..., max_output: Optional[int] = ...) -> _Out: ...


def decompress(blob: Any, *, out: Any = None, threads: int = 0, max_output: Optional[int] = None) -> Any:
    """Decompress a z4ai frame back to the original bytes (byte-identical).

    With ``out`` (a writable buffer at least as long as the data) the bytes
    are decoded straight into it and ``out`` is returned. ``max_output``
    (bytes, like zlib's ``max_length``) caps what the frame may declare: a
    larger declaration raises ``limit_exceeded`` before anything is
    allocated. Raises :class:`Z4aiError` (a ``ValueError``) for corrupt or
    truncated frames.
    """
    blob = as_buffer(blob)
    if is_array_frame(blob):
        _, _, blob = unwrap_array_frame(blob)
    kind = _z4ai.peek(blob)[0]
    if kind == "Z4AIMF01":
        data = chunked.decompress(blob, threads=threads, max_output=max_output)
        if out is None:
            return data
        memoryview(out).cast("B")[: len(data)] = data
        return out
    if out is not None:
        _z4ai.decompress_into(blob, out, int(threads))
        return out
    return _z4ai.decompress(blob, int(threads), max_output_arg(max_output))


def peek_is_z4ai(blob) -> bool:
    """Return True if ``blob`` starts with a z4ai frame magic."""
    try:
        buf = as_buffer(blob)
    except TypeError:
        return False
    return bool(_z4ai.is_z4ai_frame(buf)) or is_array_frame(buf)


def compress_delta(current, reference, *, dtype: Optional[str] = None, level: Optional[int] = None,
                   threads: int = 0) -> bytes:
    """Losslessly compress ``current`` as an XOR delta against ``reference``."""
    return delta.compress(current, reference, dtype=dtype, level=level, threads=threads)


@overload
def decompress_delta(blob: Any, reference: Any, *, out: None = None, max_output: Optional[int] = ...) -> bytes: ...


@overload
def decompress_delta(blob: Any, reference: Any, *, out: _Out, max_output: Optional[int] = ...) -> _Out: ...


def decompress_delta(blob: Any, reference: Any, *, out: Any = None, max_output: Optional[int] = None) -> Any:
    """Reconstruct a checkpoint from a delta frame and its reference."""
    return delta.decompress(blob, reference, out=out, max_output=max_output)


compress_ndarray = compress_array
decompress_ndarray = decompress_array
