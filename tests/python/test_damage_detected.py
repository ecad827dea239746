"""A flipped byte in a compressed component is caught on every read:
with a digest (checked whenever a component's bytes are decoded, as ztensor
1.2.x did) and without one (the zstd frame checksum); `zt verify` says what
it could not check."""

import json
import subprocess

import numpy as np
import pytest

import ztensor
import ztensor.numpy as ztnp
from _cli import ZT


def damaged(path, checksum):
    data = np.random.default_rng(5).integers(0, 2**32, 4096, dtype=np.uint32).view(np.float32)
    with ztensor.Writer(path) as w:
        w.add("w", data, compression="zstd", checksum=checksum)
    raw = bytearray(path.read_bytes())
    raw[64 + 1000] ^= 0x10  # inside the first blob (offset 64)
    path.write_bytes(bytes(raw))
    return path


@pytest.mark.parametrize("checksum,error", [("sha256", ztensor.DigestMismatchError), (None, ztensor.FormatError)])
def test_every_read_raises(tmp_path, checksum, error):
    p = damaged(tmp_path / "d.zt", checksum)
    with ztensor.open(p) as r:  # verify=False: decoded bytes are checked anyway
        with pytest.raises(error):
            r.read("w")
    with pytest.raises(error):
        ztnp.load_file(str(p))


def test_raw_reads_stay_unchecked_unless_verify(tmp_path):
    p = tmp_path / "raw.zt"
    with ztensor.Writer(p) as w:
        w.add("w", np.arange(64, dtype=np.float32), checksum="sha256")
    raw = bytearray(p.read_bytes())
    raw[64 + 8] ^= 0x10
    p.write_bytes(bytes(raw))
    with ztensor.open(p) as r:
        r.read("w")  # zero-copy, not hashed
    with ztensor.open(p, verify=True) as r, pytest.raises(ztensor.DigestMismatchError):
        r.read("w")


@pytest.mark.skipif(ZT is None, reason="zt binary not found: build it or set ZT_CLI")
def test_zt_verify_catches_digestless_zstd_and_names_what_it_did_not_check(tmp_path):
    d = damaged(tmp_path / "d.zt", None)
    r = subprocess.run([ZT, "verify", str(d)], capture_output=True, text=True)
    assert r.returncode == 1
    assert "corrupt_stream" in r.stderr
    r = subprocess.run([ZT, "diff", str(d), str(d)], capture_output=True, text=True)  # used to say "same"
    assert r.returncode == 2 and "corrupt_stream" in r.stderr and "object 'w'" in r.stderr
    p = tmp_path / "mixed.zt"
    with ztensor.Writer(p) as w:
        w.add("a", np.arange(4, dtype=np.float32))
        w.add("b", np.arange(4, dtype=np.float32), checksum="crc32c")
        w.add("c", np.arange(4, dtype=np.float32), compression="zstd")
    r = subprocess.run([ZT, "verify", str(p)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "1 digests checked; 1 raw components without digest: not checked" in r.stdout
    j = json.loads(subprocess.run([ZT, "verify", str(p), "--json"], capture_output=True, text=True).stdout)
    assert j["unchecked"] == 1 and j["ok"] is True
