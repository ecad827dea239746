"""A .zt truncated by another process while a Reader has it mapped gives an
error from Reader.verify and reads, not SIGBUS (issue 9)."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ztensor


def write(path):
    with ztensor.Writer(path) as w:
        for i in range(4):
            w.add(f"w{i}", np.full(1 << 16, i, np.float32), checksum="sha256")
        w.add("z", np.arange(1 << 16, dtype=np.float32), compression="zstd")


def test_verify_and_read_after_truncation_are_errors(tmp_path):
    p = tmp_path / "m.zt"
    write(p)
    # In a child, so a SIGBUS fails this test instead of killing pytest.
    code = textwrap.dedent(f"""
        import os, ztensor
        r = ztensor.open({str(p)!r})
        r.verify()
        os.truncate({str(p)!r}, 4096)
        for call in (r.verify, lambda: r.read("w3"), lambda: r.read("z")):
            try:
                call()
            except ztensor.ZTensorIOError as e:
                print(e.code, "truncated" in str(e))
            else:
                print("no error")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert r.stdout.splitlines() == ["io_error True"] * 3
