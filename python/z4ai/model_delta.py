"""Whole-checkpoint deltas between ``.safetensors`` files, aligned by tensor name.

A fine-tune may add, drop, rename or re-order tensors relative to its base,
which shifts every later byte and defeats a raw XOR (:mod:`z4ai.delta`). This
module matches each target tensor to the base tensor of the same name, dtype
and shape and stores it as COPY (identical: nothing stored), DELTA (a ``Z4XD``
frame against that base tensor) or FULL (a standalone frame), whichever is
smallest. The ``Z4DM`` frame (docs/codec.md) keeps the target's JSON header
verbatim and a digest of the base data buffer: decoding against another base
raises :class:`z4ai.Z4aiError` instead of returning wrong weights.

    >>> from z4ai import model_delta
    >>> blob = model_delta.compress(finetuned_safetensors, base_safetensors)
    >>> assert model_delta.decompress(blob, base_safetensors) == finetuned_safetensors
"""

from __future__ import annotations

import os
from typing import Optional

from . import _z4ai
from ._args import as_buffer, level_arg, max_output_arg

MAGIC = b"Z4DM"


def peek_is_model_delta(blob) -> bool:
    """True if ``blob`` is a z4ai whole-checkpoint delta frame."""
    try:
        buf = as_buffer(blob)
    except TypeError:
        return False
    return bool(_z4ai.is_model_delta(buf))


def compress(target, base, *, level: Optional[int] = None, threads: int = 0) -> bytes:
    """Compress safetensors ``target`` as a name-aligned delta against ``base``.

    Both are raw ``.safetensors`` buffers (bytes-like). The result is never
    larger than compressing each tensor standalone.
    """
    return _z4ai.model_delta_compress(as_buffer(target), as_buffer(base), level_arg(level), int(threads))


def decompress(blob, base, *, threads: int = 0, max_output: Optional[int] = None) -> bytes:
    """Rebuild the byte-identical target from a ``Z4DM`` frame and its base."""
    return _z4ai.model_delta_decompress(as_buffer(blob), as_buffer(base), int(threads), max_output_arg(max_output))


def _read(path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _write_atomic(path, data: bytes) -> None:
    # A crash mid-write must not leave a truncated file under the final name.
    tmp = f"{os.fspath(path)}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def compress_file(target_path, base_path, out_path, *, level: Optional[int] = None, threads: int = 0) -> dict:
    """Delta-compress the safetensors at ``target_path`` against ``base_path``.

    Writes a ``Z4DM`` frame to ``out_path``; returns ``original``, ``stored``
    (bytes) and ``ratio`` (original / stored).
    """
    target = _read(target_path)
    blob = compress(target, _read(base_path), level=level, threads=threads)
    _write_atomic(out_path, blob)
    return {"original": len(target), "stored": len(blob), "ratio": len(target) / max(1, len(blob))}


def decompress_file(delta_path, base_path, out_path, *, threads: int = 0) -> dict:
    """Inverse of :func:`compress_file`: writes the byte-identical target."""
    blob = _read(delta_path)
    data = decompress(blob, _read(base_path), threads=threads)
    _write_atomic(out_path, data)
    return {"original": len(data), "stored": len(blob), "ratio": len(data) / max(1, len(blob))}
