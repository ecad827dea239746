"""Dense objects of every dtype survive a write/read round trip bit-exactly."""

import numpy as np
import pytest

import ztensor
from _util import DTYPES, read_manifest, sample, same

ENCODINGS = [None, "zstd"]
CHECKSUMS = [None, "sha256", "crc32c"]


@pytest.mark.parametrize("dtype", list(DTYPES), ids=str)
@pytest.mark.parametrize("compression", ENCODINGS)
@pytest.mark.parametrize("checksum", CHECKSUMS)
def test_every_dtype_encoding_digest(tmp_path, dtype, compression, checksum):
    path = tmp_path / "t.zt"
    a = sample(dtype, (3, 5))
    with ztensor.Writer(path) as w:
        w.add("a", a, compression=compression, checksum=checksum)
    with ztensor.open(path, verify=True) as r:
        out = r.read("a")
        assert same(out, a)
        c = r.object("a").components["data"]
        storage, logical = DTYPES[np.dtype(dtype)]
        assert (c.dtype, c.type) == (storage, logical)
        assert c.encoding == (compression or "raw")
        if checksum:
            assert c.digest.startswith(checksum + ":")
        else:
            assert c.digest is None
        if compression == "zstd":
            assert c.uncompressed_length == a.nbytes
        r.verify()
    m = read_manifest(path)["objects"]["a"]["components"]["data"]
    assert m["dtype"] == storage and m.get("type") == logical
    assert m["offset"] % 64 == 0


@pytest.mark.parametrize("shape", [(), (0,), (0, 4), (4, 0, 2), (1,), (1, 1, 1), (2, 3, 4, 5)])
@pytest.mark.parametrize("compression", ENCODINGS)
def test_scalars_and_zero_size(tmp_path, shape, compression):
    path = tmp_path / "s.zt"
    a = sample(np.float32, shape)
    with ztensor.Writer(path) as w:
        w.add("a", a, compression=compression)
    with ztensor.open(path) as r:
        assert r.object("a").shape == shape
        out = r.read("a")
        assert out.shape == shape and same(out, a)


def test_numpy_scalar_and_python_list(tmp_path):
    path = tmp_path / "s.zt"
    with ztensor.Writer(path) as w:
        w.add("s", np.float64(2.5))
        w.add("l", [[1, 2], [3, 4]])
    with ztensor.open(path) as r:
        assert r.read("s").shape == () and r.read("s") == 2.5
        assert same(r.read("l"), np.array([[1, 2], [3, 4]]))


def test_non_contiguous_and_big_endian_inputs(tmp_path):
    path = tmp_path / "nc.zt"
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    with ztensor.Writer(path) as w:
        w.add("t", base.T)
        w.add("s", base[::2, 1::2])
        w.add("be", base.astype(">f4"))
        w.add("f", np.asfortranarray(base))
    with ztensor.open(path) as r:
        assert same(r.read("t"), np.ascontiguousarray(base.T))
        assert same(r.read("s"), np.ascontiguousarray(base[::2, 1::2]))
        assert same(r.read("be"), base)
        assert same(r.read("f"), base)


def test_file_layout_alignment_and_padding(tmp_path):
    path = tmp_path / "l.zt"
    with ztensor.Writer(path) as w:
        for i in range(5):
            w.add(f"x{i}", np.arange(i * 3 + 1, dtype=np.int8))
    data = path.read_bytes()
    assert data[:8] == b"ZTEN1000" and data[-8:] == b"ZTEN1000"
    objs = read_manifest(path)["objects"]
    spans = sorted((o["components"]["data"]["offset"], o["components"]["data"]["length"]) for o in objs.values())
    prev_end = 8
    for off, length in spans:
        assert off % 64 == 0
        assert set(data[prev_end:off]) <= {0}, "padding must be zero"
        prev_end = off + length


def test_deterministic_output(tmp_path):
    a = sample(np.float32, (16, 16))
    for name in ("one.zt", "two.zt"):
        with ztensor.Writer(tmp_path / name, attributes={"k": "v"}) as w:
            w.add("a", a, compression="zstd", checksum="sha256")
            w.add("b", a.astype(np.int64))
    assert (tmp_path / "one.zt").read_bytes() == (tmp_path / "two.zt").read_bytes()


def test_zstd_actually_compresses(tmp_path):
    a = np.zeros((256, 256), np.float32)
    with ztensor.Writer(tmp_path / "z.zt") as w:
        w.add("a", a, compression="zstd", level=19)
    with ztensor.open(tmp_path / "z.zt") as r:
        c = r.object("a").components["data"]
        assert c.length < a.nbytes // 50
        assert same(r.read("a"), a)


def test_object_and_file_attributes(tmp_path):
    path = tmp_path / "a.zt"
    file_attrs = {"framework": "numpy", "n": -3, "big": 2**64 - 1, "neg": -(2**64), "f": 1.5,
                  "list": [1, "two", None, True], "nested": {"a": {"b": b"\x00\x01"}}}
    with ztensor.Writer(path, attributes=file_attrs) as w:
        w.add("a", np.zeros(2), attributes={"role": "bias", "np": np.int32(7)})
    with ztensor.open(path) as r:
        assert r.attributes == file_attrs
        assert r.object("a").attributes == {"role": "bias", "np": 7}
    assert read_manifest(path)["attributes"] == file_attrs
