"""torch tensors through ztensor.Writer / Reader and ztensor.torch."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ztensor  # noqa: E402
import ztensor.torch as zt_torch  # noqa: E402

TORCH_DTYPES = {
    torch.float64: ("f64", None), torch.float32: ("f32", None), torch.float16: ("f16", None),
    torch.bfloat16: ("bf16", None), torch.int64: ("i64", None), torch.int32: ("i32", None),
    torch.int16: ("i16", None), torch.int8: ("i8", None), torch.uint64: ("u64", None),
    torch.uint32: ("u32", None), torch.uint16: ("u16", None), torch.uint8: ("u8", None),
    torch.bool: ("bool", None),
    torch.float8_e4m3fn: ("u8", "f8_e4m3fn"), torch.float8_e5m2: ("u8", "f8_e5m2"),
    torch.float8_e4m3fnuz: ("u8", "f8_e4m3fnuz"), torch.float8_e5m2fnuz: ("u8", "f8_e5m2fnuz"),
    torch.complex64: ("f32", "complex64"), torch.complex128: ("f64", "complex128"),
}


def _sample(dtype, shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype in (torch.uint16, torch.uint32, torch.uint64):
        return torch.randint(0, 1000, shape, generator=g).to(dtype)
    if not dtype.is_floating_point and not dtype.is_complex:
        info = torch.iinfo(dtype)
        return torch.randint(max(info.min, -2**31), min(info.max, 2**31 - 1), shape, generator=g).to(dtype)
    if dtype.is_complex:
        return torch.randn(shape, dtype=dtype, generator=g)
    return (torch.randint(-8, 8, shape, generator=g) / 2).to(dtype)


def _bytes(t):
    flat = t.resolve_conj().contiguous().reshape(-1)
    if flat.numel() <= 1:  # size-1 tensors may keep any stride
        flat = flat.as_strided((flat.numel(),), (1,))
    return flat.view(torch.uint8).tolist()


def _same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and _bytes(a) == _bytes(b)


@pytest.mark.parametrize("dtype", list(TORCH_DTYPES), ids=str)
@pytest.mark.parametrize("compression", [None, "zstd"])
def test_every_torch_dtype(tmp_path, dtype, compression):
    t = _sample(dtype, (3, 4))
    path = tmp_path / "t.zt"
    with ztensor.Writer(path) as w:
        w.add("t", t, compression=compression, checksum="sha256")
    with ztensor.open(path, verify=True) as r:
        c = r.object("t").components["data"]
        assert (c.dtype, c.type) == TORCH_DTYPES[dtype]
        out = r.read("t", framework="torch")
        assert _same(out, t)
    loaded = zt_torch.load_file(path)
    assert _same(loaded["t"], t)


def test_numpy_and_torch_files_agree(tmp_path):
    import ml_dtypes

    a = np.arange(6, dtype=np.float32).astype(ml_dtypes.bfloat16).reshape(2, 3)
    with ztensor.Writer(tmp_path / "n.zt") as w:
        w.add("x", a)
    with ztensor.Writer(tmp_path / "t.zt") as w:
        w.add("x", torch.arange(6, dtype=torch.float32).to(torch.bfloat16).reshape(2, 3))
    assert (tmp_path / "n.zt").read_bytes() == (tmp_path / "t.zt").read_bytes()


def test_scalar_zero_size_non_contiguous(tmp_path):
    tensors = {
        "scalar": torch.tensor(3.5),
        "empty": torch.zeros(0, 5),
        "transposed": torch.arange(12.0).reshape(3, 4).t(),
        "strided": torch.arange(20, dtype=torch.int32)[::3],
        "one_strided": torch.tensor([1 + 2j, 3 + 4j])[::2],
        "conj": torch.tensor([1 + 2j]).conj(),
    }
    path = tmp_path / "s.zt"
    with ztensor.Writer(path) as w:
        for k, v in tensors.items():
            w.add(k, v)
    loaded = zt_torch.load_file(path)
    for k, v in tensors.items():
        assert _same(loaded[k], v.resolve_conj().contiguous()), k


def test_load_file_tensors_are_writable_and_private(tmp_path):
    path = tmp_path / "w.zt"
    zt_torch.save_file({"a": torch.zeros(4), "z": torch.ones(4)}, path)
    before = path.read_bytes()
    loaded = zt_torch.load_file(path)
    loaded["a"] += 1
    assert loaded["a"].tolist() == [1.0] * 4
    assert path.read_bytes() == before, "writes must not reach the file"
    again = zt_torch.load_file(path)
    assert again["a"].tolist() == [0.0] * 4


def test_save_load_file_metadata(tmp_path):
    path = tmp_path / "m.zt"
    tensors = {"w": torch.randn(4, 4), "b": torch.zeros(4, dtype=torch.float16)}
    zt_torch.save_file(tensors, path, metadata={"format": "pt", "epoch": "3"})
    loaded = zt_torch.load_file(path)
    assert list(loaded) == ["w", "b"]
    for k in tensors:
        assert _same(loaded[k], tensors[k])
    with ztensor.open(path) as r:
        assert r.attributes == {"format": "pt", "epoch": "3"}
        assert r.metadata() == {"format": "pt", "epoch": "3"}
    with pytest.raises(TypeError):
        zt_torch.save_file(tensors, tmp_path / "x.zt", metadata={"epoch": 3})


def test_save_file_compressed(tmp_path):
    path = tmp_path / "c.zt"
    t = {"z": torch.zeros(1000, 100)}
    zt_torch.save_file(t, path, compression="zstd")
    assert path.stat().st_size < 20000
    assert _same(zt_torch.load_file(path)["z"], t["z"])


def test_save_load_bytes():
    tensors = {"a": torch.arange(10), "b": torch.randn(2, 2).to(torch.bfloat16)}
    data = zt_torch.save(tensors, metadata={"k": "v"})
    assert isinstance(data, bytes) and data[:8] == b"ZTEN1000"
    loaded = zt_torch.load(data)
    for k in tensors:
        assert _same(loaded[k], tensors[k])


def test_save_file_refuses_shared_tensors(tmp_path):
    a = torch.zeros(4)
    with pytest.raises(RuntimeError, match="share memory"):
        zt_torch.save_file({"a": a, "b": a}, tmp_path / "s.zt")
    assert not (tmp_path / "s.zt").exists()


class _Tied(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 4)
        self.head = torch.nn.Linear(4, 10, bias=True)
        self.head.weight = self.emb.weight  # tied
        self.register_buffer("steps", torch.tensor(7))


def test_save_model_tied_weights(tmp_path):
    path = tmp_path / "model.zt"
    m = _Tied()
    zt_torch.save_model(m, path, metadata={"arch": "tied"})
    with ztensor.open(path) as r:
        keys = set(r.keys())
        # one copy of the tied weight, the alias recorded in the attributes
        assert len(keys & {"emb.weight", "head.weight"}) == 1
        kept = (keys & {"emb.weight", "head.weight"}).pop()
        dropped = ({"emb.weight", "head.weight"} - {kept}).pop()
        assert r.attributes[dropped] == kept
        assert r.attributes["arch"] == "tied"
    m2 = _Tied()
    missing, unexpected = zt_torch.load_model(m2, path)
    assert missing == [] and unexpected == []
    assert torch.equal(m2.emb.weight, m.emb.weight)
    assert m2.head.weight.data_ptr() == m2.emb.weight.data_ptr(), "tying preserved"
    assert torch.equal(m2.head.bias, m.head.bias) and int(m2.steps) == 7


def test_load_model_strict(tmp_path):
    path = tmp_path / "model.zt"
    zt_torch.save_file({"emb.weight": torch.zeros(10, 4)}, path)
    m = _Tied()
    with pytest.raises(RuntimeError, match="Missing"):
        zt_torch.load_model(m, path)
    missing, unexpected = zt_torch.load_model(m, path, strict=False)
    assert "head.bias" in missing and "head.weight" not in missing and unexpected == []
    assert torch.equal(m.emb.weight, torch.zeros(10, 4))


def test_save_model_force_contiguous(tmp_path):
    m = torch.nn.Linear(3, 5)
    m.weight = torch.nn.Parameter(torch.randn(3, 5).t())  # non-contiguous parameter
    zt_torch.save_model(m, tmp_path / "fc.zt", force_contiguous=True)
    m2 = torch.nn.Linear(3, 5)
    zt_torch.load_model(m2, tmp_path / "fc.zt")
    assert torch.equal(m2.weight, m.weight)


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_torch_sparse(tmp_path):
    dense = torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, 3.0]])
    path = tmp_path / "sp.zt"
    with ztensor.Writer(path) as w:
        w.add("coo", dense.to_sparse())
        w.add("csr", dense.to_sparse_csr(), compression="zstd")
    with ztensor.open(path) as r:
        coo = r.read("coo", framework="torch")
        assert coo.layout == torch.sparse_coo and torch.equal(coo.to_dense(), dense)
        csr = r.read("csr", framework="torch")
        assert csr.layout == torch.sparse_csr and torch.equal(csr.to_dense(), dense)
        assert r.object("csr").format == "sparse_csr"


def test_quantized_group_torch(tmp_path):
    path = tmp_path / "q.zt"
    with ztensor.Writer(path) as w:
        w.add_quantized_group("q", torch.arange(16, dtype=torch.int32), torch.ones(4, dtype=torch.float16),
                              torch.zeros(4, dtype=torch.float16), (8, 16), bits=4, group_size=16,
                              packing="8_per_i32")
    with ztensor.open(path) as r:
        q = r.read("q", framework="torch")
        assert torch.equal(q.packed_weight, torch.arange(16, dtype=torch.int32))
        assert q.scales.dtype == torch.float16 and q.bits == 4
