"""The files of a Hugging Face model folder for ztensor.transformers: a local
folder, or one at an http(s) or fsspec URL.

A folder holds ``config.json`` (and optionally ``generation_config.json``)
and its weights as one of, in this order of precedence: ``NAME.zt.index.json``
(a .zt shard set, what ``save_pretrained(max_shard_size=...)`` and
``zt convert HF_DIR OUT`` write for large models), ``NAME.zt``,
``NAME.safetensors.index.json`` or ``NAME.safetensors`` (transformers' own).
"""

from __future__ import annotations

import errno
import json
import os
import re
import ssl
import tempfile
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

from ._files import is_url
from ._fsspec import is_fsspec_url
from ._reader import Reader
from .errors import ZTensorError, error

# Weight entries by precedence; the stem "model" is what transformers and
# save_pretrained write, and what a URL is probed for (it cannot be listed).
WEIGHT_SUFFIXES = (".zt.index.json", ".zt", ".safetensors.index.json", ".safetensors")
DEFAULT_STEM = "model"
CONFIG_NAME = "config.json"
GENERATION_CONFIG_NAME = "generation_config.json"
# Shards are named NAME-00001-of-00003.zt: they are reached through their index.
_SHARD_NAME = re.compile(r".*-\d{5}-of-\d{5}\.(zt|safetensors)$")
# A config file is small; more than this from a server is not a config.
MAX_CONFIG_BYTES = 64 << 20
# Seconds a config download may take before it is an io_error.
CONFIG_TIMEOUT_SECONDS = 60


def _is_entry(name: str, suffix: str) -> bool:
    """NAME + suffix, not a shard (shards are reached through their index)."""
    return len(name) > len(suffix) and name.endswith(suffix) and not _SHARD_NAME.match(name)


def local_weights(folder: str) -> str:
    """The path of a local folder's weight entry (see the module docstring)."""
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.is_file())
    except FileNotFoundError:
        raise error("io_error", f"model folder '{folder}' does not exist", errno.ENOENT) from None
    except NotADirectoryError:
        raise error("invalid_argument", f"'{folder}' is not a model folder (a folder with config.json)") from None
    for suffix in WEIGHT_SUFFIXES:
        found = [n for n in names if _is_entry(n, suffix)]
        if len(found) > 1 and DEFAULT_STEM + suffix in found:
            found = [DEFAULT_STEM + suffix]
        if len(found) == 1:
            return os.path.join(folder, found[0])
        if found:
            raise error("invalid_argument", f"model folder '{folder}' holds {len(found)} weight files ending "
                                            f"{suffix} ({', '.join(found)}) and none is called {DEFAULT_STEM}{suffix}")
    raise error("not_found", f"model folder '{folder}' holds no weights: none of "
                             + ", ".join(DEFAULT_STEM + s for s in WEIGHT_SUFFIXES) + " (or another NAME with those "
                             "suffixes)")


def _ssl_context() -> ssl.SSLContext:
    # The CA bundle the core's https reads honour (README: ZT_CA_BUNDLE, then curl's and OpenSSL's variables).
    for var in ("ZT_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE"):
        if os.environ.get(var):
            return ssl.create_default_context(cafile=os.environ[var])
    return ssl.create_default_context()


