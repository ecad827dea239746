"""One version per read over HTTP (docs/remote.md "Validators"): a server
that sends neither ETag nor Last-Modified cannot show that two range
requests saw one file, so a read of several requests from it is refused
unless the caller allows it; with a validator, a file swapped between
requests is caught. A loopback server swaps a 15-tensor .zt for another
of the same size and layout between requests.
"""

import os
import subprocess

import numpy as np
import pytest

import ztensor
import ztensor.numpy
from _capi import CApi, find_libztensor
from _cli import ZT, needs_zt
from _servers import FaultServer

NAMES = [f"t{i:02d}" for i in range(15)]
HANG_SECONDS = 60


def model(seed):
    return {n: np.full(64, seed * 100 + i, dtype=np.float32) for i, n in enumerate(NAMES)}


@pytest.fixture
def swapping(tmp_path):
    """A server with no validators whose file becomes another version (same
    size, same layout, other values) after the first request."""
    old, new = tmp_path / "old.zt", tmp_path / "new.zt"
    ztensor.numpy.save_file(model(1), str(old))
    ztensor.numpy.save_file(model(2), str(new))
    assert old.stat().st_size == new.stat().st_size
    server = FaultServer("m.zt", old.read_bytes())
    server.validators = False
    server.swapped = new.read_bytes()
    server.swap_after = 1
    yield server
    server.stop()


@needs_zt
def test_convert_from_a_server_without_validators_is_refused(swapping, tmp_path):
    out_path = tmp_path / "out.zt"
    out = subprocess.run([ZT, "convert", swapping.url(), str(out_path)], capture_output=True, text=True,
                         timeout=HANG_SECONDS)
    # Before: exit 0 and a .zt mixing tensors of both versions.
    assert out.returncode == 1, (out.stdout, out.stderr)
    assert "unsupported" in out.stderr and "neither ETag nor Last-Modified" in out.stderr, out.stderr
    assert "ZT_HTTP_ALLOW_UNVALIDATED" in out.stderr
    assert not out_path.exists()


def test_python_and_c_refuse_it_too(swapping):
    with pytest.raises(ztensor.errors.UnsupportedError, match="neither ETag nor Last-Modified"):
        ztensor.open(swapping.url())
    if find_libztensor():
        code, message, _ = CApi().open_url(swapping.url())
        assert code == "unsupported" and "allow_unvalidated" in message, message


def test_allowing_it_reads_a_file_that_does_not_change(tmp_path):
    path = tmp_path / "m.zt"
    ztensor.numpy.save_file(model(1), str(path))
    server = FaultServer("m.zt", path.read_bytes())
    server.validators = False
    try:
        with ztensor.open(server.url(), storage_options={"allow_unvalidated": True}) as r:
            np.testing.assert_array_equal(r.read("t07"), model(1)["t07"])
        if ZT:
            out = subprocess.run([ZT, "ls", server.url()], capture_output=True, text=True, timeout=HANG_SECONDS,
                                 env={**os.environ, "ZT_HTTP_ALLOW_UNVALIDATED": "1"})
            assert out.returncode == 0 and "t14" in out.stdout, out.stderr
    finally:
        server.stop()


def test_with_an_etag_the_swap_is_caught(swapping):
    swapping.validators = True
    swapping.change_etag_after = 1  # the new version's ETag, as a real server would send
    with pytest.raises(ztensor.errors.FormatError, match="changed while being read"):
        with ztensor.open(swapping.url()) as r:
            for name in NAMES:
                r.read(name)
