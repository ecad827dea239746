"""Remote options for the URLs the core reads itself (http://, https://,
s3://): ``storage_options`` in fsspec's and s3fs's spelling mapped onto the
core's option names (docs/remote.md).

s3fs's names are kept where they exist (``key``, ``secret``, ``token``,
``endpoint_url``, ``profile``, ``anon``, ``client_kwargs={"region_name":
...}``, ``config_kwargs={"connect_timeout": ..., "read_timeout": ...,
"retries": {"max_attempts": ...}}``); the bounds and policies without an
s3fs spelling use the core's names (``connect_timeout``, ``stall_timeout``,
``open_deadline``, ``read_deadline``, ``max_attempts``, ``redirects``,
``allow_unvalidated``, ``region``).
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

from .errors import ZTensorError

# The core's own option names (zt::RemoteOptions::set).
NATIVE_KEYS = frozenset({
    "connect_timeout", "stall_timeout", "open_deadline", "read_deadline", "max_attempts", "redirects",
    "allow_unvalidated", "key", "secret", "token", "region", "endpoint_url", "profile", "anon",
})
# boto3 client arguments (s3fs's client_kwargs) -> core names.
_CLIENT_KWARGS = {
    "region_name": "region", "endpoint_url": "endpoint_url", "aws_access_key_id": "key",
    "aws_secret_access_key": "secret", "aws_session_token": "token",
}
# botocore Config arguments (s3fs's config_kwargs) -> core names: botocore's
# read_timeout is the longest wait for a byte, the core's stall_timeout.
_CONFIG_KWARGS = {"connect_timeout": "connect_timeout", "read_timeout": "stall_timeout", "region_name": "region"}


def is_native_url(path) -> bool:
    """Whether the core reads `path` itself (zt::is_native_url)."""
    return isinstance(path, str) and path[:8].lower().startswith(("http://", "https://", "s3://"))


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _refuse(what: str) -> ZTensorError:
    known = ", ".join(sorted(NATIVE_KEYS | {"client_kwargs", "config_kwargs"}))
    return ZTensorError(f"storage_options: {what} (the options for http(s):// and s3:// URLs are {known})",
                        "invalid_argument")


def native_options(storage_options: Optional[Mapping[str, Any]]) -> Dict[str, str]:
    """`storage_options` as the core's {name: text}; an option zTensor does
    not know is a ZTensorError (code invalid_argument) naming it, never
    silently dropped."""
    out: Dict[str, str] = {}
    for name, value in (storage_options or {}).items():
        if value is None:
            continue
        if name in NATIVE_KEYS:
            out[name] = _text(value)
        elif name in ("client_kwargs", "config_kwargs"):
            table = _CLIENT_KWARGS if name == "client_kwargs" else _CONFIG_KWARGS
            for sub, sub_value in dict(value).items():
                if sub == "retries" and name == "config_kwargs" and "max_attempts" in dict(sub_value):
                    out["max_attempts"] = _text(dict(sub_value)["max_attempts"])
                elif sub in table:
                    out[table[sub]] = _text(sub_value)
                else:
                    raise _refuse(f"{name}[{sub!r}] is not an option zTensor reads")
        else:
            raise _refuse(f"{name!r} is not an option zTensor reads")
    return out


def open_native(url: str, *, verify: bool = False, storage_options: Optional[Mapping[str, Any]] = None):
    """ztensor.open of an http(s):// or s3:// URL by the core, with
    `storage_options` mapped by :func:`native_options`."""
    from . import _core
    from ._reader import Reader

    core = _core.Reader.open_url(url, native_options(storage_options), verify)
    reader = Reader(None, verify=verify, _core_reader=core)
    reader._path = url  # for repr, and so slices are read by range
    return reader
