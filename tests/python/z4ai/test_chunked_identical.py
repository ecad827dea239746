"""z4ai.chunked.compress writes the frame PyPI z4ai 0.2.0 writes, byte for
byte, at every thread count: the digests in tests/golden/z4ai-0.2.0-chunked
were made by that package (make_digests.py there) from the inputs in
cases.py, which both sides rebuild from seeds. The small tensors of
cases.tiny_tensors() are compared live with the peer's venv (Z4AI_PEER_VENV,
default build/peers/z4ai-0.2.0; test_pypi_z4ai_frames.py's fixture): without
it that test skips, and under ZT_NO_SKIPS=1 (make test) it creates the venv
with pip."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import z4ai.chunked
from _peer_venv import clean_env
from test_pypi_z4ai_frames import peer_python  # noqa: F401  (fixture)

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "z4ai-0.2.0-chunked"
sys.path.insert(0, str(GOLDEN))
from cases import cases, tiny_tensors  # noqa: E402

MANIFEST = json.loads((GOLDEN / "manifest.json").read_text())["cases"]
CASES = cases()


def sha256(b) -> str:
    return hashlib.sha256(b).hexdigest()


@pytest.mark.parametrize("name", sorted(MANIFEST))
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_frame_is_pypis_byte_for_byte(name, threads):
    data, kwargs = CASES[name]
    want = MANIFEST[name]
    assert (len(data), sha256(data)) == (want["input_bytes"], want["input_sha256"]), "input drifted, not the codec"
    frame = z4ai.chunked.compress(data, threads=threads, **kwargs)
    assert (len(frame), sha256(frame)) == (want["frame_bytes"], want["frame_sha256"])
    assert z4ai.chunked.decompress(frame, threads=threads) == data


def test_compress_accepts_every_buffer_kind_and_round_trips():
    data, kwargs = CASES["bf16_odd_tail"]
    frame = z4ai.chunked.compress(data, **kwargs)
    for view in (bytearray(data), memoryview(data), memoryview(bytearray(data))):
        assert z4ai.chunked.compress(view, **kwargs) == frame
    out = z4ai.chunked.decompress(memoryview(frame))
    assert type(out) is bytes and out == data


def test_small_tensors_compressed_alone_match_the_peers_frames(peer_python):
    p = subprocess.run([str(peer_python), "-I", str(GOLDEN / "make_digests.py"), "--tiny"], capture_output=True,
                       text=True, timeout=600, env=clean_env())
    assert p.returncode == 0, p.stderr[-3000:]
    want = json.loads(p.stdout)
    got = {name: sha256(z4ai.chunked.compress(data, dtype=dtype)) for name, (data, dtype) in tiny_tensors().items()}
    assert sorted(got) == sorted(want)
    assert [n for n in got if got[n] != want[n]] == []
