"""zTensor: read and write .zt tensor containers (spec v1.2).

    import ztensor
    with ztensor.Writer("model.zt", attributes={"framework": "numpy"}) as w:
        w.add("w", array, compression="zstd", checksum="sha256")
    with ztensor.open("model.zt") as r:
        r.read("w")

``ztensor.open`` also reads safetensors, GGUF, .npy/.npz, PyTorch zip
checkpoints and ONNX (detected by content); ``ztensor.convert(src, dst)``
turns any of them into .zt, safetensors or .npz.

``ztensor.numpy`` and ``ztensor.torch`` offer safetensors-style
``save_file``/``load_file``/``save``/``load``.
"""

from __future__ import annotations

import importlib

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
from ._reader import ComponentInfo, GgufQuantized, ObjectInfo, QuantizedGroup, Reader, TensorMetadata
from ._slice import TensorSlice
from ._fsspec import open_any
from ._writer import Writer
from ._convert import ConvertStats, convert, convert_many


def open(path, *, verify: bool = False) -> Reader:  # noqa: A001 (mirrors builtins.open)
    """Open and validate a .zt file, a sharded set's ``NAME.zt.index.json``,
    or any other format ztensor reads, detected by content (see
    :func:`ztensor._reader.open`). ``http://`` and ``https://`` URLs are read
    lazily with range requests; other URLs (``s3://``, ``gs://``, ``hf://``,
    ``memory://``...) of .zt, safetensors, GGUF and .npy files through fsspec
    when it is installed."""
    return open_any(path, verify=verify)


__version__ = "0.1.0"

__all__ = [
    "open",
    "convert",
    "convert_many",
    "ConvertStats",
    "Reader",
    "Writer",
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


def __getattr__(name):
    # `ztensor.torch` without importing torch up front.
    if name in ("numpy", "torch"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'ztensor' has no attribute {name!r}")
