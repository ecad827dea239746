"""Errors from object stores (fsspec, s3fs, botocore, aiohttp) as ztensor errors.

Every failure of a URL read or write reaches the caller as a
:class:`~ztensor.ZTensorError` with a ``.code`` and a one-line message naming
the URL; the store's own exception is chained (``raise ... from``) for
whoever wants its traceback. Exceptions are recognised by class name along
their MRO, so none of the optional packages has to be importable here.
"""

from __future__ import annotations

import errno
from typing import NoReturn, Optional, Tuple

from .errors import ZTensorError, error, through_core

# Longest piece of a store's own message kept in ours (one line).
MAX_DETAIL_CHARS = 160
# Exception chains followed (__cause__, __context__) looking for the cause.
MAX_CHAIN_DEPTH = 8

# (class names along the MRO) -> kind; the first match along the chain, from
# the outermost exception in, decides.
_KINDS_BY_CLASS = (
    (("NoCredentialsError", "PartialCredentialsError", "NoAuthTokenError", "UnauthorizedSSOTokenError"),
     "credentials"),
    (("ConnectTimeoutError", "ReadTimeoutError", "FSTimeoutError", "ServerTimeoutError", "TimeoutError",
      "timeout"), "timeout"),
    (("EndpointConnectionError", "ClientConnectorError", "ServerDisconnectedError", "ConnectionError"),
     "unreachable"),
    (("FileNotFoundError",), "not_found"),
    (("PermissionError",), "denied"),
    # The filesystem passes options it does not know on to its session (s3fs to aiobotocore's), which
    # refuses them with a TypeError at the first request.
    (("ProfileNotFound", "InvalidConfigError", "TypeError"), "bad_option"),
)

# S3 error codes (and HTTP statuses) -> kind, for botocore's ClientError.
_KINDS_BY_S3_CODE = {
    "NoSuchBucket": "not_found", "NoSuchKey": "not_found", "NotFound": "not_found", "404": "not_found",
    "AccessDenied": "denied", "InvalidAccessKeyId": "denied", "SignatureDoesNotMatch": "denied",
    "ExpiredToken": "denied", "403": "denied",
    "PreconditionFailed": "changed", "412": "changed", "NoSuchVersion": "changed",
}

# kind -> (code, errno for the OSError subclass, what the message says)
_OUTCOMES = {
    "not_found": ("io_error", errno.ENOENT, "no such bucket or object"),
    "denied": ("io_error", errno.EACCES, "access denied"),
    "credentials": ("io_error", errno.EACCES, "no credentials for the store"),
    "unreachable": ("io_error", 0, "cannot reach the store's endpoint"),
    "timeout": ("io_error", 0, "the store did not answer in time"),
    "changed": ("length_mismatch", 0, "the object changed since it was opened"),
    "bad_option": ("invalid_argument", 0, "bad storage option"),
    "other": ("io_error", 0, "the store failed"),
}


def _class_names(exc: BaseException) -> set:
    return {c.__name__ for c in type(exc).__mro__}


def _chain(exc: BaseException):
    link: Optional[BaseException] = exc
    for _ in range(MAX_CHAIN_DEPTH):
        if link is None:
            return
        yield link
        link = link.__cause__ or link.__context__


def _s3_code(exc: BaseException) -> Optional[str]:
    """The S3 error code of a botocore ClientError (or its HTTP status)."""
    response = getattr(exc, "response", None)
    if not isinstance(response, dict):
        return None
    code = str(response.get("Error", {}).get("Code", ""))
    if code in _KINDS_BY_S3_CODE:
        return code
    status = str(response.get("ResponseMetadata", {}).get("HTTPStatusCode", ""))
    return status if status in _KINDS_BY_S3_CODE else code or None


def _classify(exc: BaseException) -> Tuple[str, BaseException]:
    """(kind, the exception in the chain that told it)."""
    for link in _chain(exc):
        names = _class_names(link)
        if "ClientError" in names:
            code = _s3_code(link)
            return _KINDS_BY_S3_CODE.get(code or "", "other"), link
        for classes, kind in _KINDS_BY_CLASS:
            if names.intersection(classes):
                return kind, link
    return "other", exc


def _detail(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else type(exc).__name__
    if len(first) > MAX_DETAIL_CHARS:
        first = first[:MAX_DETAIL_CHARS - 3] + "..."
    return first


def store_error(url: str, exc: BaseException, doing: str = "") -> ZTensorError:
    """The ztensor error for a store's exception ``exc`` met while ``doing``
    something with ``url``; raise it ``from exc``."""
    if isinstance(exc, ZTensorError):
        return exc
    kind, told = _classify(exc)
    code, sys_errno, what = _OUTCOMES[kind]
    where = f"{doing}; " if doing else ""
    return error(code, f"'{url}': {what} ({where}{type(told).__name__}: {_detail(told)})", sys_errno)


def raise_store_error(url: str, exc: BaseException, doing: str = "") -> NoReturn:
    """Raise the ztensor error for ``exc`` (``exc`` itself when it is one
    already), chained to it."""
    mapped = store_error(url, exc, doing)
    if mapped is exc:
        raise exc
    raise mapped from exc


def raise_through_core(url: str, exc: BaseException, doing: str) -> NoReturn:
    """Raise the ztensor error for ``exc`` from a callback the core calls (a
    range read): the core turns it into a status, and the exception that
    reaches the caller keeps ``exc`` as its cause."""
    if isinstance(exc, ZTensorError):  # ours already (a pin that no longer holds)
        raise through_core(exc)
    raise through_core(store_error(url, exc, doing)) from exc
