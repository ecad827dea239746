"""Typed use of the public API: mypy --strict must accept this file (see
tests/python/test_typing.py). It is type-checked, never run."""

from typing import Dict, List

import numpy as np
import numpy.typing as npt

import z4ai
import ztensor
from ztensor.numpy import load_file, save_file


def roundtrip(path: str) -> List[str]:
    save_file({"w": np.zeros((2, 2), np.float32)}, path, compression="zstd", checksum="sha256")
    arrays: Dict[str, npt.NDArray[np.generic]] = load_file(path)
    with ztensor.open(path) as src:
        names: List[str] = src.keys()
        info: ztensor.ObjectInfo = src.object(names[0])
        shape = tuple(info.shape)
        fmt: str = src.format
    with ztensor.Writer(path, attributes={"k": "v"}) as w:
        w.add("w", arrays["w"], compression="z4ai", effort="balanced")
    size: int = w.finish() if False else 0
    t: ztensor.Tensor = ztensor.Reader(path).read("w")
    blob: bytes = z4ai.compress(np.zeros(4, np.float32).tobytes(), dtype="f32")
    return names + [fmt, str(shape), str(size), str(t.shape), str(len(blob))]


def typed_reads(path: str) -> float:
    """Each read has its framework's type: no cast, no Any."""
    with ztensor.safe_open(path, framework="pt") as f:
        total = float(f.get_tensor("w").sum()) + float(f.get_slice("w")[0:1].sum())
    with ztensor.safe_open(path, framework="np") as g:
        total += float(g.get_tensor("w").sum())
    obj = ztensor.open(path).read("w")
    if isinstance(obj, np.ndarray):  # dense; sparse and quantized objects are other types
        total += float(obj.sum())
    restored: bytes = z4ai.decompress(z4ai.compress(b"\0" * 8))
    into: bytearray = z4ai.decompress(z4ai.compress(b"\0" * 8), out=bytearray(8))
    return total + len(restored) + len(into)
