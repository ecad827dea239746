"""The manylinux wheels (`make wheel`): one per CPython the README promises, each with an honest
platform tag no newer than manylinux_2_34, each working on a machine without the -dev packages'
libraries.

For each Python, a fresh venv of that interpreter (no system site-packages) gets the README's pin
(`pip install --find-links dist/ ztensor==VERSION`, here with --no-index so nothing but dist/ can
answer), then wheel_smoke.py runs in a private mount namespace (unshare -m, as root) with an empty
file bind-mounted over each system copy of the shared libraries the build links, so only the copies
bundled by auditwheel can load. The interpreters are the ones `make wheel` built with: the Makefile
exports them as ZT_WHEEL_PYTHONS. ZT_WHEEL_DIR names another folder of wheels than dist/.
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
DIST = Path(os.environ.get("ZT_WHEEL_DIR", ROOT / "dist"))

# README, Install: the CPython versions the wheels serve and the oldest glibc they run on.
PROMISED_PYTHONS = ("3.10", "3.11", "3.12", "3.13")
GLIBC_FLOOR = (2, 34)

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


def cp_tag(version: str) -> str:
    return "cp" + version.replace(".", "")


def the_wheels() -> dict[str, Path]:
    """dist/'s wheels of this version by interpreter tag (cp310, ...); one each."""
    found: dict[str, list[Path]] = {}
    for wheel in DIST.glob(f"ztensor-{project_version()}-*.whl"):
        found.setdefault(wheel.name.split("-")[2], []).append(wheel)
    doubles = {tag: names for tag, names in found.items() if len(names) > 1}
    assert not doubles, f"more than one wheel for one Python in {DIST}: {doubles}"
    return {tag: names[0] for tag, names in found.items()}


def the_wheel(version: str) -> Path:
    wheels = the_wheels()
    assert cp_tag(version) in wheels, f"no wheel for CPython {version} in {DIST} ({sorted(wheels)}): run `make wheel`"
    return wheels[cp_tag(version)]


def interpreter(version: str) -> str:
    """The interpreter of this version among the ones `make wheel` built with."""
    named = os.environ.get("ZT_WHEEL_PYTHONS", "").split()
    assert named, "ZT_WHEEL_PYTHONS is unset: run `make test-install`, which names the interpreters of `make wheel`"
    for py in named:
        out = subprocess.run([py, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip() == version:
            return py
    raise AssertionError(f"none of ZT_WHEEL_PYTHONS ({named}) is CPython {version}")


def glibc_of(platform_tag: str) -> tuple[int, int]:
    """(major, minor) of a manylinux platform tag; the legacy aliases by PEP 600's table."""
    legacy = {"manylinux1_x86_64": (2, 5), "manylinux2010_x86_64": (2, 12), "manylinux2014_x86_64": (2, 17)}
    if platform_tag in legacy:
        return legacy[platform_tag]
    m = re.fullmatch(r"manylinux_(\d+)_(\d+)_x86_64", platform_tag)
    assert m, f"not an x86-64 manylinux tag: {platform_tag}"
    return int(m.group(1)), int(m.group(2))


def test_one_wheel_per_promised_python():
    assert sorted(the_wheels()) == sorted(cp_tag(v) for v in PROMISED_PYTHONS)


def test_wheel_contents():
    wheel = the_wheel(PROMISED_PYTHONS[0])
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


def test_the_core_is_linked_into_one_extension_module():
    """ztensor and z4ai share one extension module (ztensor._core, with the codec's bindings as its
    submodule), so a process that imports both holds one copy of the core."""
    for version in PROMISED_PYTHONS:
        names = zipfile.ZipFile(the_wheel(version)).namelist()
        modules = [n for n in names if n.endswith(".so") and not n.startswith("ztensor.libs/")]
        assert len(modules) == 1 and modules[0].startswith("ztensor/_core."), modules


@pytest.mark.parametrize("version", PROMISED_PYTHONS)
def test_platform_tag_is_honest_and_at_most_manylinux_2_34(version):
    """The tags in the name are no older than what auditwheel's own check of the binaries allows,
    and the oldest one, which decides where pip installs it, needs glibc 2.34 at most."""
    wheel = the_wheel(version)
    tags = wheel.name[:-len(".whl")].split("-")[4].split(".")
    auditwheel = Path(sys.executable).parent / "auditwheel"
    out = subprocess.run([str(auditwheel), "show", str(wheel)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    text = " ".join(out.stdout.split())
    m = re.search(r'consistent with the following platform tag: "(manylinux_\d+_\d+_x86_64)"', text)
    assert m, text
    allowed = glibc_of(m.group(1))
    assert allowed <= GLIBC_FLOOR, f"auditwheel: the binaries need {m.group(1)}"
    assert all(glibc_of(t) >= allowed for t in tags), f"{wheel.name} claims older than {m.group(1)}"
    assert min(glibc_of(t) for t in tags) <= GLIBC_FLOOR, wheel.name


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


def runtime_requirements(wheel: Path) -> list[str]:
    """The wheel's unconditional Requires-Dist (numpy, ml_dtypes)."""
    with zipfile.ZipFile(wheel) as z:
        metadata = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    return [line.partition(": ")[2] for line in metadata.splitlines()
            if line.startswith("Requires-Dist: ") and ";" not in line]


def install_the_pin(venv: Path, wheel: Path) -> None:
    """The README's pin, answered by dist/ alone: the machine's pip configuration (extra indexes,
    find-links) is left out, so only a wheel whose tags fit this interpreter can satisfy it."""
    py = str(venv / "bin" / "python")
    pip = [py, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, *runtime_requirements(wheel)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    out = subprocess.run([*pip, "--no-index", "--find-links", str(DIST), f"ztensor=={project_version()}"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    shown = subprocess.run([py, "-m", "pip", "show", "-f", "ztensor"], capture_output=True, text=True, check=True)
    assert f"Version: {project_version()}" in shown.stdout


@pytest.mark.skipif(sys.platform != "linux", reason="manylinux wheels are Linux only")
@pytest.mark.parametrize("version", PROMISED_PYTHONS)
def test_pinned_wheel_works_with_system_libraries_hidden(tmp_path, version):
    assert os.geteuid() == 0, "unshare -m and bind mounts need root (CI and the dev machines run as root)"
    wheel = the_wheel(version)
    venv = tmp_path / "venv"
    subprocess.run([interpreter(version), "-m", "venv", str(venv)], check=True)
    install_the_pin(venv, wheel)

    hidden = system_copies(HIDDEN_SONAMES)
    assert any("libzstd" in p for p in hidden), f"ldconfig lists no libzstd: nothing to hide ({hidden})"
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    mounts = " && ".join(f"mount --bind {shlex.quote(str(empty))} {shlex.quote(p)}" for p in hidden)
    smoke = [str(venv / "bin" / "python"), str(ROOT / "tests" / "install" / "wheel_smoke.py"), str(tmp_path),
             *HIDDEN_SONAMES]
    script = f"{mounts} && exec {shlex.join(smoke)}"
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    out = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                         cwd=tmp_path, env=env)
    assert out.returncode == 0, f"stdout:\n{out.stdout}\nstderr:\n{out.stderr}"
    assert f"python {version}" in out.stdout and "ok" in out.stdout
