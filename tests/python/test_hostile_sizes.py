"""Declared sizes a file cannot back: a 1 MiB .zt whose zstd
component declares 64 GiB ends in length_mismatch, in bounded memory, from
Python (an error with .code, never MemoryError) and from the CLI (a clean
message, exit 1)."""

import resource
import struct
import subprocess
import sys
import textwrap

import cbor2
import numpy as np
import pytest

import ztensor
from _cli import ZT

CLAIM = 64 << 30


def hostile_zt(path):
    """1 MiB of incompressible f32 stored with zstd, its manifest then made to
    declare CLAIM bytes (shape to match)."""
    data = np.random.default_rng(9).integers(0, 2**32, 1 << 18, dtype=np.uint32).view(np.float32)
    with ztensor.Writer(path) as w:
        w.add("w", data, compression="zstd")
    raw = path.read_bytes()
    msize = struct.unpack("<Q", raw[-16:-8])[0]
    start = len(raw) - 16 - msize
    m = cbor2.loads(raw[start:-16])
    obj = m["objects"]["w"]
    obj["shape"] = [CLAIM // 4]
    obj["components"]["data"]["uncompressed_length"] = CLAIM
    cbor = cbor2.dumps(m)
    path.write_bytes(raw[:start] + cbor + struct.pack("<Q", len(cbor)) + b"ZTEN1000")
    return path


def test_python_read_is_length_mismatch_in_bounded_memory(tmp_path):
    p = hostile_zt(tmp_path / "bomb.zt")
    # In a child limited to 1 GiB of address space: an allocation driven by
    # the declaration would be a MemoryError there, not length_mismatch.
    code = textwrap.dedent(f"""
        import resource, sys
        import ztensor
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        r = ztensor.open({str(p)!r})
        for call in (lambda: r.read_numpy("w"), r.verify):
            try:
                call()
            except ztensor.FormatError as e:
                print(e.code, str(e))
            else:
                sys.exit("no error")
    """)
    env = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**env, "PYTHONPATH": ":".join(sys.path)})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2
    for line in lines:
        assert line.startswith("length_mismatch ") and str(CLAIM) in line and "frame content size" in line


@pytest.mark.skipif(ZT is None, reason="zt binary not found: build it or set ZT_CLI")
@pytest.mark.parametrize("cmd", [["verify"], ["convert", "{out}"]])
def test_cli_clean_message_exit_1(tmp_path, cmd):
    p = hostile_zt(tmp_path / "bomb.zt")
    out = tmp_path / "out.safetensors"
    args = [a.format(out=out) for a in cmd]
    r = subprocess.run([ZT, args[0], str(p), *args[1:]], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "length_mismatch" in r.stderr and "bad_alloc" not in r.stderr
    assert not out.exists()
