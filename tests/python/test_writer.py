"""ztensor.Writer: atomic publish, abort, formats through add_object."""

import os

import numpy as np
import pytest

import ztensor
import ztensor.numpy
from _util import read_manifest, same


def _siblings(path):
    return sorted(os.listdir(path.parent))


def test_exception_inside_with_leaves_nothing(tmp_path):
    dest = tmp_path / "out.zt"
    with pytest.raises(RuntimeError, match="boom"):
        with ztensor.Writer(dest) as w:
            w.add("a", np.zeros(1000))
            raise RuntimeError("boom")
    assert not dest.exists()
    assert _siblings(dest) == [], "no temporary file may be left behind"


def test_non_durable_writer_is_still_atomic_and_byte_identical(tmp_path):
    data = {"w": np.arange(12, dtype=np.float32).reshape(3, 4), "b": np.ones(5, np.int8)}
    ztensor.numpy.save_file(data, tmp_path / "durable.zt")
    ztensor.numpy.save_file(data, tmp_path / "fast.zt", durable=False)
    assert (tmp_path / "durable.zt").read_bytes() == (tmp_path / "fast.zt").read_bytes()
    dest = tmp_path / "gone.zt"
    with pytest.raises(RuntimeError, match="boom"):
        with ztensor.Writer(dest, durable=False) as w:
            w.add("a", np.zeros(1000))
            raise RuntimeError("boom")
    assert _siblings(dest) == ["durable.zt", "fast.zt"]


def test_exception_keeps_existing_destination(tmp_path):
    dest = tmp_path / "out.zt"
    with ztensor.Writer(dest) as w:
        w.add("old", np.ones(3))
    before = dest.read_bytes()
    with pytest.raises(KeyError):
        with ztensor.Writer(dest) as w:
            w.add("new", np.zeros(3))
            raise KeyError("x")
    assert dest.read_bytes() == before
    assert _siblings(dest) == ["out.zt"]


def test_nothing_visible_before_finish(tmp_path):
    dest = tmp_path / "out.zt"
    w = ztensor.Writer(dest)
    w.add("a", np.zeros(10))
    assert not dest.exists()
    size = w.finish()
    assert dest.exists() and size == dest.stat().st_size


def test_abort_and_garbage_collected_writer(tmp_path):
    dest = tmp_path / "out.zt"
    w = ztensor.Writer(dest)
    w.add("a", np.zeros(10))
    w.abort()
    assert _siblings(dest) == []
    w2 = ztensor.Writer(dest)
    w2.add("a", np.zeros(10))
    del w2
    assert _siblings(dest) == []


def test_use_after_finish_is_an_error(tmp_path):
    w = ztensor.Writer(tmp_path / "x.zt")
    w.finish()
    with pytest.raises(ztensor.ZTensorError):
        w.add("a", np.zeros(1))


def test_unwritable_destination(tmp_path):
    with pytest.raises(ztensor.ZTensorIOError):
        ztensor.Writer(tmp_path / "no" / "such" / "dir" / "x.zt")


def test_empty_file(tmp_path):
    with ztensor.Writer(tmp_path / "e.zt"):
        pass
    with ztensor.open(tmp_path / "e.zt") as r:
        assert len(r) == 0 and r.keys() == []


def test_add_object_generic_with_logical_type(tmp_path):
    path = tmp_path / "g.zt"
    raw = np.array([0x38, 0x40, 0x00], dtype=np.uint8)  # fp8 e4m3fn bytes
    with ztensor.Writer(path) as w:
        w.add_object("fp8", (3,), "dense", {"data": (raw, "f8_e4m3fn")}, attributes={"src": "bytes"})
    with ztensor.open(path) as r:
        o = r.object("fp8")
        assert (o.components["data"].dtype, o.components["data"].type) == ("u8", "f8_e4m3fn")
        import ml_dtypes
        assert same(r.read("fp8"), raw.view(ml_dtypes.float8_e4m3fn))
        assert o.attributes == {"src": "bytes"}


def test_add_object_rejects_wrong_storage_for_logical_type(tmp_path):
    with ztensor.Writer(tmp_path / "g.zt") as w:
        with pytest.raises(ztensor.ZTensorError):
            w.add_object("x", (2,), "dense", {"data": (np.zeros(2, np.float32), "f8_e5m2")})


def test_add_object_rejects_wrong_length(tmp_path):
    with ztensor.Writer(tmp_path / "g.zt") as w:
        with pytest.raises(ztensor.ZTensorError):
            w.add_object("x", (3, 3), "dense", {"data": np.zeros(4, np.float32)})


def test_many_objects_stream(tmp_path):
    path = tmp_path / "many.zt"
    with ztensor.Writer(path) as w:
        for i in range(2000):
            w.add(f"layer.{i}.bias", np.full(3, i, np.int32))
        assert len(w) == 2000
    with ztensor.open(path) as r:
        assert len(r) == 2000
        assert same(r.read("layer.1999.bias"), np.full(3, 1999, np.int32))
    assert len(read_manifest(path)["objects"]) == 2000


def test_concurrent_adds_from_threads(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / "threads.zt"
    arrays = {f"t{i}": np.full((64, 64), i, np.float32) for i in range(64)}
    with ztensor.Writer(path) as w:
        with ThreadPoolExecutor(4) as ex:
            list(ex.map(lambda kv: w.add(kv[0], kv[1], compression="zstd", checksum="sha256"), arrays.items()))
    with ztensor.open(path) as r:
        r.verify()
        assert sorted(r.keys()) == sorted(arrays)
        for k, v in arrays.items():
            assert same(r.read(k), v)
