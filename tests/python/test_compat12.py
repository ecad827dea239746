"""The ztensor 1.2.x package's documented Python examples run unchanged on
ours. Each test is one documented example, shapes made small;
the comments name the 1.2.x API they exercise. ztensor.open stays the new API.
"""

import numpy as np
import pytest

import ztensor

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the examples write "model.zt" and friends


def test_quick_start_numpy():
    from ztensor.numpy import save_file, load_file

    save_file({"weight": np.random.randn(16, 8).astype(np.float32)}, "model.zt")
    tensors = load_file("model.zt")
    assert tensors["weight"].shape == (16, 8)


def test_save_file_compression_true_and_level():
    from ztensor.torch import save_file, load_file

    tensors = {"weight": torch.randn(16, 8), "bias": torch.zeros(8)}
    save_file(tensors, "model.zt")
    save_file(tensors, "model.zt", compression=True)
    with ztensor.open("model.zt") as r:
        assert r.object("weight").components["data"].encoding == "zstd"
    save_file(tensors, "model.zt", compression=10)
    loaded = load_file("model.zt")
    assert torch.equal(loaded["weight"], tensors["weight"])
    loaded = load_file("model.zt", copy=True)
    loaded["weight"] += 1  # independent copies
    assert torch.equal(load_file("model.zt")["weight"], tensors["weight"])


def test_numpy_load_file_copy():
    from ztensor.numpy import save_file, load_file

    save_file({"x": np.ones(4, np.float32)}, "model.zt", compression=False)
    arrays = load_file("model.zt", copy=True)
    arrays["x"][0] = 5  # copy=True arrays are writable
    assert load_file("model.zt")["x"][0] == 1


def test_model_save_load():
    from ztensor.torch import save_model, load_model

    model = torch.nn.Linear(10, 5)
    save_model(model, "model.zt")
    model2 = torch.nn.Linear(10, 5)
    missing, unexpected = load_model(model2, "model.zt")
    assert (missing, unexpected) == ([], [])
    assert torch.equal(model.weight, model2.weight)
    missing, unexpected = load_model(torch.nn.Linear(10, 5), "model.zt", copy=True)


def test_reader_dict_access_and_metadata():
    from ztensor import Reader, Writer

    with Writer("model.zt") as w:
        w.add("weights", np.random.randn(32, 16).astype(np.float32))
        w.add("bias", np.zeros(16, dtype=np.float32))
        w.add("compressed", np.ones(8, np.float32), compress=True)
        w.add("verified", np.ones(8, np.float32), checksum="crc32c")
    reader = Reader("model.zt")
    weights = reader["weights"]
    assert isinstance(weights, np.ndarray) and weights.shape == (32, 16)
    assert "bias" in reader and len(reader) == 4 and list(reader) == reader.keys()
    meta = reader.metadata("weights")
    assert (meta.shape, meta.dtype) == ([32, 16], "float32")
    assert isinstance(reader.read_tensor("bias"), np.ndarray)
    assert set(reader.read_tensors(["weights", "bias"])) == {"weights", "bias"}
    assert set(reader.load_numpy()) == set(reader.keys())
    assert set(reader.load_torch()) == set(reader.keys())
    assert reader.format == "zt"


def test_reader_read_returns_tensor_objects():
    # 1.2.3: Reader.read(name) -> ztensor.Tensor; read([names]) -> dict of them
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    with ztensor.Writer("model.zt") as w:
        w.write_numpy("a", a)
        w.write_torch("t", torch.arange(4, dtype=torch.int16))
    with ztensor.Reader("model.zt") as r:
        t = r.read("a")
        assert isinstance(t, ztensor.Tensor)
        assert (t.shape, t.dtype, t.format, t.type) == ([2, 3], "float32", "dense", None)
        assert np.array_equal(t.numpy(), a)
        assert torch.equal(t.torch(), torch.from_numpy(a))
        many = r.read(["a", "t"])
        assert set(many) == {"a", "t"} and all(isinstance(v, ztensor.Tensor) for v in many.values())
        assert torch.equal(r.read_torch("t"), torch.arange(4, dtype=torch.int16))
        assert set(r.read_numpy(["a", "t"])) == {"a", "t"}
    with ztensor.open("model.zt") as src:  # the new API: arrays
        assert isinstance(src.read("a"), np.ndarray)


