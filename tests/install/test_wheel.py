"""The manylinux wheel (`make wheel`) works on a machine without the -dev packages' libraries.

Installs dist/ztensor-*.whl into a fresh venv (no system site-packages), then runs wheel_smoke.py
in a private mount namespace (unshare -m, as root) with an empty file bind-mounted over each system
copy of the shared libraries the build links, so only the copies bundled by auditwheel can load.
ZT_WHEEL names another wheel.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The shared libraries src/ links (pkg-config modules in CMakeLists.txt files) and what they pull
# that auditwheel must bundle too. zlib, libstdc++, libgcc_s and glibc stay: manylinux allows them.
HIDDEN_SONAMES = [
    "libzstd.so.1", "libcbor.so.0.8", "libcrypto.so.3", "libssl.so.3", "libxxhash.so.0",
    "libbrotlienc.so.1", "libbrotlidec.so.1", "libbrotlicommon.so.1", "libhwy.so.1",
    "libhtscodecs.so.2", "libcurl.so.4", "libnghttp2.so.14", "libssh2.so.1",
]


def project_version() -> str:
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(ztensor VERSION ([0-9.]+)", text).group(1)


def the_wheel() -> Path:
    if os.environ.get("ZT_WHEEL"):
        return Path(os.environ["ZT_WHEEL"])
    wheels = sorted((ROOT / "dist").glob(f"ztensor-{project_version()}-*manylinux*.whl"))
    assert wheels, f"no manylinux wheel of {project_version()} in {ROOT / 'dist'}: run `make wheel`"
    return wheels[-1]


def system_copies(sonames) -> list[str]:
    """Real paths of the system's copies of these libraries (from the loader cache)."""
    ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"  # root's PATH may lack sbin
    cache = subprocess.run([ldconfig, "-p"], capture_output=True, text=True, check=True).stdout
    paths = set()
    for line in cache.splitlines():
        name, _, path = line.strip().partition(" => ")
        if name.split(" ")[0] in sonames and path:
            paths.add(os.path.realpath(path))
    return sorted(paths)


def test_wheel_is_manylinux_and_self_contained():
    wheel = the_wheel()
    assert re.search(r"-manylinux_2_\d+_x86_64\.whl$", wheel.name), wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert "ztensor/_bin/zt" in names
    bundled = [n for n in names if n.startswith("ztensor.libs/")]
    for lib in ("libzstd", "libcbor", "libcurl", "libhwy", "libhtscodecs", "libxxhash", "libbrotlienc"):
        assert any(n.startswith(f"ztensor.libs/{lib}-") for n in bundled), f"{lib} not bundled"
    entry_points = zipfile.ZipFile(wheel).read(
        next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert "zt = ztensor._zt_command:main" in entry_points
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    headers = [line for line in metadata.splitlines() if ": " in line]
    assert f"Version: {project_version()}" in headers
    assert {"Import-Name: ztensor", "Import-Name: z4ai"} <= set(headers)
    assert {f"Provides-Extra: {e}" for e in ("torch", "remote", "dask", "scipy")} <= set(headers)
    assert any(n.startswith("z4ai/_z4ai.") for n in names)


@pytest.mark.skipif(sys.platform != "linux", reason="manylinux wheels are Linux only")
def test_wheel_works_with_system_libraries_hidden(tmp_path):
    assert os.geteuid() == 0, "unshare -m and bind mounts need root (CI and the dev machines run as root)"
    wheel = the_wheel()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)], check=True)

    hidden = system_copies(HIDDEN_SONAMES)
    assert any("libzstd" in p for p in hidden), f"ldconfig lists no libzstd: nothing to hide ({hidden})"
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    mounts = " && ".join(f"mount --bind {shlex.quote(str(empty))} {shlex.quote(p)}" for p in hidden)
    smoke = [str(py), str(ROOT / "tests" / "install" / "wheel_smoke.py"), str(tmp_path), *HIDDEN_SONAMES]
    script = f"{mounts} && exec {shlex.join(smoke)}"
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    out = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                         cwd=tmp_path, env=env)
    assert out.returncode == 0, f"stdout:\n{out.stdout}\nstderr:\n{out.stderr}"
    assert "ok" in out.stdout
