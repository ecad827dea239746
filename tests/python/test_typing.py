"""Typed API: both packages carry py.typed, the extensions carry
.pyi stubs made by nanobind's stubgen (kept in the repository and checked
against the built modules here), and mypy accepts typed use of the API and
rejects wrong use.

Regenerate the stubs after changing a binding:
    python -m nanobind.stubgen -q -p python/stubs/patterns.txt -m ztensor._core -o python/ztensor/_core.pyi
    python -m nanobind.stubgen -q -p python/stubs/patterns.txt -m ztensor._core._z4ai -o python/z4ai/_z4ai.pyi
(z4ai's bindings are a submodule of ztensor's extension, re-exported by z4ai/_z4ai.py, which also
exports Z4aiError: keep the stub's line that imports it.)
"""

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "typing"
STUBS = {"ztensor._core": ROOT / "python/ztensor/_core.pyi", "ztensor._core._z4ai": ROOT / "python/z4ai/_z4ai.pyi"}


def _mypy(tmp_path, *args):
    # From an empty directory, so mypy sees the installed packages (with
    # their py.typed and stubs), not the source tree.
    cmd = [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull, "--no-error-summary", *args]
    return subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)


def _api(stub_text):
    """The stub's classes, functions and methods with their parameter names
    (formatting differs between nanobind versions; the API must not)."""
    api, cls = [], ""
    for m in re.finditer(r"^( *)(?:def|class) (\w+)(\([^)]*\))?", stub_text, re.M):
        indent, name, params = m.group(1), m.group(2), m.group(3) or ""
        if stub_text[m.start():].startswith(indent + "class"):
            cls = name
            api.append(name)
        else:
            for _ in range(4):  # drop subscripts (tuple[str, int]) so only parameter names remain
                params = re.sub(r"\[[^\[\]]*\]", "", params)
            args = re.findall(r"[(,]\s*\**(\w+)", params)
            api.append(f"{cls + '.' if indent else ''}{name}({','.join(args)})")
    return sorted(api)


@pytest.mark.parametrize("module", sorted(STUBS))
def test_stub_matches_the_built_extension(tmp_path, module):
    out = tmp_path / "stub.pyi"
    subprocess.run([sys.executable, "-m", "nanobind.stubgen", "-q", "-p", str(ROOT / "python/stubs/patterns.txt"),
                    "-m", module, "-o", str(out)], cwd=tmp_path, check=True, timeout=300)
    assert _api(out.read_text()) == _api(STUBS[module].read_text()), \
        f"{STUBS[module]} is stale: regenerate it (see this file)"


@pytest.mark.parametrize("package", ["ztensor", "z4ai"])
def test_installed_package_is_marked_typed(package):
    pkg = Path(importlib.import_module(package).__file__).parent
    assert (pkg / "py.typed").is_file()
    assert list(pkg.glob("_*.pyi")), f"{package} ships no extension stub"


def test_mypy_strict_accepts_typed_usage(tmp_path):
    r = _mypy(tmp_path, "--strict", str(HERE / "usage_ok.py"))
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_rejects_wrong_usage_line_by_line(tmp_path):
    bad = HERE / "usage_bad.py"
    expected = {i for i, line in enumerate(bad.read_text().splitlines(), 1) if line.rstrip().endswith("# E")}
    r = _mypy(tmp_path, str(bad))
    flagged = {int(m.group(1)) for m in re.finditer(r"usage_bad\.py:(\d+): error", r.stdout)}
    assert flagged == expected, r.stdout + r.stderr


def _expectations(path):
    """line -> (texts the revealed type must contain, texts it must not)."""
    out = {}
    for i, line in enumerate(path.read_text().splitlines(), 1):
        m = re.search(r"# R: (.*?)(?:\s+R-not: (.*))?$", line)
        if m and "reveal_type(" in line:
            split = lambda text: [t.strip() for t in text.split("&")] if text else []  # noqa: E731
            out[i] = (split(m.group(1)), split(m.group(2)))
    return out


def test_mypy_reveals_typed_reads_not_any(tmp_path):
    """Reads and decompressions return their framework's type (overloads by
    framework=, by out=), never Any."""
    path = HERE / "usage_reveal.py"
    expected = _expectations(path)
    r = _mypy(tmp_path, str(path))
    revealed = {int(m.group(1)): m.group(2) for m in
                re.finditer(r'usage_reveal\.py:(\d+): note: Revealed type is "(.*)"', r.stdout)}
    assert set(revealed) == set(expected), r.stdout + r.stderr
    for line, (must, must_not) in expected.items():
        got = revealed[line]
        assert got != "Any", f"line {line}: Any"
        assert all(t in got for t in must), f"line {line}: {got} lacks one of {must}"
        assert not any(t in got for t in must_not), f"line {line}: {got} has one of {must_not}"


def test_dir_shows_the_api_only():
    import ztensor

    names = set(dir(ztensor))
    assert names == set(ztensor.__all__) | {"numpy", "torch", "transformers", "__version__"}
    assert not names & {"annotations", "importlib"}
    assert all(getattr(ztensor, n) is not None for n in names)


def test_mypy_checks_both_packages_clean(tmp_path):
    r = _mypy(tmp_path, "-p", "ztensor", "-p", "z4ai")
    assert r.returncode == 0, r.stdout + r.stderr


def test_both_packages_report_the_distribution_version():
    import importlib.metadata

    import z4ai
    import ztensor

    assert ztensor.__version__ == z4ai.__version__ == importlib.metadata.version("ztensor")
    assert ztensor.__version__.startswith("1.")  # continues the ztensor 1.x line (README)
