"""The `zt` command line tool, driven through subprocess.

The binary is found by _cli.py ($ZT_CLI, else `zt` on PATH, else the newest
build*/cli/zt in the repository). Test files are written by the real
producer (the `safetensors` package) in a temporary directory.
"""

import json
import struct
import subprocess

import numpy as np
import pytest
from _cli import ZT, needs_zt

safetensors_numpy = pytest.importorskip("safetensors.numpy")



pytestmark = needs_zt


def zt(*args):
    return subprocess.run([ZT, *map(str, args)], capture_output=True, text=True, timeout=120)


def tensors():
    rng = np.random.default_rng(7)
    return {
        "layer.weight": rng.standard_normal((4, 5)).astype(np.float32),
        "layer.bias": rng.standard_normal(5).astype(np.float64),
        "ids": np.arange(-3, 3, dtype=np.int64),
        "half": rng.standard_normal((2, 3)).astype(np.float16),
        "small": np.array([1, 2, 255], dtype=np.uint8),
        "i16": np.array([-7, 9], dtype=np.int16),
        "mask": np.array([True, False, True]),
        "empty": np.zeros((0, 3), dtype=np.float32),
        "scalar": np.array(2.5, dtype=np.float32),
    }


METADATA = {"format": "np", "note": 'quotes " and unicode \u00e9'}


@pytest.fixture
def st_file(tmp_path):
    path = tmp_path / "model.safetensors"
    safetensors_numpy.save_file(tensors(), str(path), metadata=METADATA)
    return path


def info_json(path):
    r = zt("info", path, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


# --- help, version, usage errors (exit 2) -----------------------------------


def test_help_and_version():
    r = zt("--help")
    assert r.returncode == 0
    for cmd in ("info", "ls", "convert", "verify", "diff"):
        assert cmd in r.stdout
    for cmd in ("info", "ls", "convert", "verify", "diff"):
        r = zt(cmd, "--help")
        assert r.returncode == 0, cmd
        assert "Usage: zt " + cmd in r.stdout
        assert "Examples" in r.stdout
    r = zt("--version")
    assert r.returncode == 0
    assert r.stdout.startswith("zt ")


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["frobnicate"],
        ["info"],
        ["info", "a", "b"],
        ["info", "x.zt", "--bogus"],
        ["convert", "only_in.safetensors"],
        ["convert", "a.safetensors", "b.zt", "--level", "abc"],
        ["convert", "a.safetensors", "b.zt", "--level", "99"],
        ["convert", "a.safetensors", "b.zt", "--compress", "lz4"],
        ["convert", "a.safetensors", "b.zt", "--checksum", "md5"],
        ["convert", "a.safetensors", "b.zt", "--level"],
        ["verify"],
        ["ls"],
        ["diff", "only_a.zt"],
        ["diff", "a.zt", "b.zt", "--atol", "-1"],
    ],
)
def test_usage_errors_exit_2(args):
    r = zt(*args)
    assert r.returncode == 2, (args, r.stdout, r.stderr)
    assert "zt" in r.stderr


# --- info -------------------------------------------------------------------


def test_info_json_on_safetensors(st_file):
    j = info_json(st_file)
    assert j["format"] == "safetensors"
    assert j["attributes"] == METADATA
    src = tensors()
    assert set(j["objects"]) == set(src)
    w = j["objects"]["layer.weight"]
    assert w["format"] == "dense"
    assert w["shape"] == [4, 5]
    assert w["components"]["data"]["dtype"] == "f32"
    assert w["components"]["data"]["length"] == 80
    assert j["objects"]["mask"]["components"]["data"]["dtype"] == "bool"
    assert j["objects"]["scalar"]["shape"] == []


@pytest.mark.parametrize(
    "options,encoding,digest_prefix",
    [
        ([], "raw", None),
        (["--compress", "zstd"], "zstd", None),
        (["--compress", "zstd", "--level", "9", "--checksum", "sha256"], "zstd", "sha256:"),
        (["--checksum", "crc32c"], "raw", "crc32c:"),
    ],
)
def test_info_json_after_convert(st_file, tmp_path, options, encoding, digest_prefix):
    out = tmp_path / "model.zt"
    r = zt("convert", st_file, out, *options)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # no progress bar when stderr is not a terminal
    j = info_json(out)
    assert j["format"] == "zt"
    assert j["version"] == "1.2.0"
    assert j["file_size"] == out.stat().st_size
    assert j["attributes"] == METADATA
    src = tensors()
    assert set(j["objects"]) == set(src)
    dtypes = {"float32": "f32", "float64": "f64", "int64": "i64", "float16": "f16",
              "uint8": "u8", "int16": "i16", "bool": "bool"}
    for name, arr in src.items():
        obj = j["objects"][name]
        assert obj["format"] == "dense"
        assert obj["shape"] == list(arr.shape)
        c = obj["components"]["data"]
        assert c["dtype"] == dtypes[arr.dtype.name]
        assert c["type"] is None
        assert c["encoding"] == encoding
        assert c["offset"] % 64 == 0
        if encoding == "zstd":
            assert c["uncompressed_length"] == arr.nbytes
        else:
            assert c["length"] == arr.nbytes
        if digest_prefix:
            assert c["digest"].startswith(digest_prefix)
        else:
            assert c["digest"] is None


