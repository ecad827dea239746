"""sparse_csr, sparse_coo and quantized_group objects."""

import re

import ml_dtypes
import numpy as np
import pytest
import scipy.sparse as sp

import ztensor
from _util import read_manifest, same


def _random_csr(rows, cols, density=0.3, dtype=np.float32, seed=0):
    return sp.random_array((rows, cols), density=density, format="csr", dtype=np.float64,
                           rng=seed).astype(dtype)


@pytest.mark.parametrize("compression", [None, "zstd"])
@pytest.mark.parametrize("checksum", [None, "sha256"])
def test_csr_round_trip(tmp_path, compression, checksum):
    m = _random_csr(20, 30)
    path = tmp_path / "csr.zt"
    with ztensor.Writer(path) as w:
        w.add_sparse_csr("m", m.data, m.indices, m.indptr, m.shape, compression=compression, checksum=checksum)
        w.add("viaadd", m)
    with ztensor.open(path, verify=True) as r:
        for name in ("m", "viaadd"):
            out = r.read(name)
            assert isinstance(out, sp.csr_array) and out.shape == (20, 30)
            assert same(out.toarray(), m.toarray())
        o = r.object("m")
        assert o.format == "sparse_csr"
        assert {k: c.dtype for k, c in o.components.items()} == {"values": "f32", "indices": "u64", "indptr": "u64"}
        assert same(r.read_component("m", "indptr"), m.indptr.astype(np.uint64))
    comps = read_manifest(path)["objects"]["m"]["components"]
    assert comps["indices"]["dtype"] == "u64" and comps["indptr"]["dtype"] == "u64"


@pytest.mark.parametrize("compression", [None, "zstd"])
def test_coo_round_trip(tmp_path, compression):
    values = np.array([1.5, -2.0, 3.25, 4.0], dtype=np.float64)
    coords = np.array([[0, 1, 4, 4], [2, 2, 0, 6]])
    path = tmp_path / "coo.zt"
    with ztensor.Writer(path) as w:
        w.add_sparse_coo("c", values, coords, (5, 7), compression=compression)
        w.add_sparse_coo("flat", values, coords.reshape(-1), (5, 7))
        w.add("fromscipy", sp.coo_array((values, (coords[0], coords[1])), shape=(5, 7)))
    dense = np.zeros((5, 7))
    dense[coords[0], coords[1]] = values
    with ztensor.open(path) as r:
        for name in ("c", "flat", "fromscipy"):
            out = r.read(name)
            assert isinstance(out, sp.coo_array)
            assert same(out.toarray(), dense)
        # Structure-of-Arrays: all row indices, then all column indices.
        assert same(r.read_component("c", "coords"), coords.reshape(-1).astype(np.uint64))


def test_sparse_values_with_logical_types(tmp_path):
    path = tmp_path / "l.zt"
    v16 = np.array([1, 2, 3], dtype=ml_dtypes.bfloat16)
    vc = np.array([1 + 1j, 2 - 1j], dtype=np.complex64)
    with ztensor.Writer(path) as w:
        w.add_sparse_csr("b", v16, [0, 1, 2], [0, 1, 3], (2, 3))
        w.add_sparse_coo("c", vc, [[0, 1], [1, 0]], (2, 2))
    with ztensor.open(path) as r:
        assert same(r.read("b").data, v16)
        assert same(r.read("c").toarray(), np.array([[0, 1 + 1j], [2 - 1j, 0]], np.complex64))


def test_empty_sparse(tmp_path):
    path = tmp_path / "e.zt"
    with ztensor.Writer(path) as w:
        w.add_sparse_csr("csr", np.zeros(0, np.float32), [], [0, 0, 0], (2, 5))
        w.add_sparse_coo("coo", np.zeros(0, np.float32), np.zeros((2, 0), np.int64), (3, 3))
    with ztensor.open(path) as r:
        assert r.read("csr").nnz == 0 and r.read("csr").shape == (2, 5)
        assert r.read("coo").nnz == 0


