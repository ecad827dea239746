"""A writer killed with SIGKILL mid-write leaves no temporary behind (once,
`kill -9` of `zt convert` left out.zt.tmp-* files of up to 440 MB): the
temporary is an O_TMPFILE inode where the filesystem has one, and otherwise
the next writer into the folder removes it."""

import os
import select
import signal
import subprocess
import sys
import textwrap

import numpy as np

import ztensor
from _waits import EVENT_SECONDS

WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    import ztensor
    block = np.ones(1 << 20, np.float32)  # 4 MiB: past the 1 MiB write buffer
    with ztensor.Writer(sys.argv[1]) as w:
        for i in range(100000):  # bounded; killed long before the end
            w.add(f"t{i}", block)
            if i == 2:
                print("writing", flush=True)
                sys.stdin.readline()  # wait here, mid-write, to be killed
""")


def test_sigkill_mid_write_leaves_no_temporary_after_the_next_write(tmp_path):
    out = tmp_path / "out.zt"
    out.write_bytes(b"old")  # the previous version must survive the kill
    p = subprocess.Popen([sys.executable, "-c", WRITER, str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    ready, _, _ = select.select([p.stdout], [], [], EVENT_SECONDS)  # the writer stands mid-write
    assert ready, f"the writer printed nothing for {EVENT_SECONDS} s"
    assert p.stdout.readline() == "writing\n"
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=60)
    assert p.returncode == -signal.SIGKILL
    assert out.read_bytes() == b"old"

    with ztensor.Writer(tmp_path / "next.zt") as w:
        w.add("a", np.arange(3, dtype=np.float32))
    assert sorted(f.name for f in tmp_path.iterdir()) == ["next.zt", "out.zt"]
