#!/usr/bin/env python3
"""Fails when the tests would run under a Python other than the project venv.

A fresh Debian 12 machine's python3 (Debian's or pyenv's) has none of the test packages, so a
test that picks it up fails far from the cause, or, on a machine with torch installed by hand,
passes where CI would not. Run by ctest (as ZT_TEST_PYTHON) and at pytest's start (conftest.py):
the interpreter must be a venv, and every distribution deps/requirements-test.txt names must be
installed there, at its pinned version where it is pinned.

Exits 1 naming the interpreter and what it lacks, 0 otherwise.
"""
from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# "name[extra]==1.2  # comment" -> ("name", "1.2"); ranges are left to pip.
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*(==\s*([^\s;#]+))?")


def requirements(path: Path) -> list[tuple[str, str | None]]:
    out = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        match = REQUIREMENT.match(line)
        if line and match:
            out.append((match.group(1), match.group(4)))
    return out


def problems(root: Path = ROOT) -> list[str]:
    """What keeps this interpreter from being the one the tests need; empty when it is."""
    found = []
    if sys.prefix == sys.base_prefix:
        found.append("it is not a virtual environment (make creates .venv with `python3 -m venv`)")
    for name, pinned in requirements(root / "deps" / "requirements-test.txt"):
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            found.append(f"{name} is not installed")
            continue
        if pinned and version.split("+")[0] != pinned:
            found.append(f"{name} is {version}, deps/requirements-test.txt pins {pinned}")
    return found


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT
    found = problems(root)
    if found:
        print(f"{sys.executable} cannot run the tests: " + "; ".join(found)
              + ". Run them through `make test`, which fills the project venv first.", file=sys.stderr)
        return 1
    print(f"test interpreter: {sys.executable} ({sys.prefix})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
