"""Exceptions raised by ztensor.

Every error from the C++ core carries a stable code name (``.code``, the
``zt::error_code_name`` string such as ``"digest_mismatch"``) and a message
naming the object, the component and the rule broken. ``CODE_TO_CLASS`` is
the one table mapping codes to classes, made from the C++ core's list of
codes (each names its class there); the extension calls :func:`from_status`
to build its exceptions.
"""

from __future__ import annotations

import collections as _collections
import errno as _errno
import os as _os
import threading as _threading

from . import _core


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


class ZTensorFileNotFoundError(ZTensorIOError, FileNotFoundError):
    """The file does not exist (also caught by ``except FileNotFoundError``)."""


class ZTensorPermissionError(ZTensorIOError, PermissionError):
    """The file may not be opened (also caught by ``except PermissionError``)."""


class NotFoundError(ZTensorError, KeyError):
    """No object or component of that name (also a KeyError)."""


def _code_to_class(rows) -> dict:
    """The code -> class table from the C++ core's list of codes (ztensor/error_codes.def, as
    ``_core.ERROR_CODES``: (number, name, class name) rows). A class name this module does not
    define fails the import: a code added to the list must name its class."""
    classes = {cls.__name__: cls for cls in (ZTensorError, FormatError, DigestMismatchError, LimitError,
                                             UnsupportedError, ZTensorIOError, NotFoundError)}
    table = {}
    for number, name, class_name in rows:
        if class_name not in classes:
            raise ImportError(f"error code {name!r} ({number}) names the exception class {class_name!r}, "
                              f"which ztensor.errors does not define")
        if number:  # 0 is ok, not an error
            table[name] = classes[class_name]
    return table


CODE_TO_CLASS = _code_to_class(_core.ERROR_CODES)


# A failed system call's errno travels with the Status (zt::Status::sys_errno);
# these get the builtin OSError subclass Python itself would raise.
_IO_ERRNO_CLASSES: dict[int, type[ZTensorError]] = {
    _errno.ENOENT: ZTensorFileNotFoundError,
    _errno.EACCES: ZTensorPermissionError,
    _errno.EPERM: ZTensorPermissionError,
}


def io_class_for_errno(sys_errno: int, default: type[ZTensorError]) -> type[ZTensorError]:
    """The OSError subclass for an errno (FileNotFoundError for ENOENT, ...), else ``default``."""
    return _IO_ERRNO_CLASSES.get(sys_errno, default)


# Errors raised by Python callbacks the core calls (a URL's range reads) that
# are on their way back through it as a Status. Bounded: an error the core
# drops (a retried read) is forgotten once this many newer ones arrived.
MAX_ERRORS_IN_FLIGHT = 16
_in_flight: "_collections.deque[ZTensorError]" = _collections.deque(maxlen=MAX_ERRORS_IN_FLIGHT)
_in_flight_lock = _threading.Lock()


def through_core(exc: ZTensorError) -> ZTensorError:
    """Remember ``exc``, raised in a callback the core calls, so that the
    exception :func:`from_status` builds when the core reports it has its
    class, errno and cause (the store's exception) rather than just its code."""
    with _in_flight_lock:
        if not any(e is exc for e in _in_flight):
            _in_flight.append(exc)
    return exc


def _came_through_core(code: str, message: str):
    """The remembered error the core's status (code, message) reports: the
    core may have put the object or component it concerns before the text."""
    with _in_flight_lock:
        for exc in reversed(_in_flight):
            if exc.code == code and message.endswith(str(exc)):
                _in_flight.remove(exc)
                return exc
    return None


def from_status(code: str, message: str, sys_errno: int = 0) -> ZTensorError:
    """The exception for a C++ Status (code name, message, errno or 0).

    An error with an errno is an OSError with ``.errno``/``.strerror`` set,
    of the builtin subclass its number calls for. A status that reports an
    error a Python callback raised (see :func:`through_core`) gives that
    error's class and errno, with its cause.
    """
    origin = _came_through_core(code, message) if _in_flight else None
    if origin is not None:
        exc = type(origin)(message, code)
        if isinstance(origin, OSError) and isinstance(exc, OSError):
            exc.errno, exc.strerror = origin.errno, origin.strerror
        exc.__cause__ = origin.__cause__
        return exc
    return _build(code, message, sys_errno)


def _build(code: str, message: str, sys_errno: int) -> ZTensorError:
    cls = CODE_TO_CLASS.get(code, ZTensorError)
    if sys_errno and issubclass(cls, OSError):
        cls = io_class_for_errno(sys_errno, cls)
    exc = cls(message, code)
    if sys_errno and isinstance(exc, OSError):
        exc.errno, exc.strerror = sys_errno, _os.strerror(sys_errno)
    return exc


def error(code: str, message: str, sys_errno: int = 0) -> ZTensorError:
    """Same as :func:`from_status`, for errors detected in Python."""
    return _build(code, message, sys_errno)


__all__ = [
    "ZTensorError",
    "FormatError",
    "DigestMismatchError",
    "LimitError",
    "UnsupportedError",
    "ZTensorIOError",
    "ZTensorFileNotFoundError",
    "ZTensorPermissionError",
    "NotFoundError",
    "CODE_TO_CLASS",
    "from_status",
]
