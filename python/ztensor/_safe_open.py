"""ztensor.safe_open: the safetensors ``safe_open`` interface over any file
ztensor reads, so code written for safetensors switches by changing its
import::

    from ztensor import safe_open          # was: from safetensors import safe_open
    with safe_open("model.zt", framework="pt", device="cpu") as f:
        for k in f.keys():
            t = f.get_tensor(k)
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Dict, Generic, List, Optional, TypeVar, Union, cast, overload

import numpy as np

from ._files import copies
from ._fsspec import open_any
from ._read_ahead import ReadAhead
from ._slice import TensorSlice
from ._typing import NumpyArray, SafeOpenNumpy, SafeOpenTorch
from .errors import error

if TYPE_CHECKING:
    import torch

# safetensors' framework names for the two this package produces.
_FRAMEWORKS = {"pt": "torch", "torch": "torch", "pytorch": "torch", "np": "numpy", "numpy": "numpy"}

# torch.Tensor or a numpy array, per the framework the file was opened for.
T = TypeVar("T")


class safe_open(Generic[T]):  # noqa: N801 (safetensors' name)
    """Open ``filename`` (a .zt, safetensors, .zstn, GGUF, ... path, or any
    URL :func:`ztensor.open` takes, with its ``storage_options``) for lazy
    per-tensor reads in ``framework`` ("pt" or "np"), tensors placed on
    ``device`` (torch only). ``backend="pread"`` gives tensors with memory
    of their own instead of views of the file's mapping (safetensors'
    meaning); "mmap" is the default.

    ``get_tensor`` returns tensors only, as safetensors does: an object
    that is not one in ``framework`` (a quantized group, GGUF blocks, a
    sparse object in numpy) raises UnsupportedError; read those with
    ``ztensor.open(path).read(name)``.

    Compressed tensors, and every tensor of a URL, are read ahead: a
    ``get_tensor`` that misses fetches and decodes the next tensors of
    ``keys()``' order with it on ``threads`` threads (0 = all cores), up to
    256 MiB of stored bytes, so a loop over ``keys()`` uses every core."""

    @overload
    def __init__(self: "safe_open[torch.Tensor]", filename: Union[str, os.PathLike[str]], framework: SafeOpenTorch,
                 device: Union[str, int] = ..., *, backend: str = ...,
                 storage_options: Optional[Dict[str, Any]] = ..., threads: int = ...) -> None: ...

    @overload
    def __init__(self: "safe_open[NumpyArray]", filename: Union[str, os.PathLike[str]], framework: SafeOpenNumpy,
                 device: Union[str, int] = ..., *, backend: str = ...,
                 storage_options: Optional[Dict[str, Any]] = ..., threads: int = ...) -> None: ...

    @overload
    def __init__(self: "safe_open[Any]", filename: Union[str, os.PathLike[str]], framework: str,
                 device: Union[str, int] = ..., *, backend: str = ...,
                 storage_options: Optional[Dict[str, Any]] = ..., threads: int = ...) -> None: ...

    def __init__(self, filename: Union[str, os.PathLike[str]], framework: str, device: Union[str, int] = "cpu", *,
                 backend: str = "mmap", storage_options: Optional[Dict[str, Any]] = None, threads: int = 0) -> None:
        fw = _FRAMEWORKS.get(framework)
        if fw is None:
            raise error("unsupported", f"safe_open: framework {framework!r} is not supported; "
                                       f"use one of {sorted(_FRAMEWORKS)}")
        if fw == "numpy" and str(device) != "cpu":
            raise error("invalid_argument", f"safe_open: numpy arrays live on the cpu, not {device!r}")
        self._framework = fw
        self._device = f"cuda:{device}" if isinstance(device, int) else device
        self._copy = copies(backend)
        self._src = open_any(filename, storage_options=storage_options)
        self._ahead = ReadAhead(self._src, fw, threads, self._copy)

    def __enter__(self) -> "safe_open[T]":
        return self

    def __exit__(self, *exc: Any) -> None:
        self._src.close()

    def keys(self) -> List[str]:
        """Names sorted (as safetensors returns them); offset_keys() gives file order."""
        return sorted(self._src.keys())

    def offset_keys(self) -> List[str]:
        """Names in file order (safetensors orders them by data offset)."""
        return self._src.keys()

    def metadata(self) -> Optional[Dict[str, str]]:
        """The file's string attributes (safetensors' ``__metadata__``), or None."""
        meta = {k: v for k, v in self._src.attributes.items() if isinstance(k, str) and isinstance(v, str)}
        return meta or None

    def get_tensor(self, name: str) -> T:
        t = self._ahead.get(name)
        if t is None:
            t = self._src.read(name, self._framework, copy=self._copy)
        if self._framework == "torch":
            import torch

            if not isinstance(t, torch.Tensor):
                raise self._not_a_tensor(name)
            if str(self._device) != "cpu":
                t = t.to(self._device)
        elif not isinstance(t, np.ndarray):  # a scipy.sparse array or a group
            raise self._not_a_tensor(name)
        return cast(T, t)

    def _not_a_tensor(self, name: str) -> Exception:
        fmt = self._src.object(name).format
        return error("unsupported", f"safe_open: object '{name}' is {fmt}, not a {self._framework} tensor; read it "
                                    f"with ztensor.open(path).read('{name}', '{self._framework}')")

    def get_tensors(self) -> Dict[str, T]:
        """Every tensor, by name in file order (safetensors' get_tensors);
        compressed and remote ones fetched and decoded in one batch."""
        self._ahead.hold_all()
        return {k: self.get_tensor(k) for k in self.offset_keys()}

    def get_slice(self, name: str) -> TensorSlice[T]:
        return cast(TensorSlice[T], self._src.get_slice(name, self._framework))
