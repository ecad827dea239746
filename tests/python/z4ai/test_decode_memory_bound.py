"""Decode memory is bounded by what the stored bytes can justify, before any
output page is touched, at every thread count and through every front end.

tests/corrupt/z4ai_16_stored_chunks_claim_4gib.z4 is a 288-byte Z4AI frame
of 16 chunks of 256 MiB, each the smallest legal body: one stored stream
whose raw length claims the whole chunk and whose payload is empty. The
decoder must refuse it from the chunk's stream table (corrupt_stream) before
it prefaults or writes any output; once it prefaulted each worker's chunk
first (peak 301 / 557 / 1,069 / 4,141 MiB at 1 / 2 / 4 / 16 threads). The same
frame as a .zt component (z4ai_stored_chunks_claim_4gib.zt) goes through
ztensor's reader and `zt verify`; tests/unit/capi_decode_memory_test.c takes
it through the C API.

Peak memory is the kernel's high-water mark from getrusage (ru_maxrss) of a
process forked from a fresh interpreter: ru_maxrss survives exec, so a child
exec'd straight from pytest would report pytest's own size.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from _cli import ZT

CORRUPT = Path(__file__).resolve().parents[2] / "corrupt"
FRAME = CORRUPT / "z4ai_16_stored_chunks_claim_4gib.z4"
ZT_FILE = CORRUPT / "z4ai_stored_chunks_claim_4gib.zt"
CLAIM_MIB = 4096
# Far below one 256 MiB chunk: the refusal may cost tables and stacks, not output pages.
BUDGET_MIB = 64

# Runs in a fresh interpreter: imports, then forks a process whose ru_maxrss
# starts at the interpreter's size, runs `body` there and reports the rise.
MEASURE = textwrap.dedent("""
    import json, os, resource, sys
    {imports}
    def run():
    {body}
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            run()
            out = {{"code": None}}
        except Exception as e:
            out = {{"code": getattr(e, "code", type(e).__name__), "message": str(e)}}
        out["rise_mib"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
        os.write(w, json.dumps(out).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    _, status = os.waitpid(pid, 0)
    assert status == 0, status
    print(data.decode())
""")


def measure(imports: str, body: str) -> dict:
    src = MEASURE.format(imports=imports, body=textwrap.indent(textwrap.dedent(body), "    "))
    p = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_files_are_what_the_row_describes():
    frame = FRAME.read_bytes()
    assert len(frame) == 288 and frame[:4] == b"Z4AI"
    expected = json.loads((CORRUPT / "frames.json").read_text())
    assert expected[FRAME.name]["code"] == "corrupt_stream"
    assert json.loads((CORRUPT / "expected.json").read_text())[ZT_FILE.name]["code"] == "corrupt_stream"


@pytest.mark.parametrize("threads", [1, 2, 4, 16])
def test_z4ai_decompress_refuses_before_touching_output(threads):
    out = measure("import z4ai", f"z4ai.decompress(open({str(FRAME)!r}, 'rb').read(), threads={threads})")
    assert out["code"] == "corrupt_stream", out
    assert out["rise_mib"] < BUDGET_MIB, f"peak rose {out['rise_mib']:.0f} MiB for a {CLAIM_MIB} MiB claim"


@pytest.mark.parametrize("threads", [1, 2, 16])
def test_z4ai_decompress_into_a_caller_buffer_refuses_before_touching_it(threads):
    # The caller's 4 GiB buffer is untouched memory until the decoder writes it.
    body = f"""
        import mmap
        buf = mmap.mmap(-1, {CLAIM_MIB << 20})
        z4ai.decompress(open({str(FRAME)!r}, 'rb').read(), out=buf, threads={threads})
    """
    out = measure("import z4ai", body)
    assert out["code"] == "corrupt_stream", out
    assert out["rise_mib"] < BUDGET_MIB, out


def test_ztensor_read_of_the_component_refuses_before_touching_output():
    out = measure("import ztensor", f"""
        with ztensor.open({str(ZT_FILE)!r}) as r:
            r.read_component("x", "data")
    """)
    assert out["code"] == "corrupt_stream", out
    assert out["rise_mib"] < BUDGET_MIB, out


def _zt_peak_mib(args) -> tuple:
    """`zt ARGS` forked from a fresh interpreter: (exit code, its output, peak MiB)."""
    src = textwrap.dedent(f"""
        import os, sys
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.dup2(w, 1)
            os.dup2(w, 2)
            os.execv({ZT!r}, [{ZT!r}] + {list(args)!r})
        os.close(w)
        err = b""
        while chunk := os.read(r, 65536):
            err += chunk
        _, status, ru = os.wait4(pid, 0)
        print(os.waitstatus_to_exitcode(status), ru.ru_maxrss, err.decode(errors="replace").replace("\\n", " "))
    """)
    p = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    rc, kib, err = p.stdout.split(" ", 2)
    return int(rc), err, int(kib) / 1024


def test_zt_verify_refuses_before_touching_output(tmp_path):
    import numpy as np
    import ztensor

    small = tmp_path / "small.zt"
    with ztensor.Writer(str(small)) as w:
        w.add("x", np.zeros(16, dtype=np.uint8), compression="z4ai")
    rc0, _, baseline = _zt_peak_mib(["verify", str(small)])
    assert rc0 == 0
    rc, err, peak = _zt_peak_mib(["verify", str(ZT_FILE)])
    assert rc == 1 and "corrupt_stream" in err, err
    assert peak - baseline < BUDGET_MIB, f"zt verify peaked {peak:.0f} MiB (a valid file: {baseline:.0f} MiB)"
