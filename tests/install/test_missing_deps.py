"""Building from source without the -dev packages fails at configure time with the packages to
install named for Debian/Ubuntu and Fedora (cmake/ZtDependencies.cmake), not with a pkg-config
module name, and with the way to the wheels instead (README's pin with --find-links). pkg-config is
pointed at an empty folder, so every module is missing."""

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_missing_libraries_are_named_by_package(tmp_path):
    empty = tmp_path / "no-pc-files"
    empty.mkdir()
    env = dict(os.environ, PKG_CONFIG_LIBDIR=str(empty), PKG_CONFIG_PATH="")
    out = subprocess.run(["cmake", "-S", str(ROOT), "-B", str(tmp_path / "build"), "-DZT_BUILD_TESTS=OFF",
                          "-DZT_BUILD_CLI=OFF"], capture_output=True, text=True, env=env)
    assert out.returncode != 0
    text = out.stdout + out.stderr
    debian = next(line for line in text.splitlines() if "Debian/Ubuntu: apt-get install" in line)
    fedora = next(line for line in text.splitlines() if "Fedora:" in line and "dnf install" in line)
    for pkg in ("libzstd-dev", "libcbor-dev", "libssl-dev", "libxxhash-dev", "libbrotli-dev", "libhwy-dev",
                "libcurl4-openssl-dev"):
        assert pkg in debian.split(), (pkg, debian)
    for pkg in ("libzstd-devel", "libcbor-devel", "openssl-devel", "highway-devel", "libcurl-devel"):
        assert pkg in fedora.split(), (pkg, fedora)
    version = re.search(r"project\(ztensor VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)
    assert f'pip install --find-links DIST "ztensor=={version}"' in text, text
    assert "make wheel" in text
