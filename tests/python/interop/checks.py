"""Checks a file read with our `ztensor` against an expected.json entry
(the schema tests/golden/make_golden.py writes). Shared by test_golden.py
and test_interop.py."""
from __future__ import annotations

import hashlib

import numpy as np

# v1.2 storage dtype -> bytes per element (spec v1.2 §2)
WIDTH = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i16": 2, "i8": 1,
         "u64": 8, "u32": 4, "u16": 2, "u8": 1, "bool": 1}


def sha(arr) -> str:
    return hashlib.sha256(np.ascontiguousarray(arr).tobytes()).hexdigest()


def no_type(t):
    """Absent logical type: the reader may say None or ""."""
    return t or None


def check_file_header(reader, fexp):
    assert sorted(reader.keys()) == sorted(fexp["objects"]), "object names differ"
    assert len(reader) == len(fexp["objects"])
    assert reader.version == fexp["version"]
    if not fexp["version"].startswith("0.1"):
        assert dict(reader.attributes or {}) == (fexp["attributes"] or {})


def check_object_manifest(reader, name, oexp, version):
    info = reader.object(name)
    where = f"object {name!r}"
    assert info.format == oexp["format"], where
    assert list(info.shape) == oexp["shape"], where
    assert info.dtype == oexp["dtype"], where
    assert no_type(info.type) == oexp["type"], where
    if not version.startswith("0.1"):  # v0.1 custom keys may surface as attributes
        assert dict(info.attributes or {}) == (oexp["attributes"] or {}), where
    assert sorted(info.components) == sorted(oexp["components"]), where
    for role, cexp in oexp["components"].items():
        c = info.components[role]
        w = f"{where} component {role!r}"
        assert c.dtype == cexp["dtype"], w
        assert no_type(c.type) == cexp["type"], w
        assert c.encoding == cexp["encoding"], w
        if cexp["digest"]:
            assert c.digest and c.digest.lower().startswith(cexp["digest"] + ":"), (w, c.digest)
        else:
            assert not c.digest, w
        if cexp["encoding"] == "raw":
            assert c.length == cexp["nbytes"], w


def check_object_components(reader, name, oexp):
    for role, cexp in oexp["components"].items():
        arr = reader.read_component(name, role)
        w = f"object {name!r} component {role!r}"
        assert isinstance(arr, np.ndarray), w
        assert arr.ndim == 1, w
        assert arr.dtype.itemsize == WIDTH[cexp["dtype"]], (w, arr.dtype)
        assert arr.nbytes == cexp["nbytes"], w
        assert sha(arr) == cexp["sha256"], f"{w}: decoded bytes differ"


def check_object_read(reader, name, oexp):
    """read(name): dense arrays of their shape and logical type, sparse as
    scipy arrays, quantized_group exposing its components."""
    out = reader.read(name)
    fmt = oexp["format"]
    if fmt == "dense":
        arr = np.asarray(out)
        assert list(arr.shape) == oexp["shape"], name
        t = oexp["type"]
        if t == "complex64":
            assert arr.dtype == np.complex64
        elif t == "complex128":
            assert arr.dtype == np.complex128
        elif t and t.startswith("f8_"):
            assert arr.dtype.itemsize == 1 and arr.dtype.name.startswith("float8"), arr.dtype
        else:
            assert arr.dtype.itemsize == WIDTH[oexp["dtype"]], arr.dtype
        assert sha(arr) == oexp["components"]["data"]["sha256"], f"object {name!r}: values differ"
    elif fmt in ("sparse_csr", "sparse_coo"):
        assert list(out.shape) == oexp["shape"], name
        dense = out.toarray()
        assert dense.dtype.itemsize == WIDTH[oexp["dense_dtype"]], dense.dtype
        assert sha(dense) == oexp["dense_sha256"], f"object {name!r}: dense values differ"
    elif fmt == "quantized_group":
        for role in ("packed_weight", "scales", "zeros"):
            assert sha(out[role]) == oexp["components"][role]["sha256"], (name, role)
        attrs = dict(out.attributes)
        for k, v in (oexp["attributes"] or {}).items():
            assert attrs[k] == v, (name, k)


def check_all(reader, fexp):
    check_file_header(reader, fexp)
    for name, oexp in fexp["objects"].items():
        check_object_manifest(reader, name, oexp, fexp["version"])
        check_object_components(reader, name, oexp)
        check_object_read(reader, name, oexp)
