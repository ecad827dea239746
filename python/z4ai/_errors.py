"""z4ai's errors: the ztensor hierarchy, so one ``except`` covers both packages.

``Z4aiError`` stays the name old code catches; it is a
:class:`ztensor.ZTensorError` (hence a ``ValueError``) with ``.code``. An error
raised by the codec is also the ztensor class of its code: a declaration over
``max_output`` is both a ``Z4aiError`` and a ``ztensor.LimitError``. The text
keeps its ``"<code>: "`` prefix, which callers matched before ``.code``
existed.
"""

from __future__ import annotations

import os

from ztensor.errors import CODE_TO_CLASS, ZTensorError, io_class_for_errno


class Z4aiError(ZTensorError):
    """Base class of every z4ai error."""

    def __init__(self, message: str = "", code: str | None = None):
        if code is None:  # Z4aiError("digest_mismatch: ..."), as z4ai code raised it before .code
            head = message.split(":", 1)[0]
            code = head if head in CODE_TO_CLASS else "error"
        super().__init__(message, code)


_CLASSES: dict = {}


def error_class(code: str, sys_errno: int = 0) -> type:
    """The Z4aiError subclass that is also ztensor's class for ``code``
    (and for ``sys_errno``, e.g. FileNotFoundError for ENOENT)."""
    base = CODE_TO_CLASS.get(code, ZTensorError)
    if sys_errno and issubclass(base, OSError):
        base = io_class_for_errno(sys_errno, base)
    if base is ZTensorError:
        return Z4aiError
    cls = _CLASSES.get(base)
    if cls is None:
        cls = type("Z4ai" + base.__name__, (Z4aiError, base),
                   {"__module__": __name__, "__doc__": f"A z4ai error that is a ztensor {base.__name__}."})
        _CLASSES[base] = cls
    return cls


def error(code: str, message: str, sys_errno: int = 0) -> Z4aiError:
    """The exception for a codec Status (code name, message, errno or 0)."""
    exc = error_class(code, sys_errno)(f"{code}: {message}", code)
    if sys_errno and isinstance(exc, OSError):
        exc.errno, exc.strerror = sys_errno, os.strerror(sys_errno)
    return exc
