"""A PyPI package that shares a module name with ours, in its own venv.

test_interop.py (PyPI ztensor) and test_pypi_z4ai_frames.py (PyPI z4ai)
drive such peers through subprocesses; this creates the venv and installs
the packages when `is_ok` says it is missing or incomplete, and skips only
when PyPI cannot be reached (which ZT_NO_SKIPS=1 turns into a failure).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable, Sequence

import pytest

OFFLINE_MARKERS = ("No matching distribution", "Could not find a version", "NewConnectionError",
                   "Temporary failure in name resolution", "Network is unreachable", "Max retries exceeded",
                   "ConnectionError", "ReadTimeoutError", "Name or service not known")


def clean_env() -> dict:
    """The peer must import its own package, never ours: no PYTHONPATH."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}


def ensure_venv(venv: Path, packages: Sequence[str], is_ok: Callable[[Path], bool], what: str) -> Path:
    """The venv's python, after installing `packages` into it if needed."""
    py = venv / "bin" / "python"
    if is_ok(py):
        return py
    venv.parent.mkdir(parents=True, exist_ok=True)
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=clean_env())
    p = subprocess.run([str(py), "-m", "pip", "install", "-q", *packages], capture_output=True, text=True,
                       env=clean_env())
    if p.returncode != 0:
        out = p.stdout + p.stderr
        if any(m in out for m in OFFLINE_MARKERS):
            pytest.skip(f"PyPI unreachable, cannot install {what}: {out.strip()[-300:]}")
        raise AssertionError(f"installing {what} failed:\n{out[-3000:]}")
    assert is_ok(py), f"{what} venv is incomplete after install"
    return py
