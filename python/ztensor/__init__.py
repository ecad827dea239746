"""zTensor: read and write .zt tensor containers (spec v1.2).

    import ztensor
    with ztensor.Writer("model.zt", attributes={"framework": "numpy"}) as w:
        w.add("w", array, compression="zstd", checksum="sha256")
    with ztensor.open("model.zt") as r:
        r.read("w")

``ztensor.open`` returns a :class:`Source` (``read`` gives arrays).
``ztensor.Reader``, ``Tensor``, ``Writer.write``/``append``,
``remove_tensors``, ``replace_tensor`` and ``DTYPE_*`` keep the ztensor 1.2.x
meanings, so code written for 1.2.x runs unchanged (see ``ztensor._compat``).

``ztensor.open`` also reads safetensors, GGUF, .npy/.npz, PyTorch zip
checkpoints and ONNX (detected by content); ``ztensor.convert(src, dst)``
turns any of them into .zt, safetensors or .npz.

``ztensor.numpy`` and ``ztensor.torch`` offer safetensors-style
``save_file``/``load_file``/``save``/``load``; ``ztensor.transformers``
saves and loads Hugging Face models (``save_pretrained``/``from_pretrained``).
"""

import importlib as _importlib

from . import errors
from .errors import (
    DigestMismatchError,
    FormatError,
    LimitError,
    NotFoundError,
    UnsupportedError,
    ZTensorError,
    ZTensorFileNotFoundError,
    ZTensorIOError,
    ZTensorPermissionError,
)
from ._reader import ComponentInfo, GgufQuantized, ObjectInfo, QuantizedGroup, TensorMetadata
from ._reader import Reader as Source
from ._slice import TensorSlice
from ._fsspec import StorageOptions as _StorageOptions
from ._fsspec import open_any
from ._compat import DTYPE_NP_TO_ZT, DTYPE_ZT_TO_NP, Reader, Tensor, Writer, remove_tensors, replace_tensor
from ._safe_open import safe_open
from ._convert import ConvertStats, convert, convert_many


def open(path, *, verify: bool = False, storage_options: _StorageOptions = None) -> Source:  # noqa: A001
    """Open and validate a .zt file, a sharded set's ``NAME.zt.index.json``,
    or any other format ztensor reads, detected by content (see
    :func:`ztensor._reader.open`). ``http://`` and ``https://`` URLs are read
    lazily with range requests; other URLs (``s3://``, ``gs://``, ``hf://``,
    ``memory://``...) of .zt, safetensors, GGUF, .npy and .zstn files through
    fsspec when it is installed, each object held to the version opened
    (a change is ``length_mismatch``). ``storage_options`` go to the URL's
    reader: for http(s) the core's remote options (timeouts, deadlines,
    attempts, redirects; docs/remote.md), for other schemes the fsspec
    filesystem (s3fs: ``key``, ``secret``, ``token``, ``endpoint_url``,
    ``client_kwargs``, ``profile``, ``anon``, ...; docs/stores.md). The key
    ``allow_unvalidated=True`` reads from a server or store that gives no
    ETag, version or modification time. A local path takes none."""
    return open_any(path, verify=verify, storage_options=storage_options)


from importlib.metadata import PackageNotFoundError as _PackageNotFound
from importlib.metadata import version as _dist_version

# The distribution's version (project(... VERSION) in CMakeLists.txt): z4ai
# ships inside the ztensor distribution, so both report the same one.
try:
    __version__: str = _dist_version("ztensor")
except _PackageNotFound:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "open",
    "convert",
    "convert_many",
    "ConvertStats",
    "Source",
    "Reader",
    "Writer",
    "Tensor",
    "safe_open",
    "remove_tensors",
    "replace_tensor",
    "DTYPE_NP_TO_ZT",
    "DTYPE_ZT_TO_NP",
    "ObjectInfo",
    "ComponentInfo",
    "QuantizedGroup",
    "GgufQuantized",
    "TensorMetadata",
    "TensorSlice",
    "ZTensorError",
    "FormatError",
    "DigestMismatchError",
    "LimitError",
    "UnsupportedError",
    "ZTensorIOError",
    "ZTensorFileNotFoundError",
    "ZTensorPermissionError",
    "NotFoundError",
    "errors",
]


# Imported on first use, so `import ztensor` needs neither torch nor transformers.
_LAZY_MODULES = ("numpy", "torch", "transformers")


def __getattr__(name):
    if name in _LAZY_MODULES:
        return _importlib.import_module(f".{name}", __name__)
    if name in ("DTYPE_TORCH_TO_ZT", "DTYPE_ZT_TO_TORCH"):  # 1.2.x names; importing torch only when asked
        from ._compat import torch_tables

        return torch_tables()[name == "DTYPE_ZT_TO_TORCH"]
    raise AttributeError(f"module 'ztensor' has no attribute {name!r}")


def __dir__():
    # The API only: not the modules this file imports nor the private submodules.
    return sorted({*__all__, *_LAZY_MODULES, "__version__"})
