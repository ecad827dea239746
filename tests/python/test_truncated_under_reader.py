"""A .zt truncated by another process while a Reader has it mapped gives an
error from Reader.verify and reads, not SIGBUS. Every cut lands at
a known point of the work (after the open, or at zt's test pause after the
first object), so no outcome depends on timing."""

import os
import subprocess
import sys
import textwrap

import numpy as np

import ztensor
from _cli import ZT, needs_zt
from _waits import EVENT_SECONDS, PausePoint


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


def test_truncation_inside_a_component_under_verify_is_an_error(tmp_path):
    # The file is cut inside a component larger than verify's read window,
    # after the reader mapped it: verify() reads the first windows, then finds
    # no bytes. A reader that hashed the mapping died here with SIGBUS;
    # verify() reads with pread, so the cut is an io_error.
    p = tmp_path / "big.zt"
    with ztensor.Writer(p) as w:
        w.add("big", np.arange(6 << 20, dtype=np.float32), checksum="sha256")  # 24 MiB: three 8 MiB windows
    code = textwrap.dedent(f"""
        import os, ztensor
        path = {str(p)!r}
        r = ztensor.open(path)
        os.truncate(path, os.path.getsize(path) // 2)
        try:
            r.verify()
        except ztensor.ZTensorIOError as e:
            print(e.code, "truncated" in str(e))
        else:
            print("no error")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert r.stdout.split() == ["io_error", "True"]


def write_four(path, elements):
    with ztensor.Writer(path) as w:
        for i in range(4):
            w.add(f"w{i}", np.arange(elements, dtype=np.float32) + i, checksum="sha256")


def run_cut_at_pause(tmp_path, args, src):
    """Runs `zt ARGS`, which stops after its first object (ZT_TEST_PAUSE_FIFO),
    truncates `src` to 4 KiB there and lets it go on: returns (returncode,
    stderr). The cut lands mid-job, never before or after it."""
    with PausePoint(tmp_path) as pause:
        proc = subprocess.Popen([ZT, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, **pause.env))
        try:
            pause.wait(proc)
            os.truncate(src, 4096)
            pause.release()
            _, err = proc.communicate(timeout=EVENT_SECONDS)
        finally:
            proc.kill()  # only if an assertion above left it running
    return proc.returncode, err


@needs_zt
def test_zt_verify_of_a_file_cut_mid_verify_exits_1(tmp_path):
    p = tmp_path / "m.zt"
    write_four(p, 1 << 20)
    rc, err = run_cut_at_pause(tmp_path, ["verify", p], p)
    assert rc == 1, err  # never a signal, never OK
    assert "io_error" in err and "truncated" in err, err


# Converting a .zt that another process truncates mid-conversion: the raw
# components were views of the mapping that zstd then compressed, so the cut
# killed the converter with SIGBUS. Conversions read with pread now.


def test_convert_of_a_file_cut_mid_conversion_is_an_error(tmp_path):
    src, dst = tmp_path / "big.zt", tmp_path / "out.zt"
    write_four(src, 1 << 20)
    # The cut is made by the progress callback once the first object is
    # converted: the next object's read meets it.
    code = textwrap.dedent("""
        import os, sys, ztensor
        def cut(done, total):
            if done and os.path.getsize(sys.argv[1]) > 4096:
                os.truncate(sys.argv[1], 4096)
        try:
            ztensor.convert(sys.argv[1], sys.argv[2], compression="zstd", level=1, progress=cut)
        except ztensor.ZTensorError as e:
            print("error", e.code, "truncated" in str(e))
            sys.exit(1)
    """)
    r = subprocess.run([sys.executable, "-c", code, str(src), str(dst)], capture_output=True, text=True,
                       timeout=EVENT_SECONDS, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)  # never a signal (SIGBUS is -7), never OK
    assert r.stdout.split() == ["error", "io_error", "True"], r.stdout
    assert sorted(f.name for f in tmp_path.iterdir()) == ["big.zt"]


@needs_zt
def test_zt_convert_of_a_file_cut_mid_conversion_exits_1(tmp_path):
    src, dst = tmp_path / "big.zt", tmp_path / "out" / "out.zt"
    write_four(src, 1 << 20)
    dst.parent.mkdir()
    rc, err = run_cut_at_pause(tmp_path, ["convert", src, dst, "--compress", "zstd", "--level", "1"], src)
    assert rc == 1, err
    assert "truncated" in err, err
    assert os.listdir(dst.parent) == []
