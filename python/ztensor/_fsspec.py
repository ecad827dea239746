"""ztensor.open for fsspec URLs (s3://, gs://, hf://, memory://, ...).

The core reads http(s) URLs itself (libcurl); any other URL with a scheme
goes through fsspec when it and the scheme's backend are installed (an
optional dependency), through the same lazy readers (.zt, safetensors, GGUF,
.npy, chosen by extension): headers and manifests on open, each component's
bytes when it is read. A sharded index (``NAME.zt.index.json``, safetensors'
``*.index.json``) opens its shards beside it through the same filesystem.
"""

from __future__ import annotations

from . import _core
from ._reader import Reader
from ._remote import is_native_url, open_native
from .errors import UnsupportedError, ZTensorError


def is_fsspec_url(path) -> bool:
    """A string with a scheme other than http(s) (those the core reads)."""
    if not isinstance(path, str) or "://" not in path:
        return False
    scheme = path.split("://", 1)[0].lower()
    return scheme.isidentifier() and scheme not in ("http", "https")


def open_any(path, *, verify: bool = False, storage_options=None) -> Reader:
    """A path, an http(s) URL (the core, with `storage_options` mapped to its
    remote options) or an fsspec URL (here, `storage_options` going to the
    filesystem)."""
    if is_fsspec_url(path):
        return open_fsspec(path, verify=verify, storage_options=storage_options)
    if storage_options:
        if not is_native_url(path):
            raise ZTensorError(f"'{path}': storage_options apply to URLs, not to local files", "invalid_argument")
        return open_native(path, verify=verify, storage_options=storage_options)
    return Reader(path, verify=verify)


def open_fsspec(url: str, *, verify: bool = False, storage_options=None) -> Reader:
    try:
        import fsspec  # type: ignore[import-untyped]  # fsspec ships no stubs
    except ImportError as e:
        raise UnsupportedError(f"'{url}': reading this URL needs fsspec (pip install fsspec)",
                               "unsupported") from e
    name = url.split("?", 1)[0]  # its extension says the format; the core refuses those it cannot read lazily
    fs, _ = fsspec.core.url_to_fs(url, **(storage_options or {}))

    def opener(u: str):
        """(size, read) of the file at `u` (the URL, or a shard beside an index)."""
        path = fs._strip_protocol(u)
        size = fs.size(path)

        def read(offset: int, length: int) -> bytes:
            return fs.cat_file(path, start=offset, end=offset + length)

        return size, read

    if name.endswith(".json"):  # an index: the core opens the shards through `opener`
        return Reader(None, verify=verify, _core_reader=_core.Reader.open_with_opener(name, opener, verify))
    size, read = opener(url)
    return Reader(None, verify=verify, _core_reader=_core.Reader.open_callback(name, size, read, verify))
