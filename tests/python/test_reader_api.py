"""ztensor.open: the reader surface, zero-copy views, digests."""

import gc

import numpy as np
import pytest

import ztensor
from _util import sample, same


@pytest.fixture
def small_file(tmp_path):
    path = tmp_path / "small.zt"
    with ztensor.Writer(path, attributes={"license": "MIT"}) as w:
        w.add("w", np.arange(12, dtype=np.float32).reshape(3, 4), checksum="sha256")
        w.add("b", np.arange(4, dtype=np.int64), compression="zstd", checksum="crc32c")
        w.add("e", np.zeros(0, np.float16))
    return path


def test_container_protocol(small_file):
    with ztensor.open(small_file) as r:
        assert r.keys() == ["w", "b", "e"]
        assert list(r) == ["w", "b", "e"]
        assert len(r) == 3
        assert "w" in r and "zz" not in r and 3 not in r
        assert r.version == "1.2.0"
        assert r.attributes == {"license": "MIT"}


def test_object_metadata(small_file):
    with ztensor.open(small_file) as r:
        o = r.object("w")
        assert (o.name, o.format, o.shape, o.attributes) == ("w", "dense", (3, 4), {})
        c = o.components["data"]
        assert (c.dtype, c.type, c.encoding, c.length) == ("f32", None, "raw", 48)
        assert c.offset % 64 == 0 and c.uncompressed_length is None
        assert c.digest.startswith("sha256:") and len(c.digest) == len("sha256:") + 64
        b = r.object("b").components["data"]
        assert b.encoding == "zstd" and b.uncompressed_length == 32 and b.digest.startswith("crc32c:")
        with pytest.raises(KeyError):
            r.object("missing")


def test_read_component_raw_is_read_only_zero_copy(small_file):
    r = ztensor.open(small_file)
    a = r.read_component("w", "data")
    assert a.ndim == 1 and a.dtype == np.float32 and not a.flags.writeable
    assert same(a, np.arange(12, dtype=np.float32))
    with pytest.raises(ValueError):
        a[0] = 1
    with pytest.raises(ValueError):  # the mapping is PROT_READ: must stay read-only
        a.flags.writeable = True
    # The same bytes, not a copy: two reads alias one mapping.
    a2 = r.read_component("w", "data")
    assert a.__array_interface__["data"][0] == a2.__array_interface__["data"][0]
    r.close()
    del r
    gc.collect()
    assert same(a, np.arange(12, dtype=np.float32)), "array must keep the mapping alive"


def test_read_component_compressed_is_fresh_memory(small_file):
    with ztensor.open(small_file) as r:
        a = r.read_component("b", "data")
        assert same(a, np.arange(4, dtype=np.int64))
        a[0] = 99  # private decoded buffer
        assert r.read_component("b", "data")[0] == 0


def test_read_dense_view_outlives_reader(small_file):
    with ztensor.open(small_file) as r:
        w = r.read("w")
        assert not w.flags.writeable
        wc = r.read("w", copy=True)
        assert wc.flags.writeable
    gc.collect()
    assert same(w, np.arange(12, dtype=np.float32).reshape(3, 4))


def test_closed_reader_refuses(small_file):
    r = ztensor.open(small_file)
    r.close()
    assert r.closed
    with pytest.raises(ztensor.ZTensorError):
        r.keys()


def test_missing_component_and_object(small_file):
    with ztensor.open(small_file) as r:
        with pytest.raises(KeyError):
            r["nope"]
        with pytest.raises(ztensor.NotFoundError) as e:
            r.read_component("w", "values")
        assert "values" in str(e.value) and e.value.code == "not_found"
        with pytest.raises(ValueError):
            r.read("w", framework="jax")


def _flip_byte(path, offset):
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def test_verify_detects_flipped_byte(small_file):
    with ztensor.open(small_file) as r:
        r.verify()
        off = r.object("w").components["data"].offset
    _flip_byte(small_file, off + 5)
    with ztensor.open(small_file) as r:
        with pytest.raises(ztensor.DigestMismatchError) as e:
            r.verify()
        assert e.value.code == "digest_mismatch" and "'w'" in str(e.value)
        with pytest.raises(ztensor.DigestMismatchError):
            r.verify("w")
        r.verify("b")  # other objects are fine
        r.read("w")  # no verify-on-read by default
    with ztensor.open(small_file, verify=True) as r:
        with pytest.raises(ztensor.DigestMismatchError):
            r.read("w")
        assert same(r.read("b"), np.arange(4, dtype=np.int64))


def test_verify_detects_flipped_compressed_byte(small_file):
    with ztensor.open(small_file) as r:
        off = r.object("b").components["data"].offset
    _flip_byte(small_file, off + 3)
    with ztensor.open(small_file) as r:
        with pytest.raises(ztensor.DigestMismatchError):
            r.verify()


def test_from_bytes(small_file):
    data = small_file.read_bytes()
    r = ztensor.Source.from_bytes(data)
    del data
    assert same(r.read("w"), np.arange(12, dtype=np.float32).reshape(3, 4))
    assert same(r.read("b"), np.arange(4, dtype=np.int64))


def test_concurrent_reads(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / "c.zt"
    arrays = {f"t{i}": sample(np.float32, (64, 64), seed=i) for i in range(16)}
    with ztensor.Writer(path) as w:
        for k, v in arrays.items():
            w.add(k, v, compression="zstd", checksum="sha256")
    with ztensor.open(path, verify=True) as r:
        with ThreadPoolExecutor(4) as ex:
            results = list(ex.map(lambda k: (k, r.read(k)), list(arrays) * 4))
    for k, v in results:
        assert same(v, arrays[k])


def test_read_component_storage_types(tmp_path):
    import ml_dtypes

    path = tmp_path / "st.zt"
    with ztensor.Writer(path) as w:
        w.add("bf", np.arange(4, dtype=np.float32).astype(ml_dtypes.bfloat16))
        w.add("u16", np.arange(4, dtype=np.uint16))
        w.add("c", np.array([1 + 2j], np.complex64))
        w.add("f8", np.ones(3, ml_dtypes.float8_e5m2))
    with ztensor.open(path) as r:
        assert r.read_component("bf", "data").dtype == ml_dtypes.bfloat16
        assert r.read_component("u16", "data").dtype == np.uint16
        # storage elements: a complex64 is two f32, an fp8 is one u8
        assert same(r.read_component("c", "data"), np.array([1, 2], np.float32))
        assert same(r.read_component("f8", "data"), np.ones(3, ml_dtypes.float8_e5m2).view(np.uint8))


def test_shape_compares_as_tuple_and_list(small_file):
    with ztensor.open(small_file) as r:
        s = r.object("w").shape
        assert s == (3, 4) and s == [3, 4] and s != [4, 3] and isinstance(s, tuple)
        assert {s: 1}[(3, 4)] == 1
