"""Run by test_wheel.py inside a private mount namespace where the system copies of the native
libraries the build links are hidden: proves they are hidden, then uses the installed wheel.

    python wheel_smoke.py WORKDIR SONAME...
"""

import ctypes
import os
import subprocess
import sys
from pathlib import Path


def main() -> None:
    workdir = Path(sys.argv[1])
    for soname in sys.argv[2:]:
        try:
            ctypes.CDLL(soname)
        except OSError:
            continue
        raise SystemExit(f"{soname} still loads: the system copy is not hidden, the test proves nothing")

    import numpy as np
    import z4ai
    import ztensor
    import ztensor.numpy

    weights = (np.arange(4096, dtype=np.float32) * 0.25).astype(np.float32)
    frame = z4ai.compress(weights.tobytes(), dtype="fp32", effort="max")
    assert z4ai.decompress(frame) == weights.tobytes(), "z4ai round trip changed the bytes"

    path = workdir / "smoke.zt"
    ztensor.numpy.save_file({"layer.weight": weights.reshape(64, 64)}, path)
    back = ztensor.numpy.load_file(path)
    assert np.array_equal(back["layer.weight"], weights.reshape(64, 64)), "save/load changed the tensor"

    # `zt` on PATH is the wheel's console entry point (the venv's bin/ comes first).
    out = subprocess.run(["zt", "info", str(path)], capture_output=True, text=True, env=os.environ)
    assert out.returncode == 0, f"zt info exited {out.returncode}: {out.stderr}"
    assert "layer.weight" in out.stdout, out.stdout
    # The entry point passes the binary's exit code and streams through unchanged.
    from ztensor._zt_command import binary_path
    missing = str(workdir / "missing.zt")
    via_entry = subprocess.run(["zt", "info", missing], capture_output=True, text=True)
    direct = subprocess.run([str(binary_path()), "info", missing], capture_output=True, text=True)
    assert via_entry.returncode == direct.returncode != 0, (via_entry.returncode, direct.returncode)
    assert via_entry.stderr == direct.stderr, (via_entry.stderr, direct.stderr)

    # One copy of the core per process: both packages' bindings live in ztensor._core.
    ours = {Path(line.split(maxsplit=5)[5]) for line in Path("/proc/self/maps").read_text().splitlines()
            if len(line.split(maxsplit=5)) == 6 and line.split(maxsplit=5)[5].endswith(".so")}
    site = Path(ztensor.__file__).parent.parent
    modules = sorted(str(p.relative_to(site)) for p in ours
                     if p.is_relative_to(site / "ztensor") or p.is_relative_to(site / "z4ai"))
    assert len(modules) == 1 and modules[0].startswith("ztensor/_core."), modules
    print(f"wheel smoke on python {sys.version_info[0]}.{sys.version_info[1]}: "
          "import, z4ai round trip, save/load, zt info, one core: ok")


if __name__ == "__main__":
    main()
