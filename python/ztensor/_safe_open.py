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
from typing import Any, Dict, List, Optional, Union

from ._fsspec import open_any
from ._slice import TensorSlice
from .errors import error

# safetensors' framework names for the two this package produces.
_FRAMEWORKS = {"pt": "torch", "torch": "torch", "pytorch": "torch", "np": "numpy", "numpy": "numpy"}


class safe_open:  # noqa: N801 (safetensors' name)
    """Open ``filename`` (a .zt, safetensors, .zstn, GGUF, ... path, or any
    URL :func:`ztensor.open` takes, with its ``storage_options``) for lazy
    per-tensor reads in ``framework`` ("pt" or "np"), tensors placed on
    ``device`` (torch only)."""

    def __init__(self, filename: Union[str, os.PathLike], framework: str, device: Union[str, int] = "cpu", *,
                 storage_options: Optional[Dict[str, Any]] = None):
        fw = _FRAMEWORKS.get(framework)
        if fw is None:
            raise error("unsupported", f"safe_open: framework {framework!r} is not supported; "
                                       f"use one of {sorted(_FRAMEWORKS)}")
        if fw == "numpy" and str(device) != "cpu":
            raise error("invalid_argument", f"safe_open: numpy arrays live on the cpu, not {device!r}")
        self._framework = fw
        self._device = f"cuda:{device}" if isinstance(device, int) else device
        self._src = open_any(filename, storage_options=storage_options)

    def __enter__(self) -> "safe_open":
        return self

    def __exit__(self, *exc: Any) -> None:
        self._src.close()

    def keys(self) -> List[str]:
        return self._src.keys()

    def offset_keys(self) -> List[str]:
        """Names in file order (safetensors orders them by data offset)."""
        return self._src.keys()

    def metadata(self) -> Optional[Dict[str, str]]:
        """The file's string attributes (safetensors' ``__metadata__``), or None."""
        meta = {k: v for k, v in self._src.attributes.items() if isinstance(k, str) and isinstance(v, str)}
        return meta or None

    def get_tensor(self, name: str) -> Any:
        t = self._src.read(name, self._framework)
        if self._framework == "torch" and str(self._device) != "cpu":
            t = t.to(self._device)
        return t

    def get_slice(self, name: str) -> TensorSlice:
        return self._src.get_slice(name, self._framework)
