"""z4ai.chunked.compress writes the frame PyPI z4ai 0.2.0 writes, byte for
byte, at every thread count: the digests in tests/golden/z4ai-0.2.0-chunked
were made by that package (make_digests.py there) from the inputs in
cases.py, which both sides rebuild from seeds."""

import hashlib
import json
import sys
from pathlib import Path

import pytest

import z4ai.chunked

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "z4ai-0.2.0-chunked"
sys.path.insert(0, str(GOLDEN))
from cases import cases  # noqa: E402

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
