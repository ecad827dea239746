"""Frames written by PyPI z4ai 0.2.0 decode bit-exact through our API and CLI.

tests/golden/z4ai-0.2.0/ holds frames that package wrote from seeded data
(make_frames.py there, run in a separate venv: it shares our module name) with
the bytes each must decode to. A second set is regenerated on the fly with
the peer venv (Z4AI_PEER_VENV, default build/peers/z4ai-0.2.0), adding inputs
large enough for its parallel coders; without the venv that test skips, and
under ZT_NO_SKIPS=1 (make test) it creates the venv with pip instead.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
from pathlib import Path

import pytest

import z4ai
from z4ai import model_delta
from z4ai import safetensors as zst
from _cli import ZT
from _peer_venv import clean_env as _clean_env, ensure_venv

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden" / "z4ai-0.2.0"
MAKER = GOLDEN / "make_frames.py"
PEER_PACKAGES = ["z4ai==0.2.0", "numpy", "brotli"]
NO_SKIPS = os.environ.get("ZT_NO_SKIPS") == "1"



def _read(folder: Path, name: str) -> bytes:
    data = (folder / name).read_bytes()
    return gzip.decompress(data) if name.endswith(".gz") else data


def _manifest(folder: Path) -> list:
    return json.loads((folder / "manifest.json").read_text())["cases"]


def _decode(folder: Path, case: dict) -> bytes:
    frame = _read(folder, case["frame"])
    api = case["api"]
    if api == "decompress":
        return bytes(z4ai.decompress(frame))
    if api == "decompress_delta":
        return bytes(z4ai.decompress_delta(frame, _read(folder, case["reference"])))
    if api == "model_delta":
        return bytes(model_delta.decompress(frame, _read(folder, case["reference"])))
    assert api == "zstn", api
    return bytes(zst.decompress_bytes(frame))


def _check_all(folder: Path) -> None:
    failures = []
    for case in _manifest(folder):
        try:
            got = _decode(folder, case)
        except Exception as e:  # collect every failing frame, not only the first
            failures.append(f"{case['name']}: {type(e).__name__}: {e}")
            continue
        if got != _read(folder, case["expected"]):
            failures.append(f"{case['name']}: decoded bytes differ")
    assert not failures, "\n".join(failures)


GOLDEN_CASES = _manifest(GOLDEN)


@pytest.mark.parametrize("case", GOLDEN_CASES, ids=[c["name"] for c in GOLDEN_CASES])
def test_golden_frame_decodes_bit_exact(case):
    assert _decode(GOLDEN, case) == _read(GOLDEN, case["expected"])


def test_golden_set_covers_every_frame_kind():
    magics = {_read(GOLDEN, c["frame"])[:4] for c in GOLDEN_CASES}
    assert {b"Z4AI", b"ZARA", b"ZSP1", b"ZPL1", b"Z4DL", b"Z4DM", b"ZSTN"} <= magics


@pytest.mark.parametrize("case", [c for c in GOLDEN_CASES if c["api"] == "decompress"][:12],
                         ids=lambda c: c["name"])
def test_decompress_into_out_and_max_output(case):
    frame = _read(GOLDEN, case["frame"])
    want = _read(GOLDEN, case["expected"])
    kind, _, length = z4ai._z4ai.peek(frame)
    assert kind in ("Z4AI", "ZARA") and length == len(want)
    out = bytearray(len(want))
    assert bytes(z4ai.decompress(frame, out=out)) == want
    if want:
        with pytest.raises(z4ai.Z4aiError, match="max_output"):
            z4ai.decompress(frame, max_output=len(want) - 1)


def test_zstn_reader_reads_each_tensor():
    case = next(c for c in GOLDEN_CASES if c["name"] == "zstn")
    st = _read(GOLDEN, case["expected"])
    header_len = int.from_bytes(st[:8], "little")
    header = json.loads(st[8:8 + header_len])
    data = st[8 + header_len:]
    with zst.ZstnReader.from_bytes(_read(GOLDEN, case["frame"])) as r:
        for name, meta in header.items():
            if name == "__metadata__":
                continue
            b, e = meta["data_offsets"]
            assert r.read_raw(name) == data[b:e], name


def test_pypi_frames_are_recognised():
    from z4ai import delta
    for case in GOLDEN_CASES:
        frame = _read(GOLDEN, case["frame"])
        if case["api"] in ("decompress", "decompress_delta"):
            assert z4ai.peek_is_z4ai(frame), case["name"]
        assert delta.peek_is_delta(frame) == (case["api"] == "decompress_delta"), case["name"]
        assert model_delta.peek_is_model_delta(frame) == (case["api"] == "model_delta"), case["name"]


def test_delta_with_the_wrong_reference_is_refused():
    case = next(c for c in GOLDEN_CASES if c["name"] == "delta_f32")
    ref = bytearray(_read(GOLDEN, case["reference"]))
    ref[0] ^= 1
    with pytest.raises(z4ai.Z4aiError, match="Z4DL.*BLAKE2b"):
        z4ai.decompress_delta(_read(GOLDEN, case["frame"]), bytes(ref))


def test_model_delta_with_the_wrong_base_is_refused():
    case = next(c for c in GOLDEN_CASES if c["api"] == "model_delta")
    base = bytearray(_read(GOLDEN, case["reference"]))
    base[-1] ^= 1
    with pytest.raises(z4ai.Z4aiError, match="PyPI z4ai 0.x Z4DM v1"):
        model_delta.decompress(_read(GOLDEN, case["frame"]), bytes(base))


def test_unreadable_layout_is_named():
    # A ZARA v1 frame with a transform PyPI 0.2.0 never writes: the error
    # names the PyPI layout, not a rule of our own frame header.
    frame = bytearray(_read(GOLDEN, "f32_max.z4"))
    assert frame[:5] == b"ZARA\x01"
    frame[6] = 9  # the transform byte
    with pytest.raises(z4ai.Z4aiError, match="PyPI z4ai 0.x ZARA v1 frame: unknown transform 9"):
        z4ai.decompress(bytes(frame))
    dm = bytearray(_read(GOLDEN, "model_delta.z4"))
    with pytest.raises(z4ai.Z4aiError, match="PyPI z4ai 0.x Z4DM v1 frame") as e:
        model_delta.decompress(bytes(dm[:-3]), _read(GOLDEN, "model_base.st"))
    assert "reserved bytes" not in str(e.value)


def test_damaged_lengths_are_refused_before_allocating():
    frame = bytearray(_read(GOLDEN, "f32_default.z4"))
    with pytest.raises(z4ai.Z4aiError, match="PyPI z4ai 0.x Z4AI v1"):
        z4ai.decompress(bytes(frame[:-1]))
    huge = bytearray(_read(GOLDEN, "empty_default.z4"))
    assert huge[:5] == b"Z4AI\x01"
    pos = len(huge) - 16  # the one stream: u8 method, u64 length, u64 coded length (0)
    huge[pos:pos + 8] = (1 << 40).to_bytes(8, "little")
    with pytest.raises(z4ai.Z4aiError, match="PyPI z4ai 0.x Z4AI v1"):
        z4ai.decompress(bytes(huge))


def _zt(*args):
    return subprocess.run([ZT, *map(str, args)], capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(ZT is None, reason="zt binary not found: build it or set ZT_CLI")
def test_cli_reads_pypi_containers(tmp_path):
    zstn = tmp_path / "m.zstn"
    zstn.write_bytes(_read(GOLDEN, "zstn.z4"))
    r = _zt("verify", zstn)
    assert r.returncode == 0 and "0 digests checked" in r.stdout and "PyPI z4ai 0.x" in r.stdout, r.stdout + r.stderr
    r = _zt("decompress", zstn, tmp_path / "m.safetensors")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "m.safetensors").read_bytes() == _read(GOLDEN, "zstn.st")
    r = _zt("info", zstn)
    assert r.returncode == 0 and "fc_tied" in r.stdout, r.stderr
    dm = tmp_path / "d.z4dm"
    dm.write_bytes(_read(GOLDEN, "model_delta.z4"))
    base = tmp_path / "base.safetensors"
    base.write_bytes(_read(GOLDEN, "model_base.st"))
    r = _zt("info", dm)
    assert r.returncode == 0 and "PyPI z4ai 0.x" in r.stdout, r.stderr
    r = _zt("verify", dm)
    assert r.returncode == 0 and "no trailer digest" in r.stdout, r.stderr
    r = _zt("delta", "--apply", base, dm, tmp_path / "t.safetensors")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "t.safetensors").read_bytes() == _read(GOLDEN, "model_target.st")


# ------------------------------------------------------------ fresh frames
def _peer_ok(py: Path) -> bool:
    probe = "import importlib.metadata as m, numpy, brotli, z4ai; assert m.version('z4ai') == '0.2.0'"
    return py.exists() and subprocess.run([str(py), "-I", "-c", probe], capture_output=True,
                                          env=_clean_env()).returncode == 0


@pytest.fixture(scope="session")
def peer_python() -> Path:
    venv = Path(os.environ.get("Z4AI_PEER_VENV", REPO / "build" / "peers" / "z4ai-0.2.0"))
    if not _peer_ok(venv / "bin" / "python") and not NO_SKIPS:
        pytest.skip(f"no PyPI z4ai 0.2.0 venv at {venv} (ZT_NO_SKIPS=1 creates it)")
    return ensure_venv(venv, PEER_PACKAGES, _peer_ok, "PyPI z4ai 0.2.0")


def test_fresh_peer_frames_decode_bit_exact(peer_python, tmp_path):
    out = tmp_path / "fresh"
    p = subprocess.run([str(peer_python), "-I", str(MAKER), str(out)], capture_output=True, text=True,
                       timeout=1800, env=_clean_env())
    assert p.returncode == 0, p.stderr[-3000:]
    _check_all(out)
    # The container over the 64 MiB streaming window, through the CLI.
    if ZT is not None:
        case = next(c for c in _manifest(out) if c["name"] == "zstn_big")
        zstn = out / "big.zstn"
        zstn.write_bytes(_read(out, case["frame"]))
        r = _zt("decompress", zstn, tmp_path / "big.safetensors")
        assert r.returncode == 0, r.stderr
        assert (tmp_path / "big.safetensors").read_bytes() == _read(out, case["expected"])