@pytest.mark.parametrize("indices,indptr,what", [
    ([0, 5], [0, 1, 2], "column index"),
    ([0, 1], [0, 2, 1], "non-decreasing"),
    ([0, 1], [0, 1], "rows + 1"),
    ([0, 1], [1, 1, 2], "start at 0"),
    ([0, 1], [0, 1, 3], "agree"),
])
def test_csr_structure_rejected_on_write(tmp_path, indices, indptr, what):
    with ztensor.Writer(tmp_path / "bad.zt") as w:
        with pytest.raises(ztensor.FormatError, match=re.escape(what)) as e:
            w.add_sparse_csr("m", np.ones(2, np.float32), indices, indptr, (2, 4))
        assert e.value.code == "invalid_structure"
        with pytest.raises(ztensor.FormatError):
            w.add_sparse_csr("m", np.ones(2, np.float32), [-1, 0], [0, 1, 2], (2, 4))


def test_coo_structure_rejected_on_write(tmp_path):
    with ztensor.Writer(tmp_path / "bad.zt") as w:
        with pytest.raises(ztensor.FormatError, match="outside"):
            w.add_sparse_coo("c", np.ones(2), [[0, 3], [0, 0]], (3, 3))
        with pytest.raises(ztensor.FormatError, match="ndim"):
            w.add_sparse_coo("c", np.ones(2), [0, 1, 2], (3, 3))


def test_csr_structure_rejected_on_read(tmp_path):
    """A file whose indptr is not monotone (written through add_object, which
    does not check sparse structure) is refused when read."""
    path = tmp_path / "bad.zt"
    with ztensor.Writer(path) as w:
        try:
            w.add_object("m", (2, 4), "sparse_csr", {
                "values": np.ones(2, np.float32),
                "indices": np.array([0, 9], np.uint64),
                "indptr": np.array([0, 2, 1], np.uint64)})
        except ztensor.FormatError:
            pytest.skip("the C++ writer already validates sparse structure")
    with ztensor.open(path) as r:
        with pytest.raises(ztensor.FormatError) as e:
            r.read("m")
        assert "'m'" in str(e.value)
        # the raw components stay readable
        assert len(r.read_component("m", "indptr")) == 3


@pytest.mark.parametrize("compression", [None, "zstd"])
def test_quantized_group_round_trip(tmp_path, compression):
    rng = np.random.default_rng(1)
    packed = rng.integers(-2**31, 2**31 - 1, (64, 8), dtype=np.int32)
    scales = rng.standard_normal((64, 1)).astype(np.float16)
    zeros = rng.standard_normal((64, 1)).astype(np.float16)
    path = tmp_path / "q.zt"
    with ztensor.Writer(path) as w:
        w.add_quantized_group("q", packed, scales, zeros, (64, 64), bits=4, group_size=64,
                              packing="8_per_i32", compression=compression, checksum="crc32c",
                              attributes={"method": "gptq"})
    with ztensor.open(path, verify=True) as r:
        q = r.read("q")
        assert isinstance(q, ztensor.QuantizedGroup)
        assert (q.bits, q.group_size, q.packing) == (4, 64, "8_per_i32")
        assert q.shape == (64, 64) and q.attributes["method"] == "gptq"
        assert same(q.packed_weight, packed.reshape(-1))
        assert same(q.scales, scales.reshape(-1)) and same(q.zeros, zeros.reshape(-1))
        assert same(q["scales"], q.components["scales"])
        o = r.object("q")
        assert o.format == "quantized_group"
        assert o.attributes["bits"] == 4 and o.attributes["packing"] == "8_per_i32"
    attrs = read_manifest(path)["objects"]["q"]["attributes"]
    assert attrs == {"method": "gptq", "bits": 4, "group_size": 64, "packing": "8_per_i32"}


def test_unknown_format_via_add_object(tmp_path):
    path = tmp_path / "u.zt"
    with ztensor.Writer(path) as w:
        try:
            w.add_object("x", (4,), "my_layout", {"blob": np.arange(4, dtype=np.uint8)})
        except ztensor.ZTensorError:
            pytest.skip("writer refuses unknown formats")
    with ztensor.open(path) as r:
        with pytest.raises(ztensor.UnsupportedError):
            r.read("x")
        assert same(r.read_component("x", "blob"), np.arange(4, dtype=np.uint8))
