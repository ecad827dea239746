"""Code written against the ztensor 1.2.x package keeps working."""

import numpy as np
import pytest

import ztensor
from _util import same


def test_reader_getitem_and_writer_add(tmp_path):
    path = str(tmp_path / "c.zt")
    w = ztensor.Writer(path)
    w.add("a", np.arange(6, dtype=np.float32).reshape(2, 3))
    w.add("b", np.arange(3, dtype=np.int8), compress=True, checksum="sha256")
    w.add("c", np.arange(3, dtype=np.int8), compress=5, checksum="none")
    size = w.finish()
    assert size > 0
    r = ztensor.Reader(path)
    assert same(r["a"], np.arange(6, dtype=np.float32).reshape(2, 3))
    assert same(r["b"], np.arange(3, dtype=np.int8))
    assert r.object("b").components["data"].encoding == "zstd"
    assert r.object("c").components["data"].encoding == "zstd"
    assert r.keys() == ["a", "b", "c"] and len(r) == 3 and "a" in r
    with pytest.raises(KeyError):
        r["missing"]


def test_metadata_and_read_helpers(tmp_path):
    path = tmp_path / "c.zt"
    with ztensor.Writer(path) as w:
        w.write_numpy("a", np.zeros((2, 2), np.float32))
        w.add("b", np.ones(3, np.int64))
    with ztensor.Reader(path) as r:
        m = r.metadata("a")
        assert (m.name, m.dtype, m.shape, m.format, m.type) == ("a", "float32", [2, 2], "dense", None)
        assert m.components["data"]["dtype"] == "f32"
        assert [x.name for x in r.metadata(["a", "b"])] == ["a", "b"]
        assert same(r.get_tensor("b"), np.ones(3, np.int64))
        assert same(r.read_numpy("b"), np.ones(3, np.int64))
        both = r.read_tensors(["a", "b"])
        assert set(both) == {"a", "b"}
        assert r.format == "zt"


def test_read_torch_compat(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "c.zt"
    with ztensor.Writer(path) as w:
        w.write_torch("a", torch.arange(4))
    with ztensor.Reader(path) as r:
        assert torch.equal(r.read_torch("a"), torch.arange(4))
        assert torch.equal(r.read_torch(["a"])["a"], torch.arange(4))
