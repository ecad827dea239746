"""Golden valid files (tests/golden): every object reads exactly as
tests/golden/expected.json says (manifest facts and decoded bytes)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ztensor = pytest.importorskip("ztensor")

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
sys.path.insert(0, str(Path(__file__).resolve().parent / "interop"))
import checks  # noqa: E402

EXPECTED = json.loads((GOLDEN / "expected.json").read_text())
OBJECTS = [(f, o) for f, fe in sorted(EXPECTED.items()) for o in fe["objects"]]


def _open(fname, **kw):
    return ztensor.open(str(GOLDEN / fname), **kw)


def test_golden_files_are_committed():
    for fname in EXPECTED:
        assert (GOLDEN / fname).is_file(), fname
    total = sum(os.path.getsize(GOLDEN / f) for f in EXPECTED)
    assert total < 1024 * 1024


@pytest.mark.parametrize("fname", sorted(EXPECTED))
def test_file_header(fname):
    with _open(fname) as r:
        checks.check_file_header(r, EXPECTED[fname])


@pytest.mark.parametrize("fname,name", OBJECTS)
def test_object_manifest(fname, name):
    fe = EXPECTED[fname]
    with _open(fname) as r:
        checks.check_object_manifest(r, name, fe["objects"][name], fe["version"])


@pytest.mark.parametrize("fname,name", OBJECTS)
def test_object_components_decode_exactly(fname, name):
    with _open(fname) as r:
        checks.check_object_components(r, name, EXPECTED[fname]["objects"][name])


@pytest.mark.parametrize("fname,name", OBJECTS)
def test_object_read(fname, name):
    with _open(fname) as r:
        checks.check_object_read(r, name, EXPECTED[fname]["objects"][name])


@pytest.mark.parametrize("fname", sorted(EXPECTED))
def test_digests_verify(fname):
    with _open(fname) as r:
        r.verify()
    # verify-on-read: every component of every object reads with its digest checked
    with _open(fname, verify=True) as r:
        for name, oexp in EXPECTED[fname]["objects"].items():
            for role in oexp["components"]:
                r.read_component(name, role)


def test_golden_covers_the_feature_matrix():
    """Guards expected.json against silently losing coverage on regeneration."""
    seen = {"versions": set(), "formats": set(), "dtypes": set(), "types": set(), "encodings": set(),
            "digests": set()}
    for fe in EXPECTED.values():
        seen["versions"].add(fe["version"])
        for o in fe["objects"].values():
            seen["formats"].add(o["format"])
            for c in o["components"].values():
                seen["dtypes"].add(c["dtype"])
                seen["types"].add(c["type"])
                seen["encodings"].add(c["encoding"])
                seen["digests"].add(c["digest"])
    assert seen["versions"] >= {"1.2.0", "1.1.0", "0.1.0"}
    assert seen["formats"] >= {"dense", "sparse_csr", "sparse_coo", "quantized_group"}
    assert seen["dtypes"] >= set(checks.WIDTH)
    assert seen["types"] >= {None, "f8_e4m3fn", "f8_e5m2", "f8_e4m3fnuz", "f8_e5m2fnuz", "complex64", "complex128"}
    assert seen["encodings"] >= {"raw", "zstd"}
    assert seen["digests"] >= {None, "sha256", "crc32c"}
