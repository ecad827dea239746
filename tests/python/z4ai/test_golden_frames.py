"""Our own golden frames (tests/golden/codec) through the Python package:
each decodes to its input's SHA-256 and encoding it again gives the frame
byte for byte. The C++ test (golden_frames_test.cc) checks the library; this
one the binding's options and buffers, and the Z4NA wrapper, which only the
Python package writes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import z4ai
from z4ai import chunked, model_delta
from z4ai import safetensors as zst

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "codec"
CASES = {c["name"]: c for c in json.loads((GOLDEN / "manifest.json").read_text())["cases"]}


def _frame(case) -> bytes:
    return (GOLDEN / case["frame"]).read_bytes()


def _decode(case) -> bytes:
    frame, kind = _frame(case), case["kind"]
    if kind in ("z4ai", "z4na"):
        return bytes(z4ai.decompress(frame))
    if kind == "delta":
        return bytes(z4ai.decompress_delta(frame, _decode(CASES[case["reference"]])))
    if kind == "model_delta":
        return bytes(model_delta.decompress(frame, _decode(CASES[case["base"]])))
    if kind == "zstn":
        return bytes(zst.decompress_bytes(frame))
    assert kind == "chunked", kind
    return bytes(chunked.decompress(frame))


def _encode(case, data: bytes, threads: int) -> bytes:
    o, kind = case["options"], case["kind"]
    level = None if o.get("level", -1) == -1 else o["level"]
    if kind == "z4ai":
        return z4ai.compress(data, dtype=o["dtype"] or None, level=level, effort=o["effort"], auto=o["auto"],
                             threads=threads)
    if kind == "delta":
        return z4ai.compress_delta(data, _decode(CASES[case["reference"]]), dtype=o["dtype"], level=level,
                                   threads=threads)
    if kind == "model_delta":
        return model_delta.compress(data, _decode(CASES[case["base"]]), level=level, threads=threads)
    if kind == "zstn":
        return zst.compress_bytes(data, level=level, threads=threads, workers=threads)
    if kind == "z4na":
        arr = np.frombuffer(data, dtype=o["dtype"]).reshape(o["shape"])
        return z4ai.compress_array(arr, threads=threads)
    assert kind == "chunked", kind
    return chunked.compress(data, dtype={2: "bf16"}.get(o["width"]), level=level, threads=threads,
                            chunk_size=o["chunk_size"])


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c["kind"] != "zt"])
def test_golden_frame_round_trips_through_python(name):
    case = CASES[name]
    data = _decode(case)
    assert len(data) == case["input_bytes"]
    assert hashlib.sha256(data).hexdigest() == case["input_sha256"]
    if "encoder_refuses" in case:  # pinned for the readers: today's writer refuses its input
        with pytest.raises(z4ai.Z4aiError) as e:
            _encode(case, data, 1)
        assert e.value.code == case["encoder_refuses"]
        return
    for threads in (1, 2):
        assert _encode(case, data, threads) == _frame(case), f"threads={threads}: {case['path']}"


def test_zt_with_z4ai_components_round_trips(tmp_path):
    """ztensor reads the .zt case's objects and writes them again, the same file."""
    import ztensor

    case = CASES["zt_z4ai_components"]
    with ztensor.open(str(GOLDEN / case["frame"])) as r:
        arrays = [(name, np.ascontiguousarray(r.read(name)), effort) for name, effort in case["options"]["objects"]]
    data = b"".join(a.tobytes() for _, a, _ in arrays)
    assert hashlib.sha256(data).hexdigest() == case["input_sha256"]
    out = tmp_path / "again.zt"
    with ztensor.Writer(str(out)) as wr:
        for name, arr, effort in arrays:
            wr.add(name, arr, compression="z4ai", effort=effort, checksum="sha256")
    assert out.read_bytes() == _frame(case)


def test_z4na_wrapper_names_dtype_and_shape():
    case = CASES["z4na_fp32"]
    arr = z4ai.decompress_array(_frame(case))
    assert arr.dtype == np.dtype(case["options"]["dtype"]) and list(arr.shape) == case["options"]["shape"]
