"""Argument adapters shared by the z4ai modules."""

from __future__ import annotations

from typing import Optional


def as_buffer(data):
    """A C-contiguous buffer the extension can read without copying."""
    if isinstance(data, (bytes, bytearray)):
        return data
    if isinstance(data, memoryview):
        return data if data.c_contiguous else data.tobytes()
    try:
        return memoryview(data)
    except TypeError:
        raise TypeError(f"data must be bytes-like, got {type(data).__name__}") from None


def level_arg(level: Optional[int]) -> int:
    if level is None:
        return -1
    level = int(level)
    if not 1 <= level <= 22:
        raise ValueError(f"level must be in 1..22, got {level}")
    return level


def effort_arg(effort: Optional[str]) -> str:
    if effort is None:
        return ""
    if effort == "default":  # the CLI's older name for the fast tier, an alias everywhere
        return "fast"
    if effort not in ("fast", "balanced", "max"):
        raise ValueError(f"unknown effort {effort!r}; use None, 'fast', 'balanced' or 'max' ('default' = 'fast')")
    return effort


# z4ai.kNoOutputLimit (include/z4ai/codec.h): no cap beyond the 1 TiB frame limit.
_NO_OUTPUT_LIMIT = 1 << 40


def max_output_arg(max_output: Optional[int]) -> int:
    """Bytes one decompress call may allocate (like zlib's max_length); None = no cap."""
    if max_output is None:
        return _NO_OUTPUT_LIMIT
    max_output = int(max_output)
    if max_output < 0:
        raise ValueError(f"max_output must be >= 0, got {max_output}")
    return min(max_output, _NO_OUTPUT_LIMIT)
