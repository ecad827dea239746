"""A .zt truncated by another process while a Reader has it mapped gives an
error from Reader.verify and reads, not SIGBUS."""

import os
import stat
import subprocess
import sys
import textwrap
import time

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


def test_truncation_during_verify_is_an_error(tmp_path):
    # A component large enough that hashing it takes a while: the file is cut
    # while verify() is inside it. A reader that hashed the mapping died here
    # with SIGBUS; verify() reads with pread, so the cut is an io_error.
    p = tmp_path / "big.zt"
    with ztensor.Writer(p) as w:
        w.add("big", np.arange(48 << 20, dtype=np.float32), checksum="sha256")  # 192 MiB
    code = textwrap.dedent(f"""
        import os, threading, time, ztensor
        path = {str(p)!r}
        r = ztensor.open(path)
        def cut():
            time.sleep(0.05)
            os.truncate(path, 4096)
        t = threading.Thread(target=cut)
        t.start()
        outcome = "no error"
        try:
            for _ in range(20):  # bounded: the cut lands in the first pass or two
                r.verify()
        except ztensor.ZTensorIOError as e:
            outcome = e.code
        t.join()
        print(outcome)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert r.stdout.split() == ["io_error"]


def test_zt_verify_of_a_file_cut_mid_verify_exits_1(tmp_path):
    from _cli import ZT, needs_zt  # noqa: F401  (the CLI tests' finder)

    if ZT is None:
        pytest.fail("zt binary not found")
    p = tmp_path / "big.zt"
    with ztensor.Writer(p) as w:
        w.add("big", np.arange(48 << 20, dtype=np.float32), checksum="sha256")
    proc = subprocess.Popen([ZT, "verify", str(p)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    import time
    time.sleep(0.05)
    os.truncate(p, 4096)
    out, err = proc.communicate(timeout=300)
    # Exit 0 only if verify finished before the cut; never a signal.
    assert proc.returncode in (0, 1), (proc.returncode, err)
    if proc.returncode == 1:
        assert "truncated" in err, err


# Converting a .zt that another process truncates mid-conversion: the raw
# components were views of the mapping that zstd then compressed, so the cut
# killed the converter with SIGBUS. Conversions read with pread now.
CONVERT_TRIES = 6


def _writing(pid, src):
    """Whether process `pid` holds open a file other than `src` of over 1 MiB:
    its output (an O_TMPFILE has no name to watch, so look at its fds)."""
    src_inode = os.stat(src).st_ino
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            st = os.stat(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_ino != src_inode and st.st_size > (1 << 20):
            return True
    return False


def _convert_until_cut(tmp_path, start):
    """Runs a conversion (start(src, dst) -> Popen) up to CONVERT_TRIES times,
    truncating the source from this process once the conversion has written
    its first MiB; returns (returncode,
    output) of each try."""
    src, dst = tmp_path / "big.zt", tmp_path / "out.zt"
    outcomes = []
    for _ in range(CONVERT_TRIES):
        with ztensor.Writer(src) as w:
            for i in range(4):
                w.add(f"w{i}", np.arange(12 << 20, dtype=np.float32) + i)  # 4 x 48 MiB raw
        proc = start(src, dst)
        deadline = time.monotonic() + 120  # bounded wait for the output to grow
        while proc.poll() is None and time.monotonic() < deadline and not _writing(proc.pid, src):
            time.sleep(0.01)
        os.truncate(src, 4096)
        out, err = proc.communicate(timeout=300)
        outcomes.append((proc.returncode, out + err))
        if proc.returncode != 0:
            break  # the cut landed mid-conversion: that is the case under test
    return outcomes


def test_convert_of_a_file_cut_mid_conversion_is_an_error(tmp_path):
    code = textwrap.dedent("""
        import sys, ztensor
        try:
            ztensor.convert(sys.argv[1], sys.argv[2], compression="zstd", level=1)
        except ztensor.ZTensorError as e:
            print("error", e.code, "truncated" in str(e))
            sys.exit(1)
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    outcomes = _convert_until_cut(tmp_path, lambda s, d: subprocess.Popen(
        [sys.executable, "-c", code, str(s), str(d)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env))
    for rc, text in outcomes:
        assert rc in (0, 1), (rc, text)  # never a signal (SIGBUS is -7)
    rc, text = outcomes[-1]
    assert rc == 1, outcomes  # the cut landed mid-conversion in one of the tries
    assert text.split() == ["error", "io_error", "True"], text


def test_zt_convert_of_a_file_cut_mid_conversion_exits_1(tmp_path):
    from _cli import ZT

    if ZT is None:
        pytest.fail("zt binary not found")
    outcomes = _convert_until_cut(tmp_path, lambda s, d: subprocess.Popen(
        [ZT, "convert", str(s), str(d), "--compress", "zstd", "--level", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for rc, text in outcomes:
        assert rc in (0, 1), (rc, text)
    rc, text = outcomes[-1]
    assert rc == 1 and "truncated" in text, outcomes
