"""Finding the `zt` binary for the CLI tests.

Taken from $ZT_CLI, else `zt` on PATH (`pip install .` puts it there), else
the newest build*/cli/zt in the repository. Under CI (CI set) a missing
binary fails the tests instead of skipping them, so a broken install step
cannot pass unnoticed.
"""

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def find_zt():
    env = os.environ.get("ZT_CLI")
    if env:
        return env
    on_path = shutil.which("zt")
    if on_path:
        return on_path
    built = sorted(REPO.glob("build*/**/cli/zt"), key=lambda p: p.stat().st_mtime, reverse=True)
    return str(built[0]) if built else None


ZT = find_zt()
if ZT is None and os.environ.get("CI"):
    raise RuntimeError("zt binary not found (CI): `pip install .` should have installed it, or set ZT_CLI")
needs_zt = pytest.mark.skipif(ZT is None, reason="zt binary not found: build it or set ZT_CLI")
