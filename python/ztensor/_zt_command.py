"""The `zt` console command of the wheel: runs the native `zt` binary shipped in the package.

The binary lives inside the package (ztensor/_bin/zt) rather than in the wheel's scripts directory
because auditwheel can point a file's RPATH at the bundled libraries (ztensor.libs/) only for files
whose place relative to site-packages is fixed; a script's installed place is not. exec keeps the
process, its terminal, signals and exit code, so `zt` behaves exactly like the binary.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def binary_path() -> Path:
    return Path(__file__).resolve().parent / "_bin" / "zt"


def main() -> None:
    exe = binary_path()
    if not exe.is_file():
        sys.stderr.write(f"zt: the native binary is missing from the ztensor package ({exe}); reinstall ztensor\n")
        raise SystemExit(127)
    os.execv(exe, ["zt", *sys.argv[1:]])
