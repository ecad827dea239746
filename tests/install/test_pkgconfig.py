"""`cmake --install` gives a usable C library: a C program builds against the installed prefix with
the flags of `pkg-config ztensor` (shared, and static with --static) and round-trips a tensor.

Installs from the Release build tree ZT_BUILD_DIR (default build/; `make test-install` builds the
targets with install rules there first).
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ZT_BUILD_DIR", ROOT / "build"))


@pytest.fixture(scope="module")
def prefix(tmp_path_factory) -> Path:
    assert (BUILD / "CMakeCache.txt").is_file(), f"{BUILD} is not a configured build tree: run `make test-install`"
    dest = tmp_path_factory.mktemp("prefix")
    subprocess.run(["cmake", "--install", str(BUILD), "--prefix", str(dest)], check=True,
                   stdout=subprocess.DEVNULL)
    return dest


def pkg_config(prefix: Path, *args: str) -> list[str]:
    pcdirs = [str(p.parent) for p in prefix.rglob("ztensor.pc")]
    assert pcdirs, f"no ztensor.pc under {prefix}"
    env = dict(os.environ, PKG_CONFIG_PATH=":".join(pcdirs))
    out = subprocess.run(["pkg-config", *args, "ztensor"], capture_output=True, text=True, env=env, check=True)
    return shlex.split(out.stdout)


def test_installed_layout(prefix):
    assert (prefix / "include" / "ztensor" / "ztensor.h").is_file()
    assert (prefix / "include" / "z4ai" / "codec.h").is_file()
    assert (prefix / "include" / "ztensor" / "error_codes.def").is_file()  # ztensor.h includes it
    assert (prefix / "bin" / "zt").is_file()
    assert pkg_config(prefix, "--modversion") == [
        next(line.split()[2] for line in (ROOT / "CMakeLists.txt").read_text().splitlines()
             if line.startswith("project(ztensor VERSION"))]


def build_and_run(prefix: Path, tmp_path: Path, flags: list[str], name: str) -> None:
    exe = tmp_path / name
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", str(ROOT / "tests" / "install" / "roundtrip.c"),
                    "-o", str(exe), *flags], check=True)
    out = subprocess.run([str(exe), str(tmp_path / f"{name}.zt")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "roundtrip ok"


def test_c_program_links_the_shared_library(prefix, tmp_path):
    libdir = pkg_config(prefix, "--variable=libdir")[0]
    flags = pkg_config(prefix, "--cflags", "--libs") + [f"-Wl,-rpath,{libdir}"]
    build_and_run(prefix, tmp_path, flags, "roundtrip_shared")
    needed = subprocess.run(["readelf", "-d", str(tmp_path / "roundtrip_shared")], capture_output=True,
                            text=True, check=True).stdout
    assert "libztensor.so" in needed


def test_c_program_links_the_static_library(prefix, tmp_path):
    """libztensor.a with its dependencies as shared libraries: Libs.private and Requires.private
    must name everything the archive needs. (`pkg-config --static` would also expand libcurl's own
    static needs, which Debian's libcurl .pc names without shipping their -dev packages.)"""
    libdir = Path(pkg_config(prefix, "--variable=libdir")[0])
    pc_text = next(prefix.rglob("ztensor.pc")).read_text()
    libs_private = shlex.split(next(line for line in pc_text.splitlines()
                                    if line.startswith("Libs.private:")).partition(":")[2])
    requires = pkg_config(prefix, "--print-requires-private")
    dep_libs = shlex.split(subprocess.run(["pkg-config", "--libs", *requires], capture_output=True,
                                          text=True, check=True).stdout)
    flags = pkg_config(prefix, "--cflags") + [str(libdir / "libztensor.a"), *libs_private, *dep_libs]
    build_and_run(prefix, tmp_path, flags, "roundtrip_static")
    needed = subprocess.run(["readelf", "-d", str(tmp_path / "roundtrip_static")], capture_output=True,
                            text=True, check=True).stdout
    assert "libztensor.so" not in needed
