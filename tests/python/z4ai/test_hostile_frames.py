"""Tiny frames declaring huge outputs, max_output, and a ZstnReader
shared by threads / used after close. Memory rows run in a subprocess and
assert its peak resident size (VmHWM), not only the error."""

import json
import os
import struct
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import z4ai
from z4ai import safetensors as zs

GiB = 1 << 30


def z4ai_header(mode, length, chunk_bytes, n_chunks):
    return b"Z4AI" + bytes([2, 0, mode, 0]) + struct.pack("<QQII", length, 0, chunk_bytes, n_chunks)


def tiny_chunks_frame(body_bytes, n=16):
    """n chunks of 256 MiB (4 GiB for 16) whose bodies are `body_bytes` of 0xff."""
    return (z4ai_header(0, n << 28, 256 << 20, n) + struct.pack("<I", body_bytes) * n
            + b"\xff" * (body_bytes * n))


def rans_chunks_frame(n=16):
    """n chunks of 256 MiB (4 GiB for 16) whose stream tables hold: each one
    order-0 rANS stream (method 2) whose header (flags 0, varint size 2^28)
    declares the whole chunk, a ratio rANS reaches on a constant chunk."""
    payload = bytes([0, 0x81, 0x80, 0x80, 0x80, 0x00])
    body = bytes([0, 0, 1, 2]) + struct.pack("<II", 256 << 20, len(payload)) + payload
    return z4ai_header(0, n << 28, 256 << 20, n) + struct.pack("<I", len(body)) * n + body * n


def zstd_rle(content_size, blocks):
    """A zstd frame of `blocks` RLE blocks of 128 KiB declaring content_size."""
    out = bytearray(b"\x28\xb5\x2f\xfd\xe0" + struct.pack("<Q", content_size))
    for b in range(blocks):
        h = (1 if b + 1 == blocks else 0) | (1 << 1) | ((128 << 10) << 3)
        out += bytes([h & 0xff, (h >> 8) & 0xff, h >> 16, 0])
    return bytes(out)


def run_child(code, as_limit=None):
    """Runs `code` in a fresh interpreter (optionally under RLIMIT_AS); it
    prints one JSON line, returned with the child's peak RSS in MiB."""
    prologue = "import resource, json, sys\n"
    if as_limit:
        prologue += f"resource.setrlimit(resource.RLIMIT_AS, ({as_limit}, {as_limit}))\n"
    # VmHWM, not ru_maxrss: the latter survives exec and would report the
    # (large) pytest process this child was forked from.
    epilogue = ("\nout['peak_mib'] = [int(l.split()[1]) for l in open('/proc/self/status')"
                " if l.startswith('VmHWM:')][0] / 1024\nprint(json.dumps(out))\n")
    src = prologue + textwrap.dedent(code) + epilogue
    p = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, timeout=300,
                       cwd=os.path.dirname(__file__))
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


CHILD_HELPERS = """
import struct, z4ai
def z4ai_header(mode, length, chunk_bytes, n_chunks):
    return b"Z4AI" + bytes([2, 0, mode, 0]) + struct.pack("<QQII", length, 0, chunk_bytes, n_chunks)
def tiny_chunks_frame(body_bytes, n=16):
    return (z4ai_header(0, n << 28, 256 << 20, n) + struct.pack("<I", body_bytes) * n
            + b"\\xff" * (body_bytes * n))
def outcome(fn):
    try:
        fn()
        return {"error": None}
    except MemoryError:
        return {"error": "MemoryError"}
    except z4ai.Z4aiError as e:  # its subclasses name the code's class too (Z4aiLimitError, ...)
        return {"error": "Z4aiError", "code": e.code, "message": str(e)}
    except ValueError as e:
        return {"error": type(e).__name__, "message": str(e)}
"""


def test_112_byte_frame_declaring_4gib_is_rejected_before_allocating():
    frame = tiny_chunks_frame(1)
    assert len(frame) == 112
    with pytest.raises(z4ai.Z4aiError, match="corrupt_stream") as e:
        z4ai.decompress(frame)
    assert "chunk 0" in str(e.value)
    out = run_child(CHILD_HELPERS + "out = outcome(lambda: z4ai.decompress(tiny_chunks_frame(1)))")
    assert out["error"] == "Z4aiError" and out["peak_mib"] < 256, out


@pytest.mark.parametrize("threads", [1, 0])
def test_lie_in_chunk_0_costs_only_the_first_chunks(threads):
    # Bodies long enough for the chunk table check: the lie is in chunk 0's
    # content, found before any other chunk is touched (one per worker).
    out = run_child(CHILD_HELPERS + f"out = outcome(lambda: z4ai.decompress(tiny_chunks_frame(12), threads={threads}))")
    assert out["error"] == "Z4aiError" and "corrupt_stream" in out["message"], out
    limit = 400 if threads == 1 else 1024  # 4096 MiB declared; a chunk is 256
    assert out["peak_mib"] < limit, out


def test_chunked_frame_declaring_2pow32_elements_is_rejected_before_allocating():
    z = zstd_rle(2**32 - 1, 2)
    frame = b"Z4AIMF01" + bytes([0, 1]) + struct.pack("<IIB", 1, 2**32 - 1, 0) + b"\x01" + struct.pack("<I", len(z)) + z
    assert len(frame) < 80
    with pytest.raises(z4ai.Z4aiError, match="length_mismatch"):
        z4ai.chunked.decompress(frame)
    code = CHILD_HELPERS + f"out = outcome(lambda: z4ai.chunked.decompress({frame!r}))"
    out = run_child(code)
    assert out["error"] == "Z4aiError" and out["peak_mib"] < 256, out


