"""The sdist (`make sdist`, dist/ztensor-VERSION.tar.gz) carries everything a source build needs,
and its tree configures for both the C library and the Python packages where the -dev packages
exist. (A full compile from it takes minutes here; docs/packaging.md records one.)"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSION = re.search(r"project\(ztensor VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)
NEEDED = ["pyproject.toml", "CMakeLists.txt", "cmake/ZtDependencies.cmake", "cmake/ZtInstall.cmake",
          "cmake/ztensor.pc.in", "include/ztensor/ztensor.h", "src/core/CMakeLists.txt", "cli/main.cc",
          "python/CMakeLists.txt", "python/ztensor/__init__.py", "python/ztensor/_zt_command.py",
          "python/z4ai/__init__.py", "README.md"]


def unpacked(tmp_path: Path) -> Path:
    sdist = ROOT / "dist" / f"ztensor-{VERSION}.tar.gz"
    assert sdist.is_file(), f"{sdist} missing: run `make sdist`"
    with tarfile.open(sdist) as tar:
        names = set(tar.getnames())
        for rel in NEEDED:
            assert f"ztensor-{VERSION}/{rel}" in names, f"{rel} not in {sdist.name}"
        assert not any("/build/" in n or "/.venv" in n or n.endswith(".so") for n in names)
        if hasattr(tarfile, "data_filter"):
            tar.extractall(tmp_path, filter="data")
        else:  # Python before the extraction filters (our own archive, checked above)
            tar.extractall(tmp_path)
    return tmp_path / f"ztensor-{VERSION}"


def test_sdist_configures(tmp_path):
    src = unpacked(tmp_path)
    for name, extra in [("lib", []), ("python", ["-DZT_PYTHON=ON", f"-DPython_EXECUTABLE={sys.executable}"])]:
        out = subprocess.run(["cmake", "-S", str(src), "-B", str(tmp_path / f"build-{name}"), "-G", "Ninja",
                              "-DZT_BUILD_TESTS=OFF", *extra], capture_output=True, text=True)
        assert out.returncode == 0, f"{name}: {out.stdout[-2000:]}\n{out.stderr[-2000:]}"


def test_build_requirements_match_pyproject():
    """`make python`/`make wheel` build without isolation from deps/requirements-build.txt; it must
    ask for what pyproject.toml's [build-system] asks for, or the two builds differ."""
    import tomllib

    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    listed = [line.strip() for line in (ROOT / "deps" / "requirements-build.txt").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    assert sorted(listed) == sorted(requires)
