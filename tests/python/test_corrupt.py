"""Crafted corrupt files (tests/corrupt): each raises ztensor.ZTensorError
with the expected `.code` at the expected stage, and none crashes the
process. Accepted edge cases (code null) must read cleanly. Choices are
explained in tests/corrupt/README.md."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ztensor = pytest.importorskip("ztensor")

CORRUPT = Path(__file__).resolve().parents[1] / "corrupt"
EXPECTED = json.loads((CORRUPT / "expected.json").read_text())
# Bare codec frames, not .zt files: the code z4ai.decompress must raise.
FRAMES = json.loads((CORRUPT / "frames.json").read_text())
STAGES = ("open", "read", "verify")


def _path(fname):
    return str(CORRUPT / fname)


def test_no_file_crashes_the_process():
    """Runs every file through open/read/verify in a child process: a crash
    (signal, abort) fails this test instead of killing the test run."""
    script = textwrap.dedent("""
        import json, sys, ztensor
        files = json.loads(sys.argv[1])
        for path in files:
            print(path, flush=True)
            try:
                with ztensor.open(path) as r:
                    for name in r.keys():
                        info = r.object(name)
                        for role in info.components:
                            try:
                                r.read_component(name, role)
                            except ztensor.ZTensorError:
                                pass
                        try:
                            r.read(name)
                        except ztensor.ZTensorError:
                            pass
                    try:
                        r.verify()
                    except ztensor.ZTensorError:
                        pass
            except ztensor.ZTensorError:
                pass
        print("done", flush=True)
    """)
    files = json.dumps([_path(f) for f in sorted(EXPECTED)])
    p = subprocess.run([sys.executable, "-c", script, files], capture_output=True, text=True, timeout=600)
    last = p.stdout.strip().splitlines()[-1:] or ["<none>"]
    assert p.returncode == 0 and last == ["done"], (
        f"child exited {p.returncode} while on {last[0]}\n{p.stderr[-3000:]}")


def test_expected_json_is_well_formed():
    for fname, e in EXPECTED.items():
        assert (CORRUPT / fname).is_file(), fname
        assert e["stage"] in STAGES, fname
        if e["stage"] in ("read", "verify") and e["code"] is not None:
            assert e["object"] and e["role"], fname
        if e["code"] is None:  # an accepted file says what it reads as
            assert e["object"] and e["role"] and e["nbytes"] > 0 and len(e["sha256"]) == 64, fname


def _assert_code(excinfo, e, fname):
    err = excinfo.value
    assert isinstance(err, ztensor.ZTensorError)
    assert isinstance(err, ValueError)
    assert err.code == e["code"], f"{fname}: expected {e['code']}, got {err.code}: {err}"
    assert str(err), f"{fname}: empty error message"


@pytest.mark.parametrize("fname", sorted(f for f, e in EXPECTED.items() if e["code"] and e["stage"] == "open"))
def test_rejected_on_open(fname):
    e = EXPECTED[fname]
    with pytest.raises(ztensor.ZTensorError) as ei:
        with ztensor.open(_path(fname)) as r:
            r.keys()
    _assert_code(ei, e, fname)


@pytest.mark.parametrize("fname", sorted(f for f, e in EXPECTED.items() if "zstn" in e))
def test_safetensors_refused_by_the_zstn_writer_too(fname):
    """The ZSTN writer takes its verdict from the one safetensors parser: what ztensor.open refuses,
    z4ai.safetensors.compress_bytes refuses (a bad argument to it: invalid_argument, the message
    naming the parser's code)."""
    import z4ai.safetensors as zst

    e = EXPECTED[fname]
    with pytest.raises(ztensor.ZTensorError) as ei:
        zst.compress_bytes((CORRUPT / fname).read_bytes())
    assert ei.value.code == e["zstn"], f"{fname}: {ei.value}"
    assert e["code"] in str(ei.value), f"{fname}: {ei.value}"


@pytest.mark.parametrize("fname", sorted(f for f, e in EXPECTED.items() if e["code"] and e["stage"] == "read"))
def test_rejected_on_read(fname):
    e = EXPECTED[fname]
    with ztensor.open(_path(fname)) as r:  # the manifest itself is fine
        assert e["object"] in r
        with pytest.raises(ztensor.ZTensorError) as ei:
            r.read_component(e["object"], e["role"])
        _assert_code(ei, e, fname)
        # the same error through the high-level read
        with pytest.raises(ztensor.ZTensorError) as ei:
            r.read(e["object"])
        _assert_code(ei, e, fname)


def test_unknown_format_reads_components_but_not_as_array():
    """An open-set format (§1 "etc.") keeps its components readable; read()
    cannot build an array of it and says so."""
    with ztensor.open(_path("ok_unknown_format.zt")) as r:
        assert r.object("w").format == "sparse_bsr_future"
        assert r.read_component("w", "data").nbytes == 16
        with pytest.raises(ztensor.ZTensorError) as ei:
            r.read("w")
        assert ei.value.code == "unknown_format"


@pytest.mark.parametrize("fname", sorted(f for f, e in EXPECTED.items() if e["code"] and e["stage"] == "verify"))
def test_rejected_on_verify(fname):
    e = EXPECTED[fname]
    with ztensor.open(_path(fname)) as r:
        r.read_component(e["object"], e["role"])  # without verification the bytes are readable
        with pytest.raises(ztensor.ZTensorError) as ei:
            r.verify()
        _assert_code(ei, e, fname)
    # opt-in verify-on-read reports the same failure no later than the read
    with pytest.raises(ztensor.ZTensorError) as ei:
        with ztensor.open(_path(fname), verify=True) as r:
            r.read_component(e["object"], e["role"])
    _assert_code(ei, e, fname)


@pytest.mark.parametrize("fname", sorted(f for f, e in EXPECTED.items() if e["code"] is None))
def test_accepted_edge_case(fname):
    e = EXPECTED[fname]
    with ztensor.open(_path(fname)) as r:
        for name in r.keys():
            for role in r.object(name).components:
                r.read_component(name, role)
        r.verify()
        got = bytes(r.read_component(e["object"], e["role"]))
        assert len(got) == e["nbytes"] and hashlib.sha256(got).hexdigest() == e["sha256"], fname


@pytest.mark.parametrize("fname", sorted(FRAMES))
def test_codec_frame_refused_with_its_code(fname):
    z4ai = pytest.importorskip("z4ai")
    frame = (CORRUPT / fname).read_bytes()
    for threads in (1, 2):
        with pytest.raises(z4ai.Z4aiError) as ei:
            z4ai.decompress(frame, threads=threads)
        assert ei.value.code == FRAMES[fname]["code"], f"{fname}: {ei.value}"
