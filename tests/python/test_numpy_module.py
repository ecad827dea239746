"""ztensor.numpy: safetensors-style verbs."""

import numpy as np
import pytest

import ztensor
import ztensor.numpy as ztn
from _util import DTYPES, sample, same


def test_save_load_file(tmp_path):
    tensors = {f"t_{i}": sample(dt, (2, 3), seed=i) for i, dt in enumerate(DTYPES)}
    path = tmp_path / "n.zt"
    ztn.save_file(tensors, path, metadata={"who": "test"})
    loaded = ztn.load_file(path)
    assert list(loaded) == list(tensors)
    for k, v in tensors.items():
        assert same(loaded[k], v), k
    with ztensor.open(path) as r:
        assert r.attributes == {"who": "test"}


def test_loaded_arrays_are_read_only_views(tmp_path):
    path = tmp_path / "n.zt"
    ztn.save_file({"a": np.arange(5.0)}, path)
    a = ztn.load_file(path)["a"]
    assert not a.flags.writeable
    b = a.copy()
    b[0] = 7
    assert ztn.load_file(path)["a"][0] == 0


def test_save_load_bytes():
    tensors = {"x": np.arange(6, dtype=np.int16).reshape(2, 3), "y": np.float32(1.5)}
    data = ztn.save(tensors, metadata={"k": "v"})
    assert isinstance(data, bytes)
    loaded = ztn.load(data)
    for k in tensors:
        assert same(loaded[k], np.asarray(tensors[k]))


def test_compressed_and_mixed_formats(tmp_path):
    import scipy.sparse as sp

    path = tmp_path / "m.zt"
    m = sp.random_array((4, 6), density=0.5, format="csr", rng=0)
    with ztensor.Writer(path) as w:
        w.add("dense", np.ones((3, 3)), compression="zstd")
        w.add("sparse", m)
        w.add("after", np.zeros(2))
    loaded = ztn.load_file(path)
    assert list(loaded) == ["dense", "sparse", "after"]
    assert same(loaded["dense"], np.ones((3, 3))) and loaded["dense"].flags.writeable
    assert same(loaded["sparse"].toarray(), m.toarray())


def test_metadata_must_be_strings(tmp_path):
    with pytest.raises(TypeError):
        ztn.save_file({"a": np.zeros(1)}, tmp_path / "x.zt", metadata={"a": 1})
