"""ztensor.open for fsspec URLs (s3://, gs://, hf://, memory://, ...).

The core reads http(s) URLs itself (libcurl); any other URL with a scheme
goes through fsspec when it and the scheme's backend are installed (an
optional dependency), through the same lazy readers (.zt, safetensors, GGUF,
.npy, chosen by extension; .zstn here): headers and manifests on open, each
component's bytes when it is read. A sharded index (``NAME.zt.index.json``,
safetensors' ``*.index.json``) opens its shards beside it through the same
filesystem. ``storage_options`` go to the filesystem (s3fs: ``key``,
``secret``, ``token``, ``endpoint_url``, ``client_kwargs``, ``profile``,
``anon``, ...), except ztensor's own ``allow_unvalidated``. Each object is
pinned to the version opened (see _store_pin); every failure is a coded
ztensor error (see _store_errors).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple

from . import _core
from ._reader import Reader
from ._remote import is_native_url, open_native
from ._store_errors import store_error
from ._store_pin import ALLOW_UNVALIDATED, Pin, PinnedObject
from .errors import ZTensorError, error, through_core

StorageOptions = Optional[Dict[str, Any]]


def is_fsspec_url(path) -> bool:
    """A string with a scheme other than http(s) (those the core reads)."""
    if not isinstance(path, str) or "://" not in path:
        return False
    scheme = path.split("://", 1)[0].lower()
    return scheme.isidentifier() and scheme not in ("http", "https")


def check_storage_options(storage_options: StorageOptions) -> Dict[str, Any]:
    """A copy of ``storage_options`` (None: none), refused unless a dict."""
    if storage_options is None:
        return {}
    if not isinstance(storage_options, dict):
        raise error("invalid_argument", f"storage_options must be a dict, not {type(storage_options).__name__}")
    return dict(storage_options)


def open_any(path, *, verify: bool = False, storage_options: StorageOptions = None) -> Reader:
    """A path, an http(s) or s3 URL the core reads (``storage_options`` mapped to its remote
    options) or an fsspec URL (here, ``storage_options`` going to the filesystem). A local path
    takes none."""
    options = check_storage_options(storage_options)
    if is_fsspec_url(path):
        return open_fsspec(path, verify=verify, storage_options=options)
    if options:
        if not is_native_url(path):
            raise error("invalid_argument", f"'{path}': storage_options apply to URLs, not to local files")
        return open_native(path, verify=verify, storage_options=options)
    return Reader(path, verify=verify)


def filesystem(url: str, storage_options: StorageOptions):
    """(fsspec filesystem for ``url``, path in it, whether unvalidated reads
    are allowed). Errors: unsupported (no fsspec or backend), the store's."""
    options = check_storage_options(storage_options)
    allow_unvalidated = bool(options.pop(ALLOW_UNVALIDATED, False))
    try:
        import fsspec  # type: ignore[import-untyped]  # fsspec ships no stubs
    except ImportError as e:
        raise error("unsupported", f"'{url}': reading this URL needs fsspec (pip install fsspec)") from e
    try:
        fs, path = fsspec.core.url_to_fs(url, **options)
    except ImportError as e:  # fsspec knows the scheme, its backend is not installed
        raise error("unsupported", f"'{url}': this URL needs a package that is not installed ({e})") from e
    except ValueError as e:  # "Protocol not known"
        raise error("unsupported", f"'{url}': fsspec cannot open this URL ({e})") from e
    except TypeError as e:  # an option the filesystem does not take
        raise error("invalid_argument", f"'{url}': bad storage_options ({e})") from e
    except Exception as e:
        raise store_error(url, e, "connecting") from e
    return fs, path, allow_unvalidated


@dataclass(frozen=True)
class StoreSource:
    """What another process (a Dask worker) needs to open the very version
    of an fsspec URL this one opened: the options and each file's pin."""

    url: str
    storage_options: Dict[str, Any] = field(default_factory=dict, repr=False)  # may hold credentials
    pins: Dict[str, Pin] = field(default_factory=dict)

    def open(self, verify: bool = False) -> Reader:
        return open_fsspec(self.url, verify=verify, storage_options=self.storage_options, pins=self.pins)


def open_fsspec(url: str, *, verify: bool = False, storage_options: StorageOptions = None,
                pins: Optional[Dict[str, Pin]] = None) -> Reader:
    """A Reader over the object(s) at ``url``, each held to the version it
    has now (or to ``pins[its URL]``)."""
    fs, _, allow_unvalidated = filesystem(url, storage_options)
    name = url.split("?", 1)[0]  # its extension says the format; the core refuses those it cannot read lazily
    opened: Dict[str, Pin] = {}

    def opener(u: str) -> Tuple[int, Any]:
        """(size, read) of the file at `u` (the URL, or a shard beside an index)."""
        pinned = PinnedObject(fs, fs._strip_protocol(u), u, (pins or {}).get(u), allow_unvalidated)
        opened[u] = pinned.pin
        return pinned.size, pinned.read

    def opener_through_core(u: str) -> Tuple[int, Any]:
        try:
            return opener(u)
        except ZTensorError as e:  # keeps its class and cause on the way through the core
            raise through_core(e)

    if name.endswith(".json"):  # an index: the core opens the shards through `opener`
        core = _core.Reader.open_with_opener(name, opener_through_core, verify)
    elif name.endswith(".zstn"):
        from ._zstn import zstn_core_reader_over

        core = zstn_core_reader_over(name, *opener(url), verify)
    else:
        size, read = opener(url)
        core = _core.Reader.open_callback(name, size, read, verify)
    reader = Reader(None, verify=verify, _core_reader=core)
    reader._store = StoreSource(url, check_storage_options(storage_options), dict(opened))
    return reader
