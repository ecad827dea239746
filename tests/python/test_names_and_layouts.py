"""Names and layouts the format can carry safely: a name with NUL is refused
by every reader and writer (C strings end there: `a` and `a\\0b` printed as
two `a`); a .zt whose components share bytes is refused by Python and `zt
verify` (C: tests/unit/capi_shared_bytes_test.c); a writer refuses what its
own reader would refuse (attributes nesting past the CBOR depth limit)."""

import io
import json
import struct
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest
from _cli import ZT, needs_zt
from _util import write_gguf

import ztensor
import ztensor.numpy as ztnp

CORRUPT = Path(__file__).resolve().parents[1] / "corrupt"
SHARED_BYTES = ["components_alias_same_bytes.zt", "components_overlap_prefix.zt", "component_inside_another.zt",
                "component_read_as_zstd_and_raw.zt"]
NUL_NAMES = ["name_with_nul.zt", "name_with_nul_shadows_another.zt", "role_with_nul.zt"]
A = np.arange(4, dtype=np.float32)


def zt(*args):
    return subprocess.run([ZT, *map(str, args)], capture_output=True, text=True, timeout=120)


def refused(path, code="invalid_structure"):
    with pytest.raises(ztensor.ZTensorError) as e:
        ztensor.open(path)
    assert e.value.code == code, e.value
    return str(e.value)


# --- NUL in names: every reader ------------------------------------------------


def safetensors_with_names(path, names):
    header = {n: {"dtype": "F32", "shape": [4], "data_offsets": [16 * i, 16 * i + 16]} for i, n in enumerate(names)}
    h = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(h)) + h + A.tobytes() * len(names))


def npz_with_member(path, name):
    """np.savez cannot write a NUL into a member name (zipfile cuts names
    there): write a placeholder of the same length and patch the bytes."""
    placeholder = name.replace("\0", "#")
    buf = io.BytesIO()
    np.savez(buf, **{"a": A, placeholder: A})
    data = buf.getvalue().replace(f"{placeholder}.npy".encode(), f"{name}.npy".encode())
    path.write_bytes(data)


def torch_with_key(path, key):
    torch = pytest.importorskip("torch")
    torch.save({"a": torch.ones(2), key: torch.zeros(2)}, str(path))


def onnx_with_initializer(path, name):
    onnx = pytest.importorskip("onnx")
    from onnx import helper, numpy_helper

    graph = helper.make_graph([], "g", [], [], initializer=[numpy_helper.from_array(A, "a"),
                                                            numpy_helper.from_array(A, name)])
    onnx.save_model(helper.make_model(graph), str(path))


@pytest.mark.parametrize("fmt", ["safetensors", "gguf", "npz", "pytorch", "onnx"])
def test_a_nul_in_a_name_is_refused_by_every_reader(tmp_path, fmt):
    name = "a\0b"
    path = tmp_path / f"m.{ {'pytorch': 'pt'}.get(fmt, fmt)}"
    if fmt == "safetensors":
        safetensors_with_names(path, ["a", name])
    elif fmt == "gguf":
        write_gguf(path, {"a": A, name: A})
    elif fmt == "npz":
        npz_with_member(path, name)
    elif fmt == "pytorch":
        torch_with_key(path, name)
    else:
        onnx_with_initializer(path, name)
    assert "NUL" in refused(path)


def test_a_nul_in_a_sharded_index_entry_is_refused(tmp_path):
    ztnp.save_file({"a": A, "b": A}, tmp_path / "m.zt", max_shard_size=16)
    index = tmp_path / "m.zt.index.json"
    j = json.loads(index.read_text())
    j["weight_map"]["a\0b"] = j["weight_map"]["a"]
    index.write_text(json.dumps(j))
    assert "NUL" in refused(index)


@needs_zt
@pytest.mark.parametrize("fname", NUL_NAMES)
def test_a_zt_with_a_nul_name_is_refused_by_python_and_the_cli(fname):
    refused(CORRUPT / fname)
    for command in ("ls", "verify"):
        r = zt(command, CORRUPT / fname)
        assert r.returncode == 1 and "invalid_structure" in r.stderr, (command, r.stdout, r.stderr)


def test_writers_refuse_a_nul_in_a_name(tmp_path):
    for call in (lambda: ztnp.save_file({"a": A, "a\0b": A}, tmp_path / "s.zt"),
                 lambda: ztnp.save_file({"a\0b": A}, tmp_path / "s.zt", max_shard_size=8)):
        with pytest.raises(ztensor.ZTensorError) as e:
            call()
        assert e.value.code == "invalid_argument" and "NUL" in str(e.value)
    with ztensor.Writer(tmp_path / "w.zt") as w:
        w.add("a", A)
        with pytest.raises(ztensor.ZTensorError) as e:
            w.add("a\0b", A)
        assert e.value.code == "invalid_argument"
    with ztensor.open(tmp_path / "w.zt") as r:
        assert r.keys() == ["a"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.zt"]


# --- components sharing bytes -------------------------------------------------------


@needs_zt
@pytest.mark.parametrize("fname", SHARED_BYTES)
def test_components_sharing_bytes_are_refused_by_python_and_zt_verify(fname):
    assert "shares bytes with" in refused(CORRUPT / fname)
    r = zt("verify", CORRUPT / fname)
    assert r.returncode == 1 and "invalid_structure" in r.stderr and "shares bytes" in r.stderr, r.stderr


def test_our_writer_never_shares_bytes_even_for_identical_or_empty_tensors(tmp_path):
    ztnp.save_file({"a": A, "b": A.copy(), "e": np.zeros(0, np.float32), "f": np.zeros(0, np.float32)},
                   tmp_path / "w.zt", compression="zstd")
    with ztensor.open(tmp_path / "w.zt") as r:
        np.testing.assert_array_equal(r.read("b"), A)


# --- a writer refuses what its reader refuses ----------------------------------


def nested(levels):
    """A map holding maps `levels` deep in all (the outer one included)."""
    v = {"leaf": 1}
    for _ in range(levels - 1):
        v = {"x": v}
    return v


# kMaxCborDepth (64) counted from the manifest's root map: file attributes
# sit one level below it, an object's three.
FILE_ATTRIBUTES_ROOM = 63
OBJECT_ATTRIBUTES_ROOM = 61


def test_file_attributes_too_deep_for_the_reader_are_refused_by_the_writer(tmp_path):
    ok = tmp_path / "ok.zt"
    with ztensor.Writer(ok, attributes={"cfg": nested(FILE_ATTRIBUTES_ROOM - 1)}) as w:
        w.add("a", A)
    with ztensor.open(ok) as r:
        assert r.attributes["cfg"]["x"]["x"]
    with pytest.raises(ztensor.ZTensorError) as e:
        ztensor.Writer(tmp_path / "deep.zt", attributes={"cfg": nested(FILE_ATTRIBUTES_ROOM)})
    assert e.value.code == "invalid_argument" and "kMaxCborDepth" in str(e.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.zt"]


def test_object_attributes_too_deep_for_the_reader_are_refused_by_the_writer(tmp_path):
    with ztensor.Writer(tmp_path / "ok.zt") as w:
        w.add("a", A, attributes=nested(OBJECT_ATTRIBUTES_ROOM))
        with pytest.raises(ztensor.ZTensorError) as e:
            w.add("b", A, attributes=nested(OBJECT_ATTRIBUTES_ROOM + 1))
        assert e.value.code == "invalid_argument"
    with ztensor.open(tmp_path / "ok.zt") as r:
        assert r.keys() == ["a"]
