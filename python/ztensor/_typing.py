"""Types of the public API for mypy and pyright (nothing at run time
depends on them): what ``read`` and ``get_tensor`` return per framework."""

from __future__ import annotations

from typing import Any, Literal, Protocol, Tuple

import numpy as np
import numpy.typing as npt

NumpyArray = npt.NDArray[Any]
# The framework= values that choose a return type.
NumpyFramework = Literal["numpy"]
TorchFramework = Literal["torch"]
# safe_open's names (safetensors'): "pt"/"torch"/"pytorch" and "np"/"numpy".
SafeOpenTorch = Literal["pt", "torch", "pytorch"]
SafeOpenNumpy = Literal["np", "numpy"]


class SparseArray(Protocol):
    """What the scipy.sparse arrays ``read`` returns for sparse objects offer
    (scipy ships no types)."""

    @property
    def shape(self) -> Tuple[int, ...]: ...

    @property
    def dtype(self) -> np.dtype[Any]: ...

    def toarray(self) -> NumpyArray: ...
