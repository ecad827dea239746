"""Interop check for the Z4AIMF01 layout against the PyPI z4ai package.

Frames written by PyPI z4ai must decode in ours and ours in theirs. The two
packages share the import name `z4ai`, so the reference runs in its own
interpreter (a venv with `pip install z4ai==0.2.0 numpy`), and buffers cross
over as files.

    python tests/unit/codec/interop_chunked.py --ref-python build/peers/bench-z4ai/bin/python

Also collectable by pytest (skips when the reference interpreter is absent;
set Z4AI_REF_PYTHON to point at it).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

# The venv bench/setup_peers.sh makes (build/peers, or $ZT_PEER_VENVS).
_PEERS = os.environ.get("ZT_PEER_VENVS", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "build", "peers"))
DEFAULT_REF = os.environ.get("Z4AI_REF_PYTHON", os.path.join(_PEERS, "bench-z4ai", "bin", "python"))

# (dtype, chunk_size, payload builder) -- odd lengths exercise the tail bytes.
CASES = [
    ("bf16", 2097152, lambda rng: (rng.standard_normal(700_001) * 0.02).astype(np.float32).view(np.uint16)[1::2].tobytes() + b"\x07"),
    ("fp32", 1 << 20, lambda rng: (rng.standard_normal(600_000) * 0.02).astype(np.float32).tobytes()),
    ("fp16", 65536, lambda rng: (rng.standard_normal(100_003) * 0.1).astype(np.float16).tobytes()[:-1]),
    ("int64", 2097152, lambda rng: rng.integers(-50, 50, 30_000).astype(np.int64).tobytes()),
    (None, 4096, lambda rng: bytes(rng.integers(0, 4, 10_000, dtype=np.uint8))),
    (None, 2097152, lambda rng: b""),
]

_REF_SCRIPT = r"""
import sys, z4ai.chunked as c
mode, src, dst, dtype, chunk = sys.argv[1:6]
dtype = None if dtype == "-" else dtype
data = open(src, "rb").read()
if mode == "compress":
    out = c.compress(data, dtype=dtype, chunk_size=int(chunk))
else:
    out = c.decompress(data)
open(dst, "wb").write(out)
"""


def _ref(ref_python: str, mode: str, data: bytes, dtype, chunk: int) -> bytes:
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in"), os.path.join(d, "out")
        with open(src, "wb") as f:
            f.write(data)
        subprocess.run([ref_python, "-c", _REF_SCRIPT, mode, src, dst, dtype or "-", str(chunk)], check=True)
        with open(dst, "rb") as f:
            return f.read()


def run(ref_python: str) -> int:
    import z4ai.chunked as ours

    rng = np.random.default_rng(42)
    failures = 0
    for dtype, chunk, build in CASES:
        data = build(rng)
        theirs_frame = _ref(ref_python, "compress", data, dtype, chunk)
        ok1 = ours.decompress(theirs_frame) == data
        our_frame = ours.compress(data, dtype=dtype, chunk_size=chunk)
        ok2 = _ref(ref_python, "decompress", our_frame, dtype, chunk) == data
        ok3 = our_frame == theirs_frame  # the same writer, byte for byte
        print(f"{dtype or 'raw':6} n={len(data):9} theirs->ours {'ok' if ok1 else 'FAIL'} "
              f"ours->theirs {'ok' if ok2 else 'FAIL'} identical {'ok' if ok3 else 'FAIL'} "
              f"sizes theirs={len(theirs_frame)} ours={len(our_frame)}")
        failures += (not ok1) + (not ok2) + (not ok3)
    return failures


def test_chunked_interop():
    import pytest

    if not os.path.exists(DEFAULT_REF):
        pytest.skip(f"reference z4ai interpreter not found at {DEFAULT_REF}")
    assert run(DEFAULT_REF) == 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref-python", default=DEFAULT_REF)
    sys.exit(1 if run(ap.parse_args().ref_python) else 0)
