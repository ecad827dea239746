"""The safetensors switch: code written for safetensors runs on ztensor by
changing its import. Each case below makes the same calls of safetensors'
documented Python API (safetensors.torch, safetensors.numpy, safe_open and
the top-level functions) through `safetensors` and through `ztensor`, on the
same data, and compares what comes back (values with their dtypes and
shapes, or the kind of error). docs/interop.md lists every case that
differs; the test fails when that list and the behaviour disagree, either
way."""

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import ztensor

torch = pytest.importorskip("torch")
safetensors = pytest.importorskip("safetensors")
import safetensors.numpy  # noqa: E402
import safetensors.torch  # noqa: E402

import ztensor.numpy  # noqa: E402
import ztensor.torch  # noqa: E402

ST = SimpleNamespace(top=safetensors, torch=safetensors.torch, numpy=safetensors.numpy, safe_open=safetensors.safe_open)
ZT = SimpleNamespace(top=ztensor, torch=ztensor.torch, numpy=ztensor.numpy, safe_open=ztensor.safe_open)
INTEROP = Path(__file__).resolve().parents[2] / "docs" / "interop.md"

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def pt_tensors():
    g = torch.Generator().manual_seed(0)
    return {"w": torch.randn(4, 3, generator=g), "b16": torch.randn(3, generator=g).to(torch.bfloat16),
            "h": torch.randn(2, 2, generator=g).to(torch.float16), "i": torch.arange(6).reshape(2, 3),
            "m": torch.tensor([True, False]), "s": torch.tensor(3.5), "z": torch.zeros(0, 4),
            "u8": torch.arange(5, dtype=torch.uint8), "f8": torch.randn(3, generator=g).to(torch.float8_e4m3fn),
            "a": torch.randn(2, 5, generator=g).double()}


def np_tensors():
    rng = np.random.default_rng(0)
    return {"w": rng.standard_normal((4, 3)).astype(np.float32), "h": rng.standard_normal(3).astype(np.float16),
            "i": np.arange(6, dtype=np.int32).reshape(2, 3), "m": np.array([True, False]),
            "s": np.array(2.5, np.float64), "z": np.zeros((0, 4), np.float32), "u": np.arange(4, dtype=np.uint16)}


