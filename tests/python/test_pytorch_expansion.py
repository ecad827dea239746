"""A .pt holding an expand()ed (stride 0) view of a 1-byte storage claims
2 GiB: torch keeps it at 1 byte, and zTensor would materialise it in full.
The checkpoint's decoded bytes are bounded by kMaxPytorchExpansion x its
size (+ 1 MiB) on open, with ZT_PYTORCH_MAX_EXPANSION as the opt-in
(docs/formats/pytorch.md)."""

import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest
from _cli import ZT, needs_zt

import ztensor

EXPANDED = Path(__file__).resolve().parents[1] / "formats" / "pytorch" / "expand_one_byte_to_2gib.pt"


def zt(*args, env=None):
    return subprocess.run([ZT, *map(str, args)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


@needs_zt
def test_the_2_gib_view_of_one_byte_is_refused_on_open(tmp_path):
    with pytest.raises(ztensor.ZTensorError) as e:
        ztensor.open(EXPANDED)
    assert e.value.code == "limit_exceeded" and "kMaxPytorchExpansion" in str(e.value)
    for args in (("convert", EXPANDED, tmp_path / "out.zt"), ("verify", EXPANDED)):
        r = zt(*args)
        assert r.returncode == 1 and "limit_exceeded" in r.stderr and "tensor 'w'" in r.stderr, r.stderr
    assert list(tmp_path.iterdir()) == []


@needs_zt
def test_the_bound_can_be_lifted_explicitly(tmp_path):
    # The same view, 2^7 x 2^15 = 4 MiB: past the bound for a 1 KiB file.
    small = tmp_path / "small.pt"
    small.write_bytes(EXPANDED.read_bytes().replace(b"J" + struct.pack("<i", 1 << 16), b"J" + struct.pack("<i", 1 << 7)))
    r = zt("convert", small, tmp_path / "refused.zt")
    assert r.returncode == 1 and "limit_exceeded" in r.stderr, r.stderr
    r = zt("convert", small, tmp_path / "out.zt", env={"ZT_PYTORCH_MAX_EXPANSION": "0"})
    assert r.returncode == 0, r.stderr
    with ztensor.open(tmp_path / "out.zt") as zr:
        w = zr.read("w")
    assert w.shape == (1 << 7, 1 << 15) and not np.any(w)
