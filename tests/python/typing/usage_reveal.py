"""What mypy infers for the reads (tests/python/test_typing.py): on each
reveal_type line, `# R: a & b` lists text the revealed type must contain and
`R-not: c & d` text it must not (`|` joins a union's members). No revealed
type may be Any. Type-checked, never run."""

import z4ai
import ztensor
import ztensor.torch

blob = z4ai.compress(b"\0" * 8)
reveal_type(z4ai.decompress(blob))  # R: bytes  R-not: |
reveal_type(z4ai.decompress(blob, out=bytearray(8)))  # R: bytearray  R-not: |
reveal_type(z4ai.delta.decompress(blob, b"", out=bytearray(8)))  # R: bytearray  R-not: |
reveal_type(z4ai.decompress_delta(blob, b""))  # R: bytes  R-not: |
reveal_type(z4ai.decompress_array(blob))  # R: numpy.ndarray

src = ztensor.open("m.zt")
reveal_type(src.read("w"))  # R: numpy.ndarray & SparseArray & QuantizedGroup & GgufQuantized  R-not: torch
reveal_type(src.read("w", "torch"))  # R: torch._tensor.Tensor & QuantizedGroup & GgufQuantized  R-not: numpy
reveal_type(src.get_slice("w"))  # R: ztensor._slice.TensorSlice[numpy.ndarray
reveal_type(src.get_slice("w", "torch")[0:2])  # R: torch._tensor.Tensor
reveal_type(src["w"])  # R: numpy.ndarray & QuantizedGroup

old = ztensor.Reader("m.zt")
reveal_type(old.read("w"))  # R: ztensor._compat.Tensor
reveal_type(old.read(["w", "v"]))  # R: dict[str, ztensor._compat.Tensor]
reveal_type(old.read("w", "torch"))  # R: torch._tensor.Tensor

with ztensor.safe_open("m.zt", framework="pt") as pt:
    reveal_type(pt.get_tensor("w"))  # R: torch._tensor.Tensor  R-not: |
    reveal_type(pt.get_slice("w")[1:3])  # R: torch._tensor.Tensor
    reveal_type(pt.get_tensors())  # R: dict[str, torch._tensor.Tensor]
with ztensor.safe_open("m.zt", framework="np") as f:
    reveal_type(f.get_tensor("w"))  # R: numpy.ndarray  R-not: |
reveal_type(ztensor.torch.load_file("m.zt"))  # R: dict[str, torch._tensor.Tensor]
import ztensor.transformers  # noqa: E402
reveal_type(ztensor.transformers.from_pretrained("folder"))  # R: PreTrainedModel