def _http_get(url: str, headers: Dict[str, str], limit: int) -> Optional[bytes]:
    """Up to `limit` + 1 bytes of the body at an http(s) URL; None on 404, else an io_error."""
    try:
        request = urllib.request.Request(url, headers=headers)
        with urllib.request.urlopen(request, timeout=CONFIG_TIMEOUT_SECONDS, context=_ssl_context()) as resp:
            return bytes(resp.read(limit + 1))
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return None
        raise error("io_error", f"'{url}': HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise error("io_error", f"'{url}': {reason}") from None


def _fetch_http(url: str) -> Optional[bytes]:
    body = _http_get(url, {}, MAX_CONFIG_BYTES)
    if body is not None and len(body) > MAX_CONFIG_BYTES:
        raise error("limit_exceeded", f"'{url}': more than {MAX_CONFIG_BYTES} bytes; not a config file")
    return body


def _fsspec_fs(url: str, storage_options: Dict[str, Any]) -> Tuple[Any, str]:
    try:
        import fsspec  # type: ignore[import-untyped]  # fsspec ships no stubs
    except ImportError:
        raise error("unsupported", f"'{url}': reading this URL needs fsspec (pip install fsspec)") from None
    try:
        return fsspec.core.url_to_fs(url, **storage_options)
    except Exception as e:  # each backend has its own errors: one line, with the URL
        raise error("io_error", f"'{url}': {type(e).__name__}: {e}") from None


def _fetch_fsspec(url: str, storage_options: Dict[str, Any]) -> Optional[bytes]:
    fs, path = _fsspec_fs(url, storage_options)
    try:
        if not fs.exists(path):
            return None
        if fs.size(path) > MAX_CONFIG_BYTES:
            raise error("limit_exceeded", f"'{url}': more than {MAX_CONFIG_BYTES} bytes; not a config file")
        return bytes(fs.cat_file(path))
    except ZTensorError:
        raise
    except Exception as e:  # each backend has its own errors: one line, with the URL
        raise error("io_error", f"'{url}': {type(e).__name__}: {e}") from None


def _join(url: str, name: str) -> str:
    base, _, query = url.partition("?")
    return base.rstrip("/") + "/" + name + (("?" + query) if query else "")


class ModelFolder:
    """A model folder's config files in a local folder (the folder itself, or a
    temporary copy of a remote folder's config files) and its weights' path or
    URL. Use as a context manager: the temporary copy is removed on exit."""

    def __init__(self, location, storage_options: Optional[Dict[str, Any]] = None):
        self.location = os.fspath(location)
        self._options = dict(storage_options or {})
        self._tmp: Optional[tempfile.TemporaryDirectory] = None
        self.remote = is_url(self.location) or is_fsspec_url(self.location)
        if self.remote:
            self._tmp = tempfile.TemporaryDirectory(prefix="ztensor-hf-")
            self.config_dir = self._tmp.name
            try:
                self._download_configs()
            except BaseException:
                self._tmp.cleanup()
                raise
        else:
            self.config_dir = self.location
            if not os.path.isfile(os.path.join(self.location, CONFIG_NAME)):
                local_weights(self.location)  # the clearer error when the folder itself is wrong
                raise error("not_found", f"model folder '{self.location}' has no {CONFIG_NAME}")

    def __enter__(self) -> "ModelFolder":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()

    def _fetch(self, name: str) -> Optional[bytes]:
        url = _join(self.location, name)
        return _fetch_http(url) if is_url(url) else _fetch_fsspec(url, self._options)

    def _download_configs(self) -> None:
        for name in (CONFIG_NAME, GENERATION_CONFIG_NAME):
            body = self._fetch(name)
            if body is None:
                if name == CONFIG_NAME:
                    raise error("not_found", f"'{_join(self.location, name)}' does not exist: the URL must name a "
                                             "model folder holding config.json")
                continue
            try:
                json.loads(body)
            except ValueError as e:
                raise error("invalid_argument", f"'{_join(self.location, name)}' is not JSON: {e}") from None
            with open(os.path.join(self.config_dir, name), "wb") as f:
                f.write(body)

    @property
    def has_generation_config(self) -> bool:
        return os.path.isfile(os.path.join(self.config_dir, GENERATION_CONFIG_NAME))

    def _exists(self, url: str) -> bool:
        if is_url(url):  # one byte asked for: the answer's status is all that matters
            return _http_get(url, {"Range": "bytes=0-0"}, 0) is not None
        fs, path = _fsspec_fs(url, self._options)
        try:
            return bool(fs.exists(path))
        except Exception as e:
            raise error("io_error", f"'{url}': {type(e).__name__}: {e}") from None

    def weights(self) -> str:
        """The path or URL of the weight entry (see the module docstring)."""
        if not self.remote:
            return local_weights(self.location)
        tried: List[str] = []
        for suffix in WEIGHT_SUFFIXES:
            url = _join(self.location, DEFAULT_STEM + suffix)
            if self._exists(url):
                return url
            tried.append(url)
        raise error("not_found", f"model folder '{self.location}' holds no weights: none of {', '.join(tried)} exists")

    def open_weights(self, weights: str, verify: bool = False) -> Reader:
        """The weights (the path or URL weights() gave) as one ztensor source,
        shards read through their index."""
        from . import open as zt_open  # the package's open, with every option it takes

        kwargs: Dict[str, Any] = {"verify": verify}
        if self._options:  # for the object stores
            kwargs["storage_options"] = self._options
        return zt_open(weights, **kwargs)