def test_info_human_table(st_file, tmp_path):
    out = tmp_path / "model.zt"
    assert zt("convert", st_file, out, "--checksum", "sha256").returncode == 0
    r = zt("info", out)
    assert r.returncode == 0, r.stderr
    assert "zTensor 1.2.0" in r.stdout
    assert "layer.weight" in r.stdout and "[4, 5]" in r.stdout
    assert "sha256:" in r.stdout
    assert "format: \"np\"" in r.stdout


# --- convert, both ways -----------------------------------------------------


@pytest.mark.parametrize("options", [[], ["--compress", "zstd", "--checksum", "sha256"]])
def test_round_trip_is_byte_and_value_exact(st_file, tmp_path, options):
    mid = tmp_path / "model.zt"
    back = tmp_path / "back.safetensors"
    assert zt("convert", st_file, mid, *options).returncode == 0
    r = zt("convert", mid, back)
    assert r.returncode == 0, r.stderr
    assert back.read_bytes() == st_file.read_bytes()
    loaded = safetensors_numpy.load_file(str(back))
    for name, arr in tensors().items():
        assert loaded[name].dtype == arr.dtype
        np.testing.assert_array_equal(loaded[name], arr)


def test_output_format_from_extension_or_opposite_of_input(st_file, tmp_path):
    out = tmp_path / "weights.bin"  # no known extension: safetensors -> .zt
    assert zt("convert", st_file, out).returncode == 0
    assert out.read_bytes()[:8] == b"ZTEN1000"
    back = tmp_path / "weights2.data"  # .zt input: -> safetensors
    assert zt("convert", out, back).returncode == 0
    assert back.read_bytes() == st_file.read_bytes()


def test_convert_json_summary(st_file, tmp_path):
    out = tmp_path / "m.zt"
    r = zt("convert", st_file, out, "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert (j["command"], j["input_format"], j["output_format"]) == ("convert", "safetensors", "zt")
    assert j["objects"] == len(tensors())
    assert j["tensor_bytes"] == sum(a.nbytes for a in tensors().values())
    assert j["output_bytes"] == out.stat().st_size
    assert j["warnings"] == []


def test_zt_to_zt_recompresses(st_file, tmp_path):
    a, b = tmp_path / "a.zt", tmp_path / "b.zt"
    assert zt("convert", st_file, a).returncode == 0
    assert zt("convert", a, b, "--compress", "zstd", "--checksum", "crc32c").returncode == 0
    j = info_json(b)
    assert all(o["components"]["data"]["encoding"] == "zstd" for o in j["objects"].values())
    assert zt("verify", b).returncode == 0


def test_torch_dtypes_round_trip(tmp_path):
    torch = pytest.importorskip("torch")
    safetensors_torch = pytest.importorskip("safetensors.torch")
    src = {
        "bf16": torch.tensor([1.5, -2.25, 3.0], dtype=torch.bfloat16),
        "e4m3": torch.tensor([0.5, 1.0, -2.0], dtype=torch.float8_e4m3fn),
        "e5m2": torch.tensor([0.5, 1.0, -2.0], dtype=torch.float8_e5m2),
    }
    st = tmp_path / "t.safetensors"
    safetensors_torch.save_file(src, str(st))
    mid, back = tmp_path / "t.zt", tmp_path / "back.safetensors"
    assert zt("convert", st, mid).returncode == 0
    objs = info_json(mid)["objects"]
    assert objs["bf16"]["components"]["data"]["dtype"] == "bf16"
    assert objs["e4m3"]["components"]["data"] == {**objs["e4m3"]["components"]["data"],
                                                  "dtype": "u8", "type": "f8_e4m3fn"}
    assert objs["e5m2"]["components"]["data"]["type"] == "f8_e5m2"
    assert zt("convert", mid, back).returncode == 0
    assert back.read_bytes() == st.read_bytes()
    loaded = safetensors_torch.load_file(str(back))
    for name, t in src.items():
        assert loaded[name].dtype == t.dtype
        assert torch.equal(loaded[name].view(torch.uint8), t.view(torch.uint8))


# --- bad input (exit 1) -----------------------------------------------------


def crafted(path, header, data):
    hb = header.encode()
    path.write_bytes(struct.pack("<Q", len(hb)) + hb + data)
    return path


@pytest.mark.parametrize(
    "header,data,code",
    [
        ('{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},'
         '"b":{"dtype":"U8","shape":[2],"data_offsets":[3,5]}}', b"\1" * 5, "invalid_structure"),
        ('{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
         '"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}', b"\1" * 2, "invalid_structure"),
        ('{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}', b"\1" * 8, "length_mismatch"),
        ('{"__metadata__":{"k":1}}', b"", "wrong_type"),
        ('{"a":', b"", "malformed_manifest"),
        ('{"a":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}}', b"\1", "unsupported"),
    ],
)
def test_bad_safetensors_exit_1_and_no_output(tmp_path, header, data, code):
    bad = crafted(tmp_path / "bad.safetensors", header, data)
    out = tmp_path / "out.zt"
    r = zt("convert", bad, out)
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"zt: error: {code}: ")
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.safetensors"]  # no temp left
    r = zt("info", bad)
    assert r.returncode == 1
    assert f"zt: error: {code}: " in r.stderr


