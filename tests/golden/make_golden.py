"""Writes the golden valid .zt files and tests/golden/expected.json.

Two sources of files:
  ref_*   written by the reference implementation (PyPI `ztensor` 1.2.3,
          1.1.1 and 0.1.4), each driven inside its own virtual environment;
  hand_*  built byte by byte with tests/golden/zt_craft.py, for what the
          references cannot write (scalars as shape [], fp8/complex logical
          types, v1.1 legacy dtypes and narrow sparse indices, v0.1 big-endian
          data and checksums, file attributes, unknown fields).

expected.json lists, per file and object: format, shape, storage dtype,
logical type, attributes, and per component the dtype, type, encoding,
decoded byte count and the sha256 of the expected decoded little-endian
bytes, computed from the source arrays here (never from a reader).

Regenerate (needs the venvs of docs/interop.md, each with numpy, cbor2,
zstandard and ml_dtypes):
    build/peers/zt12/bin/python tests/golden/make_golden.py [--venvs build/peers]
(--venvs defaults to $ZT_PEER_VENVS, else build/peers in the repository.)
Files are committed; tests only read them.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zt_craft as zc  # noqa: E402

REFS = {"zt12": "1.2.3", "zt11": "1.1.1", "zt01": "0.1.4"}


# ---------------------------------------------------------------- sources
def bf16():
    import ml_dtypes

    return ml_dtypes.bfloat16


def dense_sources():
    """Deterministic arrays of every storage dtype (name -> array)."""
    rng = np.random.default_rng(20261121)
    return {
        "f64": rng.standard_normal((2, 3)).astype(np.float64),
        "f32": rng.standard_normal((3, 4)).astype(np.float32),
        "f16": rng.standard_normal((5,)).astype(np.float16),
        "bf16": rng.standard_normal((2, 3)).astype(np.float32).astype(bf16()),
        "i64": np.array([-(2**62), -1, 0, 1, 2**62 + 12345], dtype=np.int64),
        "i32": np.array([[-(2**31), -7], [0, 2**31 - 1]], dtype=np.int32),
        "i16": np.array([-32768, -2, 3, 32767], dtype=np.int16),
        "i8": np.array([-128, -1, 0, 1, 127], dtype=np.int8),
        "u64": np.array([0, 1, 2**63 + 5, 2**64 - 1], dtype=np.uint64),
        "u32": np.array([0, 1, 2**32 - 1], dtype=np.uint32),
        "u16": np.array([[0, 1], [258, 65535]], dtype=np.uint16),
        "u8": np.arange(17, dtype=np.uint8) * 15,
        "bool": np.array([True, False, True, True, False, False, True]),
        "scalar_f32": np.array(3.25, dtype=np.float32),
        "zero_size_f32": np.zeros((0, 3), dtype=np.float32),
    }


def csr_source():
    dense = np.array([[0, 1.5, 0, 0], [0, 0, 0, 0], [2.5, 0, -3.0, 4.0]], dtype=np.float32)
    rows, cols = np.nonzero(dense)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=dense.shape[0]))])
    return dense, dense[rows, cols], cols.astype(np.uint64), indptr.astype(np.uint64)


def coo_source():
    dense = np.array([[0, 0, 7], [1, 0, 0], [0, -2, 0], [0, 0, 9]], dtype=np.int32)
    rows, cols = np.nonzero(dense)
    return dense, dense[rows, cols], np.concatenate([rows, cols]).astype(np.uint64)


def quant_source():
    rng = np.random.default_rng(7)
    packed = rng.integers(-(2**31), 2**31 - 1, size=(8, 2), dtype=np.int32)  # 8 rows x 16 4-bit values
    scales = rng.random((8, 1)).astype(np.float16)
    zeros = np.full((8, 1), 8, dtype=np.float16)
    attrs = {"bits": 4, "group_size": 16, "packing": "8_per_i32"}
    return packed, scales, zeros, attrs


# ------------------------------------------------------ expected entries
def exp_comp(decoded: bytes, dtype: str, *, type=None, encoding="raw", digest=None):
    return {"dtype": dtype, "type": type, "encoding": encoding, "digest": digest,
            "nbytes": len(decoded), "sha256": zc.sha256_hex(decoded)}


def exp_obj(fmt, shape, components, *, attributes=None, dense=None, main="data"):
    o = {"format": fmt, "shape": list(shape), "dtype": components[main]["dtype"],
         "type": components[main]["type"], "attributes": attributes, "components": components}
    if dense is not None:
        o["dense_sha256"] = zc.sha256_hex(zc.le_bytes(dense))
        o["dense_dtype"] = zc.zt_dtype(dense)
    return o


def exp_dense(arr, *, encoding="raw", digest=None, shape=None, attributes=None, dtype=None, type=None):
    comp = exp_comp(zc.le_bytes(arr), dtype or zc.zt_dtype(arr), type=type, encoding=encoding, digest=digest)
    return exp_obj("dense", arr.shape if shape is None else shape, {"data": comp}, attributes=attributes)


def exp_csr(encoding="raw", digest=None):
    dense, values, indices, indptr = csr_source()
    comps = {"values": exp_comp(zc.le_bytes(values), "f32", encoding=encoding, digest=digest),
             "indices": exp_comp(zc.le_bytes(indices), "u64", encoding=encoding, digest=digest),
             "indptr": exp_comp(zc.le_bytes(indptr), "u64", encoding=encoding, digest=digest)}
    return exp_obj("sparse_csr", dense.shape, comps, dense=dense, main="values")


def exp_coo(encoding="raw", digest=None):
    dense, values, coords = coo_source()
    comps = {"values": exp_comp(zc.le_bytes(values), "i32", encoding=encoding, digest=digest),
             "coords": exp_comp(zc.le_bytes(coords), "u64", encoding=encoding, digest=digest)}
    return exp_obj("sparse_coo", dense.shape, comps, dense=dense, main="values")


def exp_quant(encoding="raw", digest=None):
    packed, scales, zeros, attrs = quant_source()
    comps = {"packed_weight": exp_comp(zc.le_bytes(packed), "i32", encoding=encoding, digest=digest),
             "scales": exp_comp(zc.le_bytes(scales), "f16", encoding=encoding, digest=digest),
             "zeros": exp_comp(zc.le_bytes(zeros), "f16", encoding=encoding, digest=digest)}
    return exp_obj("quantized_group", [8, 16], comps, attributes=attrs, main="packed_weight")


# ------------------------------------------- reference writers (in venvs)
def ref_zt12(out):
    """ztensor 1.2.3: Writer.add(name, array, compress=, checksum=) and
    Writer.write(name, ztensor.Tensor(...)) for sparse/quantized/logical."""
    import ztensor

    files = {}
    src = dense_sources()

    def dense_file(fname, compress, checksums):
        exp = {}
        with ztensor.Writer(os.path.join(out, fname)) as w:
            for i, (name, arr) in enumerate(src.items()):
                ck = checksums[i % len(checksums)]
                w.add(name, arr, compress=compress, checksum=ck or "none")
                # ztensor 1.2.3 stores 0-d arrays as shape [1] (see docs/interop.md)
                shape = [1] if arr.ndim == 0 else list(arr.shape)
                exp[name] = exp_dense(arr, encoding="zstd" if compress else "raw", digest=ck, shape=shape)
        files[fname] = {"version": "1.2.0", "attributes": None, "objects": exp}

    dense_file("ref_v1.2.3_dense.zt", False, [None])
    dense_file("ref_v1.2.3_digest.zt", False, ["sha256", "crc32c"])
    dense_file("ref_v1.2.3_zstd.zt", True, [None, "crc32c", "sha256"])

    exp = {}
    fname = "ref_v1.2.3_formats.zt"
    T = ztensor.Tensor
    with ztensor.Writer(os.path.join(out, fname)) as w:
        dense, values, indices, indptr = csr_source()
        w.write("csr", T({"values": values, "indices": indices, "indptr": indptr},
                         shape=list(dense.shape), dtype="float32", format="sparse_csr"))
        exp["csr"] = exp_csr()
        w.write("csr_zstd", T({"values": values, "indices": indices, "indptr": indptr},
                              shape=list(dense.shape), dtype="float32", format="sparse_csr"),
                compress=True, checksum="crc32c")
        exp["csr_zstd"] = exp_csr("zstd", "crc32c")
        dense, values, coords = coo_source()
        w.write("coo", T({"values": values, "coords": coords}, shape=list(dense.shape), dtype="int32",
                         format="sparse_coo"), checksum="sha256")
        exp["coo"] = exp_coo(digest="sha256")
        packed, scales, zeros, attrs = quant_source()
        w.write("quant", T({"packed_weight": packed, "scales": scales, "zeros": zeros}, shape=[8, 16],
                           dtype="int32", format="quantized_group", attributes=attrs))
        exp["quant"] = exp_quant()
        fp8 = np.array([0x00, 0x38, 0x40, 0xB8, 0x7E, 0x01], dtype=np.uint8)
        w.write("fp8", T({"data": fp8}, shape=[2, 3], dtype="uint8", type="f8_e4m3fn"))
        exp["fp8"] = exp_dense(fp8, shape=[2, 3], type="f8_e4m3fn")
        cplx = np.array([1 + 2j, -3.5 + 0.25j, 0 - 1j], dtype=np.complex64)
        w.write("cplx", T({"data": cplx.view(np.float32)}, shape=[3], dtype="float32", type="complex64"))
        exp["cplx"] = exp_dense(cplx.view(np.float32), shape=[3], dtype="f32", type="complex64")
        attr_arr = np.arange(4, dtype=np.int16)
        oattrs = {"role": "bias", "layer": 3}
        w.write("with_attrs", T({"data": attr_arr}, shape=[4], dtype="int16", attributes=oattrs))
        exp["with_attrs"] = exp_dense(attr_arr, attributes=oattrs)
    files[fname] = {"version": "1.2.0", "attributes": None, "objects": exp}
    return files


def ref_zt11(out):
    """ztensor 1.1.1: Writer.add_tensor(name, array, compress=),
    add_sparse_csr(name, values, indices, indptr, shape),
    add_sparse_coo(name, values, indices[ndim, nnz], shape), finalize()."""
    import ztensor

    files = {}
    src = dense_sources()
    for fname, compress in (("ref_v1.1.1_dense.zt", False), ("ref_v1.1.1_zstd.zt", True)):
        exp = {}
        with ztensor.Writer(os.path.join(out, fname)) as w:
            for name, arr in src.items():
                w.add_tensor(name, arr, compress=compress)
                shape = [1] if arr.ndim == 0 else list(arr.shape)
                exp[name] = exp_dense(arr, encoding="zstd" if compress else "raw", shape=shape)
        files[fname] = {"version": "1.1.0", "attributes": None, "objects": exp}

    fname = "ref_v1.1.1_sparse.zt"
    exp = {}
    with ztensor.Writer(os.path.join(out, fname)) as w:
        dense, values, indices, indptr = csr_source()
        w.add_sparse_csr("csr", values, indices, indptr, dense.shape)
        exp["csr"] = exp_csr()
        dense, values, coords = coo_source()
        w.add_sparse_coo("coo", values, coords.reshape(2, -1), dense.shape)
        exp["coo"] = exp_coo()
    files[fname] = {"version": "1.1.0", "attributes": None, "objects": exp}
    return files


def ref_zt01(out):
    """ztensor 0.1.4: Writer.add_tensor(name, array), finalize(); raw only."""
    import ztensor

    fname = "ref_v0.1.4_dense.zt"
    exp = {}
    with ztensor.Writer(os.path.join(out, fname)) as w:
        for name, arr in dense_sources().items():
            w.add_tensor(name, arr)
            shape = [1] if arr.ndim == 0 else list(arr.shape)
            exp[name] = exp_dense(arr, shape=shape)
    return {fname: {"version": "0.1.0", "attributes": None, "objects": exp}}


# ------------------------------------------------------------ hand-built
def hand_v12(out):
    f = zc.V1File()
    objs, exp = {}, {}

    def dense(name, arr, *, shape=None, dtype=None, type=None, encoding="raw", digest=None, style="spec",
              content_size=True, attributes=None, extra_obj=None, extra_comp=None, explicit_raw=False):
        decoded = zc.le_bytes(arr)
        dt = dtype or zc.zt_dtype(arr)
        comp = f.component(decoded, dt, type=type, encoding=encoding, digest=digest, digest_style=style,
                           content_size=content_size, extra=extra_comp)
        if explicit_raw:
            comp["encoding"] = "raw"
        shp = list(arr.shape) if shape is None else shape
        o = {"shape": shp, "format": "dense"}
        if attributes is not None:
            o["attributes"] = attributes
        o["components"] = {"data": comp}
        if extra_obj:
            o.update(extra_obj)
        objs[name] = o
        exp[name] = exp_dense(arr, shape=shp, dtype=dt, type=type, encoding=encoding, digest=digest,
                              attributes=attributes)

    src = dense_sources()
    dense("scalar", src["scalar_f32"])  # shape [] (spec: product of no dims = 1)
    dense("scalar_zstd_sha", np.array(-7, dtype=np.int64), encoding="zstd", digest="sha256")
    for t, vals in (("f8_e4m3fn", [0x00, 0x38, 0xB8, 0x7E]), ("f8_e5m2", [0x00, 0x3C, 0xBC, 0x7B]),
                    ("f8_e4m3fnuz", [0x00, 0x40, 0xC0, 0x7F]), ("f8_e5m2fnuz", [0x00, 0x40, 0xC0, 0x7F])):
        dense("fp8_" + t, np.array(vals, dtype=np.uint8).reshape(2, 2), type=t)
    c64 = np.array([[1 + 2j, 3 - 4j], [0.5j, -1]], dtype=np.complex64)
    dense("complex64", c64.view(np.float32).reshape(-1), shape=[2, 2], type="complex64")
    c128 = np.array([1e300 + 1j, -2.5 - 1e-300j, 0j], dtype=np.complex128)
    dense("complex128_zstd", c128.view(np.float64), shape=[3], type="complex128", encoding="zstd",
          digest="crc32c")
    # §2 "Readers that encounter an unrecognized type MAY fall back to loading raw dtype elements."
    dense("unknown_logical", np.arange(6, dtype=np.uint8), type="mxfp4_e2m1_future")
    dense("attrs_and_unknown_fields", src["i16"], attributes={"note": "unknown fields must be ignored",
                                                             "scale": 0.5, "tags": ["a", "b"]},
          extra_obj={"x_future_object_field": {"k": [1, 2]}}, extra_comp={"x_future_component_field": 1},
          explicit_raw=True)
    dense("zstd_sha256", src["f32"], encoding="zstd", digest="sha256")
    dense("zstd_no_frame_size_crc_ref_style", src["u16"], encoding="zstd", digest="crc32c", style="ref",
          content_size=False)
    dense("raw_crc32c_spec_style", src["i32"], digest="crc32c")
    dense("raw_crc32c_ref_style", src["u32"], digest="crc32c", style="ref")
    dense("bf16_sha256", src["bf16"], digest="sha256")
    dense("bool_zstd", src["bool"], encoding="zstd")
    dense("zero_size_zstd", np.zeros((3, 0), dtype=np.float16), encoding="zstd")

    dense_, values, indices, indptr = csr_source()
    objs["csr"] = {"shape": list(dense_.shape), "format": "sparse_csr", "components": {
        "values": f.component(zc.le_bytes(values), "f32"),
        "indices": f.component(zc.le_bytes(indices), "u64"),
        "indptr": f.component(zc.le_bytes(indptr), "u64")}}
    exp["csr"] = exp_csr()
    dense_, values, coords = coo_source()
    objs["coo_zstd_sha256"] = {"shape": list(dense_.shape), "format": "sparse_coo", "components": {
        "values": f.component(zc.le_bytes(values), "i32", encoding="zstd", digest="sha256"),
        "coords": f.component(zc.le_bytes(coords), "u64", encoding="zstd", digest="sha256")}}
    exp["coo_zstd_sha256"] = exp_coo("zstd", "sha256")
    packed, scales, zeros, attrs = quant_source()
    objs["quant"] = {"shape": [8, 16], "format": "quantized_group", "attributes": attrs, "components": {
        "packed_weight": f.component(zc.le_bytes(packed), "i32"),
        "scales": f.component(zc.le_bytes(scales), "f16"),
        "zeros": f.component(zc.le_bytes(zeros), "f16")}}
    exp["quant"] = exp_quant()
    # A zero-length blob may sit exactly at the end of the data section.
    dense("zero_size_last", np.zeros((0,), dtype=np.float64))

    fattrs = {"framework": "numpy", "license": "Apache-2.0", "n_layers": 3, "lr": 0.125, "flag": True,
              "nested": {"list": [1, "two", 3.5], "empty": {}}}
    manifest = {"version": "1.2.0", "attributes": fattrs, "objects": objs, "x_future_root_field": [0]}
    write(out, "hand_v1.2_features.zt", f.finish(manifest))
    files = {"hand_v1.2_features.zt": {"version": "1.2.0", "attributes": fattrs, "objects": exp}}

    write(out, "hand_v1.2_no_objects.zt", zc.V1File().finish({"version": "1.2.0", "objects": {}}))
    files["hand_v1.2_no_objects.zt"] = {"version": "1.2.0", "attributes": None, "objects": {}}
    return files


def hand_v11(out):
    """v1.1 spellings (v1.1 §2.4): f8_e4m3/f8_e5m2/complex64/complex128 as
    dtype, narrow sparse indices (Part III §2 "f32 values with u16 indices"),
    zstd without uncompressed_length (a v1.1 field set has none)."""
    f = zc.V1File()
    objs, exp = {}, {}
    fp8 = np.array([0x00, 0x38, 0xB8, 0x7E, 0x01, 0x80], dtype=np.uint8)
    objs["fp8_e4m3"] = {"shape": [3, 2], "format": "dense",
                        "components": {"data": f.component(fp8.tobytes(), "f8_e4m3")}}
    exp["fp8_e4m3"] = exp_dense(fp8, shape=[3, 2], dtype="u8", type="f8_e4m3fn")
    fp8b = np.array([0x3C, 0xBC, 0x7B, 0x04], dtype=np.uint8)
    objs["fp8_e5m2_zstd"] = {"shape": [4], "format": "dense", "components": {
        "data": f.component(fp8b.tobytes(), "f8_e5m2", encoding="zstd", uncompressed_length=False)}}
    exp["fp8_e5m2_zstd"] = exp_dense(fp8b, dtype="u8", type="f8_e5m2", encoding="zstd")
    c64 = np.array([1 + 2j, -0.5 - 8j], dtype=np.complex64)
    objs["complex64"] = {"shape": [2], "format": "dense",
                         "components": {"data": f.component(zc.le_bytes(c64), "complex64")}}
    exp["complex64"] = exp_dense(c64.view(np.float32), shape=[2], dtype="f32", type="complex64")
    c128 = np.array([[1 + 1j], [2 - 2j]], dtype=np.complex128)
    objs["complex128_sha256"] = {"shape": [2, 1], "format": "dense", "components": {
        "data": f.component(zc.le_bytes(c128), "complex128", digest="sha256")}}
    exp["complex128_sha256"] = exp_dense(c128.view(np.float64), shape=[2, 1], dtype="f64", type="complex128",
                                         digest="sha256")
    arr = dense_sources()["f32"]
    objs["zstd_no_ulen_frame_size"] = {"shape": list(arr.shape), "format": "dense", "components": {
        "data": f.component(zc.le_bytes(arr), "f32", encoding="zstd", uncompressed_length=False)}}
    exp["zstd_no_ulen_frame_size"] = exp_dense(arr, encoding="zstd")
    arr = dense_sources()["i64"]
    objs["zstd_no_ulen_no_frame_size"] = {"shape": list(arr.shape), "format": "dense", "components": {
        "data": f.component(zc.le_bytes(arr), "i64", encoding="zstd", uncompressed_length=False,
                            content_size=False)}}
    exp["zstd_no_ulen_no_frame_size"] = exp_dense(arr, encoding="zstd")

    dense_, values, indices, indptr = csr_source()
    i16, p32 = indices.astype(np.uint16), indptr.astype(np.uint32)
    objs["csr_u16_u32"] = {"shape": list(dense_.shape), "format": "sparse_csr", "components": {
        "values": f.component(zc.le_bytes(values), "f32"),
        "indices": f.component(zc.le_bytes(i16), "u16"),
        "indptr": f.component(zc.le_bytes(p32), "u32")}}
    e = exp_csr()
    e["components"]["indices"] = exp_comp(zc.le_bytes(i16), "u16")
    e["components"]["indptr"] = exp_comp(zc.le_bytes(p32), "u32")
    exp["csr_u16_u32"] = e
    dense_, values, coords = coo_source()
    c32 = coords.astype(np.uint32)
    objs["coo_u32"] = {"shape": list(dense_.shape), "format": "sparse_coo", "components": {
        "values": f.component(zc.le_bytes(values), "i32"),
        "coords": f.component(zc.le_bytes(c32), "u32")}}
    e = exp_coo()
    e["components"]["coords"] = exp_comp(zc.le_bytes(c32), "u32")
    exp["coo_u32"] = e
    attrs = {"framework": "PyTorch"}
    write(out, "hand_v1.1_legacy.zt", f.finish({"version": "1.1.0", "attributes": attrs, "objects": objs}))
    return {"hand_v1.1_legacy.zt": {"version": "1.1.0", "attributes": attrs, "objects": exp}}


def hand_v01(out):
    """v0.1 (ZTEN0001, CBOR array): data_endianness "big" (§6), checksum
    (§4 "crc32c:0x1234ABCD" or "sha256:..."), zstd, layout and custom keys."""
    f = zc.V01File()
    entries, exp = [], {}
    src = dense_sources()

    def entry(name, arr, *, big=False, checksum=None, encoding="raw", extra=None, endian_field=True):
        a = np.ascontiguousarray(arr)
        if big:
            stored = a.astype(a.dtype.newbyteorder(">")).tobytes() if a.dtype.itemsize > 1 else a.tobytes()
        else:
            stored = zc.le_bytes(a)
        if encoding == "zstd":
            stored = zc.zstd_compress(stored)
        dt = zc.zt_dtype(a)
        e = {"name": name, "offset": f.blob(stored), "size": len(stored), "dtype": zc.ZT_TO_V01[dt],
             "shape": list(a.shape), "encoding": encoding}
        if endian_field:
            e["data_endianness"] = "big" if big else "little"
        if checksum:
            e["checksum"] = zc.digest_of(stored, checksum, "ref")
        if extra:
            e.update(extra)
        entries.append(e)
        exp[name] = exp_dense(a, encoding=encoding, digest=checksum)

    entry("f32_big", src["f32"], big=True)
    entry("i64_big_crc32c", src["i64"], big=True, checksum="crc32c")
    entry("f16_big", src["f16"], big=True)
    entry("bf16_big", src["bf16"], big=True)
    entry("u16_big_sha256", src["u16"], big=True, checksum="sha256")
    entry("u8_big", src["u8"], big=True)
    entry("f64_little", src["f64"], extra={"layout": "dense", "x_custom": "kept or ignored"})
    entry("i32_no_endian_field", src["i32"], endian_field=False)
    entry("bool", src["bool"])
    entry("scalar", src["scalar_f32"])  # v0.1 §4: "An empty array [] denotes a scalar."
    entry("zstd_crc32c", src["f32"], encoding="zstd", checksum="crc32c")
    write(out, "hand_v0.1_features.zt", f.finish(entries))
    write(out, "hand_v0.1_no_tensors.zt", zc.V01File().finish([]))  # v0.1 §7: the 17-byte file
    return {"hand_v0.1_features.zt": {"version": "0.1.0", "attributes": None, "objects": exp},
            "hand_v0.1_no_tensors.zt": {"version": "0.1.0", "attributes": None, "objects": {}}}


def write(out, name, data):
    assert len(data) < 64 * 1024, name
    with open(os.path.join(out, name), "wb") as fh:
        fh.write(data)


# ------------------------------------------------------------------ main
def check_against_manifest(out, files):
    """The expected shapes/dtypes must agree with what each file declares."""
    for fname, fe in files.items():
        with open(os.path.join(out, fname), "rb") as fh:
            data = fh.read()
        assert len(data) < 64 * 1024, fname
        m = zc.read_manifest(data)
        if isinstance(m, list):
            names = {e["name"]: e for e in m}
            assert set(names) == set(fe["objects"]), fname
            for n, e in names.items():
                assert e["shape"] == fe["objects"][n]["shape"], (fname, n)
            continue
        assert m["version"] == fe["version"], (fname, m["version"])
        assert set(m["objects"]) == set(fe["objects"]), (fname, set(m["objects"]) ^ set(fe["objects"]))
        for n, o in m["objects"].items():
            eo = fe["objects"][n]
            assert o["shape"] == eo["shape"], (fname, n, o["shape"], eo["shape"])
            assert o["format"] == eo["format"], (fname, n)
            assert set(o["components"]) == set(eo["components"]), (fname, n)
            for role, c in o["components"].items():
                ec = eo["components"][role]
                assert c.get("encoding", "raw") == ec["encoding"], (fname, n, role)
                assert bool(c.get("digest")) == bool(ec["digest"]), (fname, n, role)
                if fe["version"].startswith("1.2"):
                    assert c["dtype"] == ec["dtype"], (fname, n, role, c["dtype"], ec["dtype"])
                    assert c.get("type") == ec["type"], (fname, n, role)
                if c.get("encoding", "raw") == "raw":
                    assert c["length"] == ec["nbytes"], (fname, n, role)


def main():
    ap = argparse.ArgumentParser()
    peers = os.path.join(HERE, "..", "..", "build", "peers")
    ap.add_argument("--venvs", default=os.environ.get("ZT_PEER_VENVS", os.path.normpath(peers)))
    ap.add_argument("--ref", choices=sorted(REFS), help="(internal) run one reference writer")
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    if args.ref:
        fn = {"zt12": ref_zt12, "zt11": ref_zt11, "zt01": ref_zt01}[args.ref]
        json.dump(fn(args.out), sys.stdout)
        return
    files = {}
    for venv, version in REFS.items():
        py = os.path.join(args.venvs, venv, "bin", "python")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the venv's own ztensor
        got = subprocess.run([py, "-I", os.path.abspath(__file__), "--ref", venv, "--out", args.out],
                             check=True, capture_output=True, text=True, env=env)
        part = json.loads(got.stdout)
        for v in part.values():
            v["producer"] = f"ztensor {version} (PyPI)"
        files.update(part)
    for fn in (hand_v12, hand_v11, hand_v01):
        part = fn(args.out)
        for v in part.values():
            v["producer"] = "tests/golden/make_golden.py (hand-built)"
        files.update(part)
    check_against_manifest(args.out, files)
    total = sum(os.path.getsize(os.path.join(args.out, n)) for n in files)
    assert total < 1024 * 1024, total
    with open(os.path.join(args.out, "expected.json"), "w") as fh:
        json.dump(dict(sorted(files.items())), fh, indent=1, sort_keys=False)
        fh.write("\n")
    print(f"{len(files)} golden files, {total} bytes")


if __name__ == "__main__":
    main()