def test_82_byte_frame_declaring_1tb_is_not_memory_error():
    # Whole-buffer mode; the zstd frame also claims 1 TB but stores 9 RLE blocks.
    frame = z4ai_header(1, 10**12, 0, 0) + zstd_rle(10**12, 9)
    assert len(frame) == 81
    with pytest.raises(z4ai.Z4aiError) as e:
        z4ai.decompress(frame)
    assert str(e.value).startswith("length_mismatch") and str(10**12) in str(e.value)


def test_declaration_the_machine_cannot_hold_is_limit_exceeded():
    # A well-formed 4 GiB frame (32768 RLE blocks): under a 1 GiB address
    # space limit the output cannot be allocated.
    code = CHILD_HELPERS + textwrap.dedent("""
        z = b"\\x28\\xb5\\x2f\\xfd\\xe0" + struct.pack("<Q", 4 << 30)
        blk = bytes([0x02, 0x00, 0x10, 0x00])
        z += blk * 32767 + bytes([0x03, 0x00, 0x10, 0x00])
        frame = z4ai_header(1, 4 << 30, 0, 0) + z
        out = outcome(lambda: z4ai.decompress(frame))
    """)
    out = run_child(code, as_limit=GiB)
    assert out["error"] == "Z4aiError", out
    assert out["message"].startswith("limit_exceeded") and str(4 << 30) in out["message"], out


def test_max_output_refuses_larger_declarations():
    data = np.random.default_rng(1).standard_normal(5000).astype(np.float32).tobytes()
    frame = z4ai.compress(data, dtype="fp32")
    with pytest.raises(z4ai.Z4aiError, match="limit_exceeded") as e:
        z4ai.decompress(frame, max_output=len(data) - 1)
    assert str(len(data)) in str(e.value) and str(len(data) - 1) in str(e.value)
    assert z4ai.decompress(frame, max_output=len(data)) == data
    cf = z4ai.chunked.compress(data, dtype="fp32")
    with pytest.raises(z4ai.Z4aiError, match="limit_exceeded"):
        z4ai.chunked.decompress(cf, max_output=1000)
    with pytest.raises(z4ai.Z4aiError, match="limit_exceeded"):
        z4ai.decompress(cf, max_output=1000)
    df = z4ai.compress_delta(data, data, dtype="fp32")
    with pytest.raises(z4ai.Z4aiError, match="limit_exceeded"):
        z4ai.decompress_delta(df, data, max_output=1000)
    arr = np.frombuffer(data, dtype=np.float32)
    with pytest.raises(z4ai.Z4aiError, match="limit_exceeded"):
        z4ai.decompress_array(z4ai.compress_array(arr), max_output=1000)
    # A 4 GiB claim its stream tables can justify is refused by max_output
    # before anything is allocated (one they cannot is corrupt_stream first).
    with pytest.raises(z4ai.Z4aiError, match="limit_exceeded"):
        z4ai.decompress(rans_chunks_frame(), max_output=64 << 20)
    with pytest.raises(z4ai.Z4aiError, match="corrupt_stream"):
        z4ai.decompress(tiny_chunks_frame(12), max_output=64 << 20)


def build_safetensors(tensors):
    header, blobs, pos = {}, [], 0
    for name, arr in tensors.items():
        raw = arr.tobytes()
        header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [pos, pos + len(raw)]}
        blobs.append(raw)
        pos += len(raw)
    hj = json.dumps(header).encode()
    hj += b" " * (-len(hj) % 8)
    return struct.pack("<Q", len(hj)) + hj + b"".join(blobs)


@pytest.fixture
def zstn_file(tmp_path):
    rng = np.random.default_rng(2)
    tensors = {f"t{i}": (rng.standard_normal(2000 + 500 * i) * 0.02).astype(np.float32) for i in range(6)}
    path = tmp_path / "m.zstn"
    path.write_bytes(zs.compress_bytes(build_safetensors(tensors)))
    return str(path), {k: v.tobytes() for k, v in tensors.items()}


def test_one_reader_shared_by_8_threads(tmp_path):
    # Small frames and a tiny GIL switch interval: the threads spend their
    # time in the reader's file access, where a shared position would break.
    rng = np.random.default_rng(3)
    tensors = {f"t{i}": (rng.standard_normal(64 + 500 * i) * 0.02).astype(np.float32) for i in range(6)}
    path = tmp_path / "m.zstn"
    path.write_bytes(zs.compress_bytes(build_safetensors(tensors)))
    want = {k: v.tobytes() for k, v in tensors.items()}
    names = sorted(want)
    failures, wrong = [], []
    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    with zs.ZstnReader.open(str(path)) as r:
        def work(seed):
            for i in range(3000):
                name = names[(seed + i) % len(names)]
                try:
                    got = r.read_raw(name)
                except ValueError as e:
                    failures.append(str(e))
                    continue
                if got != want[name]:
                    wrong.append(name)
        threads = [threading.Thread(target=work, args=(s,)) for s in range(8)]
        for t in threads:
            t.start()
        try:
            for t in threads:
                t.join()
        finally:
            sys.setswitchinterval(old_interval)
    assert failures == [] and wrong == [], (len(failures), failures[:3], len(wrong))


@pytest.mark.parametrize("opener", ["open", "from_bytes"])
def test_every_call_after_close_raises_the_closed_reader_error(zstn_file, opener):
    path, want = zstn_file
    r = zs.ZstnReader.open(path) if opener == "open" else zs.ZstnReader.from_bytes(open(path, "rb").read())
    r.close()
    assert r.closed
    calls = [lambda: r.read_numpy("t0"), lambda: r.read_raw("t0"), lambda: r.frame_size("t0"), r.names, r.header,
             r.metadata]
    for call in calls:
        with pytest.raises(ValueError) as e:
            call()
        assert e.value.code == "invalid_argument" and "closed" in str(e.value)
