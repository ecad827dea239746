""".zstn files in bounded memory, and `zt verify` of a .zstn truncated
under it. The model is ~384 MiB of float32 in 24 tensors; the peak resident
set of compress, decompress and verify (the kernel's high-water mark,
_peak.py) must stay under 256 MiB, well below the model size. compress reads
its input with pread, window by window, so no mapping of the model counts
in that mark either; a tensor larger than the window is read whole."""

import hashlib
import os
import struct
import subprocess
import sys
import textwrap

import pytest

from _cli import REPO, ZT, needs_zt
from _peak import peak_rss_of
from _waits import EVENT_SECONDS, PausePoint
from z4ai import safetensors as zs

sys.path.insert(0, str(REPO / "bench"))
from zstn_memory_bench import write_model  # noqa: E402  (the benchmark's model, smaller)

MiB = 1 << 20
LIMIT = 256 * MiB
N_TENSORS, TENSOR_BYTES = 24, 16 * MiB


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(8 * MiB), b""):
            h.update(block)
    return h.hexdigest()


def peak_within(cmd, limit, what):
    """Runs `cmd`; asserts it succeeds with a peak resident set under `limit`."""
    rc, peak, err, _ = peak_rss_of(cmd)
    assert rc == 0, err
    assert peak < limit, f"{what}: peak resident set {peak / MiB:.0f} MiB, limit {limit / MiB:.0f} MiB"


PY_CHILD = textwrap.dedent("""
    import sys
    from z4ai import safetensors as zs
    getattr(zs, sys.argv[1])(sys.argv[2], sys.argv[3])
""")


def check_streamed_container_is_byte_identical_to_compress_bytes(tmp_path):
    """The streamed file equals compress_bytes, with a tied tensor (REF entry)."""
    st = tmp_path / "small.safetensors"
    write_model(st, n_tensors=40, tensor_bytes=MiB)  # several windows
    with open(st, "rb") as f:
        blob = f.read()
    hlen = struct.unpack_from("<Q", blob)[0]
    data = bytearray(blob[8 + hlen:])
    data[5 * MiB:6 * MiB] = data[2 * MiB:3 * MiB]
    blob = blob[:8 + hlen] + bytes(data)
    st.write_bytes(blob)
    zs.compress_file(str(st), str(tmp_path / "s.zstn"))
    assert (tmp_path / "s.zstn").read_bytes() == zs.compress_bytes(blob)
    zs.decompress_file(str(tmp_path / "s.zstn"), str(tmp_path / "back.safetensors"))
    assert (tmp_path / "back.safetensors").read_bytes() == blob


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    d = tmp_path_factory.mktemp("zstn_mem")
    path = d / "model.safetensors"
    write_model(path, N_TENSORS, TENSOR_BYTES)
    return d, path


def test_python_compress_and_decompress_file_hold_a_window_not_the_model(model):
    d, st = model
    check_streamed_container_is_byte_identical_to_compress_bytes(d)
    z, back = d / "py.zstn", d / "py.safetensors"
    peak_within([sys.executable, "-c", PY_CHILD, "compress_file", st, z], LIMIT, "compress_file")
    peak_within([sys.executable, "-c", PY_CHILD, "decompress_file", z, back], LIMIT, "decompress_file")
    assert sha256(back) == sha256(st)


@needs_zt
def test_cli_compress_and_decompress_hold_a_window_not_the_model(model):
    d, st = model
    z, back = d / "cli.zstn", d / "cli.safetensors"
    peak_within([ZT, "compress", st, z], LIMIT, "zt compress")
    peak_within([ZT, "decompress", z, back], LIMIT, "zt decompress")
    assert sha256(back) == sha256(st)
    if (d / "py.zstn").exists():
        assert sha256(z) == sha256(d / "py.zstn")


@needs_zt
def test_verify_of_a_zstn_truncated_under_it_is_an_error_not_sigbus(model, tmp_path):
    d, st = model
    z = d / "verify.zstn"
    if (d / "cli.zstn").exists():
        z.write_bytes((d / "cli.zstn").read_bytes())
    else:
        zs.compress_file(str(st), str(z))
    size = z.stat().st_size
    # zt stops after its first window of tensors (ZT_TEST_PAUSE_FIFO); the
    # cut lands there, mid-way through decoding the ~384 MiB model.
    with PausePoint(tmp_path) as pause:
        p = subprocess.Popen([ZT, "verify", str(z)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=dict(os.environ, **pause.env))
        try:
            pause.wait(p)
            os.truncate(z, size // 3)
            pause.release()
            _, err = p.communicate(timeout=EVENT_SECONDS)
        finally:
            p.kill()  # only if an assertion above left it running
    assert p.returncode == 1, (p.returncode, err)  # never SIGBUS (-7), never OK
    assert b"length_mismatch" in err or b"truncated" in err or b"ends at byte" in err, err


@needs_zt
def test_one_tensor_larger_than_the_window_streams_chunk_by_chunk(tmp_path):
    # A single 320 MiB tensor: compress, decompress and verify hold a few
    # chunks of it (compress codes them twice: lengths, then bytes), the
    # container is compress_bytes' byte for byte, and the digest is still
    # checked over the whole tensor.
    st, z = tmp_path / "one.safetensors", tmp_path / "one.zstn"
    write_model(st, 1, 320 * MiB)
    # compress reads a tensor whole (pread into its image) before it codes
    # the tensor's chunks, so the one tensor counts on top of the limit.
    peak_within([ZT, "compress", st, z], LIMIT + os.path.getsize(st), "zt compress of one 320 MiB tensor")
    assert sha256(z) == hashlib.sha256(zs.compress_bytes(st.read_bytes())).hexdigest()
    peak_within([ZT, "decompress", z, tmp_path / "back.safetensors"], LIMIT, "zt decompress of one 320 MiB tensor")
    assert sha256(tmp_path / "back.safetensors") == sha256(st)
    peak_within([ZT, "verify", z], LIMIT, "zt verify of one 320 MiB tensor")
    # One flipped byte deep inside the frame's chunks is found.
    with open(z, "r+b") as f:
        f.seek(z.stat().st_size // 2)
        b = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([b[0] ^ 0x55]))
    p = subprocess.run([ZT, "verify", str(z)], capture_output=True)
    assert p.returncode == 1 and (b"digest_mismatch" in p.stderr or b"corrupt_stream" in p.stderr), p.stderr