def test_missing_and_unknown_input_exit_1(tmp_path):
    r = zt("info", tmp_path / "nope.zt")
    assert r.returncode == 1
    assert r.stderr.startswith("zt: error: io_error: ")
    junk = tmp_path / "junk.dat"
    junk.write_bytes(b"hello world")
    r = zt("convert", junk, tmp_path / "x.zt")
    assert r.returncode == 1
    assert r.stderr.startswith("zt: error: unsupported: ")


# --- verify -----------------------------------------------------------------


def test_verify_ok(st_file, tmp_path):
    out = tmp_path / "model.zt"
    assert zt("convert", st_file, out, "--compress", "zstd", "--checksum", "sha256").returncode == 0
    r = zt("verify", out)
    assert r.returncode == 0, r.stderr
    assert "OK" in r.stdout
    assert f"{len(tensors())} digests checked" in r.stdout
    r = zt("verify", st_file)
    assert r.returncode == 0
    assert "OK" in r.stdout


@pytest.mark.parametrize("checksum", ["sha256", "crc32c"])
def test_verify_fails_on_corrupted_digest(st_file, tmp_path, checksum):
    out = tmp_path / "model.zt"
    assert zt("convert", st_file, out, "--checksum", checksum).returncode == 0
    comp = info_json(out)["objects"]["layer.weight"]["components"]["data"]
    raw = bytearray(out.read_bytes())
    raw[comp["offset"] + 3] ^= 0x01  # flip one stored bit
    out.write_bytes(bytes(raw))
    r = zt("verify", out)
    assert r.returncode == 1
    assert r.stderr.startswith("zt: error: digest_mismatch: ")
    assert "layer.weight" in r.stderr
    back = tmp_path / "back.safetensors"  # converting refuses corrupt bytes too
    r = zt("convert", out, back)
    assert r.returncode == 1
    assert "digest_mismatch" in r.stderr
    assert not back.exists()


# --- sharded safetensors ----------------------------------------------------


def test_sharded_index_info_verify_convert(tmp_path):
    src = tensors()
    names = sorted(src)
    half = len(names) // 2
    shards = {"model-00001-of-00002.safetensors": names[:half],
              "model-00002-of-00002.safetensors": names[half:]}
    weight_map = {}
    for fname, keys in shards.items():
        safetensors_numpy.save_file({k: src[k] for k in keys}, str(tmp_path / fname), metadata={"format": "np"})
        weight_map.update({k: fname for k in keys})
    index = tmp_path / "model.safetensors.index.json"
    index.write_text(json.dumps({"metadata": {"total_size": 1}, "weight_map": weight_map}))

    j = info_json(index)
    assert j["format"] == "safetensors_index"
    assert set(j["objects"]) == set(src)
    assert zt("verify", index).returncode == 0

    out = tmp_path / "model.zt"
    r = zt("convert", index, out, "--compress", "zstd")
    assert r.returncode == 0, r.stderr
    assert set(info_json(out)["objects"]) == set(src)
    back = tmp_path / "back.safetensors"
    assert zt("convert", out, back).returncode == 0
    loaded = safetensors_numpy.load_file(str(back))
    for name, arr in src.items():
        np.testing.assert_array_equal(loaded[name], arr)

    weight_map[names[0]] = "../elsewhere.safetensors"
    index.write_text(json.dumps({"weight_map": weight_map}))
    r = zt("convert", index, tmp_path / "bad.zt")
    assert r.returncode == 1
    assert r.stderr.startswith("zt: error: invalid_structure: ")