def test_writer_write_tensor_any_format():
    dense = ztensor.Tensor({"data": np.arange(4, dtype=np.int32)})
    csr = ztensor.Tensor({"values": np.array([1.0, 2.0], np.float32), "indices": np.array([0, 1], np.uint64),
                          "indptr": np.array([0, 1, 2], np.uint64)}, shape=[2, 2], format="sparse_csr")
    w = ztensor.Writer("model.zt")
    w.write("d", dense, compress=True, checksum="sha256")
    w.write("s", csr)
    assert w.finish() > 0
    r = ztensor.Reader("model.zt")
    assert np.array_equal(r["d"], np.arange(4, dtype=np.int32))
    s = r.read("s")
    assert s.format == "sparse_csr" and s.shape == [2, 2] and s.dtype == "float32"
    assert np.array_equal(s.components["values"], [1.0, 2.0])


def test_read_into_numpy_torch_and_batch():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    with ztensor.Writer("model.zt") as w:
        w.add("a", a)
        w.add("b", np.ones(3, np.float32), compress=True)
    r = ztensor.Reader("model.zt")
    dst = np.empty((2, 3), np.float32)
    r.read_into("a", dst)
    assert np.array_equal(dst, a)
    t = torch.empty(2, 3)
    r.read_into("a", t)
    assert torch.equal(t, torch.from_numpy(a))
    targets = {"a": np.zeros((2, 3), np.float32), "b": torch.zeros(3)}
    r.read_into(targets)
    assert np.array_equal(targets["a"], a) and torch.equal(targets["b"], torch.ones(3))
    with pytest.raises(ValueError):
        r.read_into("a", np.empty((3, 3), np.float32))
    with pytest.raises(TypeError):
        r.read_into("a")


def test_writer_append():
    with ztensor.Writer("model.zt", attributes={"k": "v"}) as w:
        w.add("a", np.arange(3, dtype=np.int64), compress=True, checksum="sha256")
    w = ztensor.Writer.append("model.zt")
    w.write_numpy("b", np.ones(2, np.float64))
    w.finish()
    r = ztensor.Reader("model.zt")
    assert r.keys() == ["a", "b"] and r.attributes == {"k": "v"}
    c = r.object("a").components["data"]
    assert c.encoding == "zstd" and c.digest.startswith("sha256:")
    r.verify()
    assert np.array_equal(r["a"], np.arange(3)) and np.array_equal(r["b"], np.ones(2))


def test_remove_tensors_and_replace_tensor():
    with ztensor.Writer("model.zt") as w:
        w.add("a", np.zeros((2, 3), np.float32), checksum="crc32c")
        w.add("b", np.ones(2, np.int8))
        w.add("z", np.ones(2, np.int8), compress=True)
    assert ztensor.remove_tensors("model.zt", "small.zt", ["b"]) is None
    assert ztensor.Reader("small.zt").keys() == ["a", "z"]
    with pytest.raises(KeyError):
        ztensor.remove_tensors("model.zt", "x.zt", ["nope"])
    ztensor.replace_tensor("model.zt", "a", np.arange(6, dtype=np.float32))  # same bytes, stored shape kept
    r = ztensor.Reader("model.zt")
    assert np.array_equal(r["a"], np.arange(6, dtype=np.float32).reshape(2, 3))
    r.verify()  # the digest follows the new bytes
    with pytest.raises(ztensor.ZTensorError):
        ztensor.replace_tensor("model.zt", "a", np.zeros(6, np.float64))  # 48 bytes, not 24
    with pytest.raises(ztensor.UnsupportedError):
        ztensor.replace_tensor("model.zt", "z", np.zeros(2, np.int8))  # compressed


def test_dtype_tables():
    assert ztensor.DTYPE_NP_TO_ZT[np.dtype("float32")] == "float32"
    assert ztensor.DTYPE_ZT_TO_NP["int8"] == np.dtype("int8")
    assert ztensor.DTYPE_TORCH_TO_ZT[torch.bfloat16] == "bfloat16"
    assert ztensor.DTYPE_ZT_TO_TORCH["float16"] is torch.float16


def test_bytes_api():
    from ztensor.torch import save, load

    assert torch.equal(load(save({"x": torch.zeros(10)}))["x"], torch.zeros(10))
    from ztensor.numpy import save, load

    assert np.array_equal(load(save({"x": np.zeros(10, dtype=np.float32)}))["x"], np.zeros(10))


def test_error_is_ztensor_error():
    from ztensor import Reader, ZTensorError

    with pytest.raises(ZTensorError):
        with Reader("nonexistent.zt"):
            pass
