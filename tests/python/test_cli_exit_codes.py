"""Exit codes: 0 ok, 1 bad input or failed check, 2 usage; `zt diff`
as diff(1): 0 same, 1 differ, 2 trouble. The same bad input gets the same
code from every command."""

import subprocess

import numpy as np
import pytest
from _cli import ZT, needs_zt

safetensors_numpy = pytest.importorskip("safetensors.numpy")

pytestmark = needs_zt


def zt(*args):
    return subprocess.run([ZT, *map(str, args)], capture_output=True, text=True, timeout=120)


@pytest.fixture
def pair(tmp_path):
    a, b = tmp_path / "a.safetensors", tmp_path / "b.safetensors"
    safetensors_numpy.save_file({"w": np.arange(4, dtype=np.float32)}, str(a))
    safetensors_numpy.save_file({"w": np.arange(4, dtype=np.float32) + 1}, str(b))
    return a, b


def test_diff_same_differ_trouble(pair, tmp_path):
    a, b = pair
    assert zt("diff", a, a).returncode == 0
    assert zt("diff", a, b).returncode == 1
    r = zt("diff", a, tmp_path / "missing.safetensors")
    assert r.returncode == 2, r.stderr
    assert "zt: error: io_error: " in r.stderr
    corrupt = tmp_path / "corrupt.zt"
    corrupt.write_bytes(b"ZTEN1000" + b"\0" * 40)
    r = zt("diff", corrupt, a)
    assert r.returncode == 2, r.stderr
    assert "zt: error: " in r.stderr
    assert zt("diff", a).returncode == 2  # usage


@pytest.mark.parametrize("out", ["x.zt", "x.zstn", "x"])
def test_compress_of_a_text_file_is_bad_input_like_convert(tmp_path, out):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a tensor file\n")
    conv = zt("convert", notes, tmp_path / "y.zt")
    r = zt("compress", notes, tmp_path / out)
    assert conv.returncode == 1
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith("zt: error: unsupported: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_verify_of_a_damaged_file_is_1(pair, tmp_path):
    a, _ = pair
    out = tmp_path / "m.zt"
    assert zt("convert", a, out, "--checksum", "sha256").returncode == 0
    raw = bytearray(out.read_bytes())
    raw[64] ^= 1
    out.write_bytes(bytes(raw))
    r = zt("verify", out)
    assert r.returncode == 1
    assert "digest_mismatch" in r.stderr + r.stdout