# --- ls and diff ------------------------------------------------------------


def test_ls(st_file):
    r = zt("ls", st_file)
    assert r.returncode == 0, r.stderr
    lines = dict(line.split("\t", 1) for line in r.stdout.splitlines())
    assert lines["layer.weight"] == "[4, 5]\tf32\tdense"
    r = zt("ls", st_file, "--json")
    entries = {e["name"]: e for e in json.loads(r.stdout)}
    assert entries["mask"] == {"name": "mask", "shape": [3], "dtype": "bool", "type": None, "format": "dense"}


def test_diff_identical_across_formats(st_file, tmp_path):
    out = tmp_path / "model.zt"
    assert zt("convert", st_file, out, "--compress", "zstd").returncode == 0
    r = zt("diff", st_file, out)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("same:")
    j = json.loads(zt("diff", st_file, out, "--json").stdout)
    assert j["identical"] is True
    assert j["only_in_a"] == [] and j["only_in_b"] == []
    assert all(o["equal"] and o["max_abs_diff"] == 0 for o in j["objects"].values())


def test_diff_reports_names_dtypes_and_max_abs_difference(tmp_path):
    a = tensors()
    b = dict(a)
    b["layer.weight"] = a["layer.weight"].astype(np.float16)
    b["ids"] = a["ids"] + np.array([0, 0, 5, 0, 0, 0])
    del b["mask"]
    b["extra"] = np.zeros(2, np.uint8)
    pa, pb = tmp_path / "a.safetensors", tmp_path / "b.safetensors"
    safetensors_numpy.save_file(a, str(pa))
    safetensors_numpy.save_file(b, str(pb))
    r = zt("diff", pa, pb, "--json")
    assert r.returncode == 1
    j = json.loads(r.stdout)
    assert j["identical"] is False
    assert j["only_in_a"] == ["mask"]
    assert j["only_in_b"] == ["extra"]
    assert j["objects"]["ids"]["max_abs_diff"] == 5
    w = j["objects"]["layer.weight"]
    assert w["same_shape_format_dtype"] is False
    expected = float(np.max(np.abs(a["layer.weight"].astype(np.float64)
                                   - b["layer.weight"].astype(np.float64))))
    assert w["max_abs_diff"] == pytest.approx(expected, rel=1e-12)
    assert j["objects"]["layer.bias"]["equal"] is True
    r = zt("diff", pa, pb)
    assert r.returncode == 1
    assert "- mask: only in A" in r.stdout and "+ extra: only in B" in r.stdout


# --- other formats through the same commands --------------------------------


def _other_format_files(tmp_path):
    arrays = {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.array([1, -2], dtype=">i4")}
    np.savez(tmp_path / "a.npz", **arrays)
    files = {"npz": (tmp_path / "a.npz", {k: v.astype(v.dtype.newbyteorder("<")) for k, v in arrays.items()})}
    try:
        import torch
        torch.save({"w": torch.from_numpy(arrays["w"])}, tmp_path / "m.pt")
        files["pytorch"] = (tmp_path / "m.pt", {"w": arrays["w"]})
    except ImportError:
        pass
    return files


def test_other_formats_info_convert_diff(tmp_path):
    for kind, (path, expected) in _other_format_files(tmp_path).items():
        r = zt("info", path, "--json")
        if r.returncode == 1 and "unsupported" in r.stderr:
            continue  # this build has no parser for the format
        assert r.returncode == 0, (kind, r.stderr)
        assert json.loads(r.stdout)["format"] == kind
        out = tmp_path / f"{kind}.zt"
        assert zt("convert", path, out).returncode == 0
        assert zt("diff", path, out).returncode == 0
        back = tmp_path / f"{kind}.safetensors"
        assert zt("convert", out, back).returncode == 0
        loaded = safetensors_numpy.load_file(str(back))
        for name, arr in expected.items():
            np.testing.assert_array_equal(loaded[name], arr)
            assert loaded[name].dtype == arr.dtype