class Tied(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(6, 4)
        self.head = torch.nn.Linear(4, 6, bias=False)
        self.head.weight = self.embed.weight
        self.norm = torch.nn.LayerNorm(4)


def tied_model():
    torch.manual_seed(0)
    return Tied()


def norm(x):
    """A comparable value: tensors and arrays by dtype, shape and bytes."""
    if isinstance(x, torch.Tensor):
        t = x.detach().cpu().contiguous()
        return ("pt", str(t.dtype), tuple(t.shape), t.reshape(-1).view(torch.uint8).numpy().tobytes())
    if isinstance(x, np.ndarray):
        return ("np", str(x.dtype), x.shape, np.ascontiguousarray(x).tobytes())
    if isinstance(x, dict):
        return ("dict", sorted((k, norm(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return [norm(v) for v in x]
    return x


def error_kind(e):
    for cls in (FileNotFoundError, KeyError, IndexError, AttributeError, TypeError, ValueError, RuntimeError):
        if isinstance(e, cls):
            return cls.__name__
    return "Exception"  # safetensors.SafetensorError derives from Exception only


def outcome(fn, lib, tmp):
    tmp.mkdir()
    try:
        return ("ok", norm(fn(lib, tmp)))
    except Exception as e:  # the kind of error is part of what is compared
        return ("error", error_kind(e))


# --- safetensors.torch ------------------------------------------------------

@case
def pt_save_file_load_file(lib, tmp):
    lib.torch.save_file(pt_tensors(), tmp / "m.safetensors")
    return lib.torch.load_file(tmp / "m.safetensors")


@case
def pt_save_file_read_by_safetensors(lib, tmp):
    lib.torch.save_file(pt_tensors(), tmp / "m.safetensors", metadata={"format": "pt", "k": "v"})
    with safetensors.safe_open(tmp / "m.safetensors", framework="pt") as f:
        return safetensors.torch.load_file(tmp / "m.safetensors"), f.metadata()


@case
def pt_save_file_same_bytes(lib, tmp):
    lib.torch.save_file(pt_tensors(), tmp / "m.safetensors", metadata={"format": "pt"})
    return (tmp / "m.safetensors").read_bytes()


@case
def pt_save_file_load_file_dict_order(lib, tmp):
    lib.torch.save_file(pt_tensors(), tmp / "m.safetensors")
    return list(lib.torch.load_file(tmp / "m.safetensors"))


@case
def pt_save_file_other_extension_read_by_safetensors(lib, tmp):
    lib.torch.save_file(pt_tensors(), tmp / "weights.bin")
    return safetensors.torch.load_file(tmp / "weights.bin")


@case
def pt_save_file_shared_tensors(lib, tmp):
    a = torch.zeros(4)
    lib.torch.save_file({"a": a, "b": a}, tmp / "m.safetensors")


@case
def pt_save_file_views_of_one_buffer_that_do_not_overlap(lib, tmp):
    base = torch.arange(8.0)
    lib.torch.save_file({"lo": base[:4], "hi": base[4:]}, tmp / "m.safetensors")
    return lib.torch.load_file(tmp / "m.safetensors")


@case
def pt_load_file_then_save_file(lib, tmp):
    lib.torch.save_file(pt_tensors(), tmp / "a.safetensors")
    lib.torch.save_file(lib.torch.load_file(tmp / "a.safetensors"), tmp / "b.safetensors")
    return lib.torch.load_file(tmp / "b.safetensors")


@case
def pt_save_file_non_contiguous(lib, tmp):
    lib.torch.save_file({"t": torch.arange(12.0).reshape(3, 4).t()}, tmp / "m.safetensors")
    return lib.torch.load_file(tmp / "m.safetensors")


@case
def pt_save_file_not_a_tensor(lib, tmp):
    lib.torch.save_file({"t": [1.0, 2.0]}, tmp / "m.safetensors")


@case
def pt_save_file_metadata_not_str(lib, tmp):
    lib.torch.save_file({"t": torch.zeros(2)}, tmp / "m.safetensors", metadata={"k": 1})


@case
def pt_save_file_empty(lib, tmp):
    lib.torch.save_file({}, tmp / "m.safetensors")
    return lib.torch.load_file(tmp / "m.safetensors")


@case
def pt_save_load(lib, tmp):
    return lib.torch.load(lib.torch.save(pt_tensors(), metadata={"k": "v"}))


@case
def pt_save_read_by_safetensors(lib, tmp):
    return safetensors.torch.load(lib.torch.save(pt_tensors()))


@case
def pt_load_safetensors_bytes(lib, tmp):
    return lib.torch.load(safetensors.torch.save(pt_tensors()))


@case
def pt_load_file_device_cpu(lib, tmp):
    safetensors.torch.save_file(pt_tensors(), tmp / "m.safetensors")
    return lib.torch.load_file(tmp / "m.safetensors", device="cpu")


@case
def pt_load_file_backend_pread(lib, tmp):
    safetensors.torch.save_file(pt_tensors(), tmp / "m.safetensors")
    return lib.torch.load_file(tmp / "m.safetensors", backend="pread")


@case
def pt_load_file_writes_stay_in_memory(lib, tmp):
    safetensors.torch.save_file({"w": torch.zeros(4)}, tmp / "m.safetensors")
    lib.torch.load_file(tmp / "m.safetensors")["w"].add_(1)
    return lib.torch.load_file(tmp / "m.safetensors")


@case
def pt_load_file_missing(lib, tmp):
    lib.torch.load_file(tmp / "absent.safetensors")


@case
def pt_load_file_not_safetensors(lib, tmp):
    (tmp / "m.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}      ")
    lib.torch.load_file(tmp / "m.safetensors")


@case
def pt_save_model_load_model(lib, tmp):
    lib.torch.save_model(tied_model(), tmp / "m.safetensors", metadata={"k": "v"})
    with safetensors.safe_open(tmp / "m.safetensors", framework="pt") as f:
        stored = sorted(f.keys()), f.metadata()
    fresh = Tied()
    result = lib.torch.load_model(fresh, tmp / "m.safetensors")
    return stored, result, fresh.state_dict(), fresh.head.weight is fresh.embed.weight


@case
def pt_save_model_force_contiguous(lib, tmp):
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 4)
    model.weight = torch.nn.Parameter(torch.arange(12.0).reshape(3, 4).t())
    lib.torch.save_model(model, tmp / "m.safetensors", force_contiguous=True)
    return safetensors.torch.load_file(tmp / "m.safetensors")


@case
def pt_load_model_missing_key_strict(lib, tmp):
    safetensors.torch.save_file({"weight": torch.zeros(4, 3)}, tmp / "m.safetensors")
    lib.torch.load_model(torch.nn.Linear(3, 4), tmp / "m.safetensors")


@case
def pt_load_model_not_strict(lib, tmp):
    safetensors.torch.save_file({"weight": torch.ones(4, 3), "extra": torch.ones(1)}, tmp / "m.safetensors")
    model = torch.nn.Linear(3, 4)
    missing, unexpected = lib.torch.load_model(model, tmp / "m.safetensors", strict=False)
    return sorted(missing), sorted(unexpected), model.weight


# --- safetensors.numpy ------------------------------------------------------

@case
def np_save_file_load_file(lib, tmp):
    lib.numpy.save_file(np_tensors(), tmp / "m.safetensors", metadata={"k": "v"})
    return lib.numpy.load_file(tmp / "m.safetensors")


@case
def np_save_file_read_by_safetensors(lib, tmp):
    lib.numpy.save_file(np_tensors(), tmp / "m.safetensors", metadata={"k": "v"})
    with safetensors.safe_open(tmp / "m.safetensors", framework="np") as f:
        return safetensors.numpy.load_file(tmp / "m.safetensors"), f.metadata()


@case
def np_save_file_big_endian(lib, tmp):
    lib.numpy.save_file({"b": np.arange(4, dtype=">i4")}, tmp / "m.safetensors")
    return safetensors.numpy.load_file(tmp / "m.safetensors")


@case
def np_save_file_non_contiguous(lib, tmp):
    lib.numpy.save_file({"t": np.arange(12.0).reshape(3, 4).T}, tmp / "m.safetensors")
    return safetensors.numpy.load_file(tmp / "m.safetensors")


@case
def np_save_load(lib, tmp):
    return lib.numpy.load(lib.numpy.save(np_tensors()))


@case
def np_load_safetensors_bytes(lib, tmp):
    return lib.numpy.load(safetensors.numpy.save(np_tensors()))


@case
def np_load_file_backend_pread(lib, tmp):
    safetensors.numpy.save_file(np_tensors(), tmp / "m.safetensors")
    return lib.numpy.load_file(tmp / "m.safetensors", backend="pread")


@case
def np_load_file_arrays_writable(lib, tmp):
    safetensors.numpy.save_file(np_tensors(), tmp / "m.safetensors")
    return lib.numpy.load_file(tmp / "m.safetensors")["w"].flags.writeable


# --- safe_open ----------------------------------------------------------------

def _st_file(tmp, metadata=None):
    safetensors.torch.save_file(pt_tensors(), tmp / "m.safetensors", metadata=metadata)
    return tmp / "m.safetensors"


@case
def safe_open_keys(lib, tmp):
    with lib.safe_open(_st_file(tmp), framework="pt") as f:
        return f.keys()


@case
def safe_open_offset_keys(lib, tmp):
    with lib.safe_open(_st_file(tmp), framework="pt") as f:
        return f.offset_keys()


@case
def safe_open_metadata(lib, tmp):
    with lib.safe_open(_st_file(tmp, {"format": "pt", "a": "b"}), framework="pt") as f:
        return f.metadata()


@case
def safe_open_metadata_none(lib, tmp):
    with lib.safe_open(_st_file(tmp), framework="pt") as f:
        return f.metadata()


def _all_tensors(lib, tmp, framework, **kwargs):
    with lib.safe_open(_st_file(tmp), framework=framework, **kwargs) as f:
        return {k: f.get_tensor(k) for k in f.keys() if framework == "pt" or k not in ("b16", "f8")}


@case
def safe_open_pt_get_tensor(lib, tmp):
    return _all_tensors(lib, tmp, "pt")


@case
def safe_open_np_get_tensor(lib, tmp):
    safetensors.numpy.save_file(np_tensors(), tmp / "n.safetensors")
    with lib.safe_open(tmp / "n.safetensors", framework="np") as f:
        return {k: f.get_tensor(k) for k in f.keys()}


@case
def safe_open_np_bf16(lib, tmp):
    with lib.safe_open(_st_file(tmp), framework="np") as f:
        return f.get_tensor("b16")


@case
def safe_open_get_tensors(lib, tmp):
    with lib.safe_open(_st_file(tmp), framework="pt") as f:
        return f.get_tensors()


@case
def safe_open_backend_pread(lib, tmp):
    return _all_tensors(lib, tmp, "pt", backend="pread")


@case
def safe_open_framework_names(lib, tmp):
    path = _st_file(tmp)
    out = []
    for framework in ("pt", "torch", "pytorch", "np", "numpy"):
        with lib.safe_open(path, framework=framework, device="cpu") as f:
            out.append(f.get_tensor("w"))
    return out


@case
def safe_open_framework_tensorflow(lib, tmp):
    with lib.safe_open(_st_file(tmp), framework="tf") as f:
        return f.get_tensor("w")


@case
def safe_open_get_slice(lib, tmp):
    with lib.safe_open(_st_file(tmp), framework="pt") as f:
        s = f.get_slice("a")
        return [s.get_shape(), s.get_dtype(), s[1:2], s[:, ::2], s[..., 0], s[-1], s[0:0], s[:, 1:4:2]]


@case
def safe_open_get_slice_dtype_names(lib, tmp):
    with lib.safe_open(_st_file(tmp), framework="pt") as f:
        return [f.get_slice(k).get_dtype() for k in sorted(f.keys())]


@case
def safe_open_get_slice_index_out_of_range(lib, tmp):
    with lib.safe_open(_st_file(tmp), framework="pt") as f:
        return f.get_slice("a")[7]


@case
def safe_open_missing_key(lib, tmp):
    with lib.safe_open(_st_file(tmp), framework="pt") as f:
        f.get_tensor("absent")


@case
def safe_open_missing_file(lib, tmp):
    lib.safe_open(tmp / "absent.safetensors", framework="pt")


@case
def safe_open_unknown_framework(lib, tmp):
    lib.safe_open(_st_file(tmp), framework="nosuch")


@case
def safe_open_after_close(lib, tmp):
    with lib.safe_open(_st_file(tmp), framework="pt") as f:
        pass
    return f.get_tensor("w")


# --- the top-level functions ----------------------------------------------------

@case
def top_serialize_deserialize(lib, tmp):
    t = torch.arange(4, dtype=torch.float32)
    spec = lib.top.TensorSpec(dtype="float32", shape=[4], data_ptr=t.data_ptr(), data_len=16)
    return lib.top.deserialize(lib.top.serialize({"t": spec}))


@case
def top_serialize_file(lib, tmp):
    t = torch.arange(4, dtype=torch.float32)
    spec = lib.top.TensorSpec(dtype="float32", shape=[4], data_ptr=t.data_ptr(), data_len=16)
    lib.top.serialize_file({"t": spec}, tmp / "m.safetensors")
    return safetensors.torch.load_file(tmp / "m.safetensors")


@case
def top_error_class(lib, tmp):
    return issubclass(lib.top.SafetensorError, Exception)


# ---------------------------------------------------------------------------

def documented_differences():
    """The case names listed in docs/interop.md's table of differences."""
    text = INTEROP.read_text()
    section = text.split("## Switching from safetensors", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `(\w+)` \|", section, re.M))


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_behaves_as_documented(tmp_path, name):
    ours, theirs = outcome(CASES[name], ZT, tmp_path / "zt"), outcome(CASES[name], ST, tmp_path / "st")
    if name in documented_differences():
        assert ours != theirs, f"{name} now behaves like safetensors: take it out of docs/interop.md"
    else:
        assert ours == theirs, f"{name} differs from safetensors and docs/interop.md does not say so"


def test_every_documented_difference_is_a_case():
    assert documented_differences() <= set(CASES)
