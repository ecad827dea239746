"""Exceptions raised by ztensor.

Every error from the C++ core carries a stable code name (``.code``, the
``zt::error_code_name`` string such as ``"digest_mismatch"``) and a message
naming the object, the component and the rule broken. ``CODE_TO_CLASS`` is
the one table mapping codes to classes; the extension calls
:func:`from_status` to build its exceptions.
"""

from __future__ import annotations


class ZTensorError(ValueError):
    """Base class of every ztensor error."""

    def __init__(self, message: str = "", code: str = "error"):
        super().__init__(message)
        self.code = code

    def __str__(self) -> str:  # KeyError/OSError subclasses would otherwise mangle it
        return self.args[0] if self.args else ""


class FormatError(ZTensorError):
    """The file breaks a rule of the format: magic, manifest, layout, shapes."""


class DigestMismatchError(ZTensorError):
    """Stored bytes do not hash to the component's digest."""


class LimitError(ZTensorError):
    """A named safety limit was hit (manifest size, decompressed size, ...)."""


class UnsupportedError(ZTensorError):
    """Valid, but this build cannot handle it (format, encoding, dtype)."""


class ZTensorIOError(ZTensorError, OSError):
    """Opening, reading, writing or publishing a file failed."""


class NotFoundError(ZTensorError, KeyError):
    """No object or component of that name (also a KeyError)."""


CODE_TO_CLASS = {
    "io_error": ZTensorIOError,
    "bad_magic": FormatError,
    "manifest_too_large": LimitError,
    "malformed_manifest": FormatError,
    "missing_field": FormatError,
    "wrong_type": FormatError,
    "unknown_dtype": FormatError,
    "unknown_format": UnsupportedError,
    "unknown_encoding": UnsupportedError,
    "misaligned_offset": FormatError,
    "offset_out_of_range": FormatError,
    "length_mismatch": FormatError,
    "shape_overflow": FormatError,
    "missing_component": FormatError,
    "corrupt_stream": FormatError,
    "digest_mismatch": DigestMismatchError,
    "limit_exceeded": LimitError,
    "unsupported": UnsupportedError,
    "invalid_argument": ZTensorError,
    "not_found": NotFoundError,
    "invalid_structure": FormatError,
    "internal": ZTensorError,
}


def from_status(code: str, message: str) -> ZTensorError:
    """The exception for a C++ Status (code name + message)."""
    cls = CODE_TO_CLASS.get(code, ZTensorError)
    return cls(message, code)


def error(code: str, message: str) -> ZTensorError:
    """Same as :func:`from_status`, for errors detected in Python."""
    return from_status(code, message)


__all__ = [
    "ZTensorError",
    "FormatError",
    "DigestMismatchError",
    "LimitError",
    "UnsupportedError",
    "ZTensorIOError",
    "NotFoundError",
    "CODE_TO_CLASS",
    "from_status",
]
