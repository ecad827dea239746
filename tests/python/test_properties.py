"""Property tests: any array, encoding and digest round-trips bit-exactly."""

import os
import tempfile

import numpy as np
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ztensor
from _util import DTYPES, same

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=6)
encodings = st.sampled_from([None, "zstd"])
digests = st.sampled_from([None, "sha256", "crc32c"])
levels = st.sampled_from([None, 1, 3, 9])


@st.composite
def arrays(draw):
    dtype = draw(st.sampled_from(list(DTYPES)))
    shape = draw(shapes)
    n = int(np.prod(shape, dtype=np.int64))
    # Arbitrary bit patterns (NaNs, infinities, negative zero) viewed as dtype.
    raw = draw(st.binary(min_size=n * dtype.itemsize, max_size=n * dtype.itemsize))
    if dtype == np.bool_:
        raw = bytes(b & 1 for b in raw)  # the spec's bool is 0x00 / 0x01
    return np.frombuffer(raw, dtype=np.uint8).view(dtype).reshape(shape)


def _tmp():
    fd, path = tempfile.mkstemp(suffix=".zt")
    os.close(fd)
    return path


@SETTINGS
@given(st.lists(st.tuples(arrays(), encodings, digests, levels), min_size=1, max_size=4))
def test_dense_round_trip(items):
    path = _tmp()
    try:
        with ztensor.Writer(path) as w:
            for i, (a, enc, dig, lvl) in enumerate(items):
                w.add(f"o{i}", a, compression=enc, checksum=dig, level=lvl)
        with ztensor.open(path, verify=True) as r:
            r.verify()
            assert len(r) == len(items)
            for i, (a, enc, dig, _) in enumerate(items):
                out = r.read(f"o{i}")
                assert same(out, a)
                c = r.object(f"o{i}").components["data"]
                assert c.encoding == (enc or "raw") and (c.digest is None) == (dig is None)
                assert c.offset % 64 == 0
    finally:
        os.unlink(path)


@SETTINGS
@given(st.integers(1, 12), st.integers(1, 12), st.floats(0, 1), st.integers(0, 2**32 - 1), encodings, digests)
def test_csr_and_coo_round_trip(rows, cols, density, seed, enc, dig):
    m = sp.random_array((rows, cols), density=density, format="csr", rng=seed)
    path = _tmp()
    try:
        with ztensor.Writer(path) as w:
            w.add("csr", m, compression=enc, checksum=dig)
            w.add("coo", m.tocoo(), compression=enc, checksum=dig)
        with ztensor.open(path, verify=True) as r:
            assert same(r.read("csr").toarray(), m.toarray())
            assert same(r.read("coo").toarray(), m.toarray())
    finally:
        os.unlink(path)


@SETTINGS
@given(st.dictionaries(st.text(min_size=1, max_size=8),
                       st.recursive(st.none() | st.booleans() | st.integers(-2**64, 2**64 - 1)
                                    | st.floats(allow_nan=False) | st.text(max_size=10) | st.binary(max_size=10),
                                    lambda children: st.lists(children, max_size=3)
                                    | st.dictionaries(st.text(max_size=5), children, max_size=3),
                                    max_leaves=10),
                       max_size=5))
def test_attributes_round_trip(attrs):
    path = _tmp()
    try:
        with ztensor.Writer(path, attributes=attrs) as w:
            w.add("x", np.zeros(1), attributes=attrs)
        with ztensor.open(path) as r:
            assert r.attributes == attrs
            assert r.object("x").attributes == attrs
    finally:
        os.unlink(path)


@SETTINGS
@given(st.integers(1, 64), st.integers(1, 8), st.sampled_from([2, 3, 4, 8]), encodings, digests,
       st.sampled_from([np.float16, np.float32]))
def test_quantized_group_round_trip(rows, groups, bits, enc, dig, scale_dtype):
    rng = np.random.default_rng(rows * 31 + groups)
    packed = rng.integers(-2**31, 2**31 - 1, (rows, groups * 4), dtype=np.int32)
    scales = rng.standard_normal((rows, groups)).astype(scale_dtype)
    zeros = rng.integers(0, 2**bits, (rows, groups)).astype(scale_dtype)
    path = _tmp()
    try:
        with ztensor.Writer(path) as w:
            w.add_quantized_group("q", packed, scales, zeros, (rows, groups * 32), bits=bits, group_size=32,
                                  packing=f"{32 // bits}_per_i32", compression=enc, checksum=dig)
        with ztensor.open(path, verify=True) as r:
            q = r.read("q")
            assert (q.bits, q.group_size) == (bits, 32) and q.shape == (rows, groups * 32)
            assert same(q.packed_weight, packed.reshape(-1))
            assert same(q.scales, scales.reshape(-1)) and same(q.zeros, zeros.reshape(-1))
    finally:
        os.unlink(path)


@SETTINGS
@given(arrays(), encodings)
def test_torch_reads_what_numpy_wrote(a, enc):
    import pytest

    torch = pytest.importorskip("torch")
    path = _tmp()
    try:
        with ztensor.Writer(path) as w:
            w.add("a", a, compression=enc)
        with ztensor.open(path) as r:
            t = r.read("a", framework="torch")
        assert tuple(t.shape) == a.shape
        flat = t.reshape(-1)
        if flat.numel() <= 1:
            flat = flat.as_strided((flat.numel(),), (1,))
        assert bytes(flat.view(torch.uint8).numpy()) == a.tobytes()
    finally:
        os.unlink(path)
