#!/usr/bin/env python3
"""Generates the NumPy test files and expected.json.

Valid arrays are written by numpy itself (np.save, np.savez,
np.savez_compressed, numpy.lib.format.write_array for versions 2.0/3.0);
expected values are the little-endian C-order bytes numpy reads back.
Attack files are crafted (a minimal zip builder below), one per defect, each
with the error the reader must return when opening ("open"), reading an
array ("read") or verifying CRCs ("verify").

Run: python3 tests/formats/numpy/make_numpy.py
"""
import hashlib
import io
import json
import os
import struct
import zipfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ZT_DTYPE = {"b": "bool", "i1": "i8", "u1": "u8", "i2": "i16", "u2": "u16", "i4": "i32", "u4": "u32",
            "i8": "i64", "u8": "u64", "f2": "f16", "f4": "f32", "f8": "f64", "c8": "f32", "c16": "f64"}


def sha(b):
    return hashlib.sha256(bytes(b)).hexdigest()


def describe(a):
    kind = "b" if a.dtype.kind == "b" else a.dtype.kind + str(a.dtype.itemsize)
    le = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<"), copy=True)
    e = {"shape": list(a.shape), "dtype": ZT_DTYPE[kind], "sha256": sha(le.tobytes())}
    if a.dtype.kind == "c":
        e["type"] = "complex64" if a.dtype.itemsize == 8 else "complex128"
    e["zero_copy"] = bool(a.dtype.byteorder != ">" and (a.flags.c_contiguous or a.ndim <= 1))
    return e


def arrays():
    rng = np.random.default_rng(7)
    return {
        "f4": rng.standard_normal((2, 3)).astype("<f4"),
        "f8_big": rng.standard_normal((3, 4)).astype(">f8"),
        "fortran_f4": np.asfortranarray(rng.standard_normal((3, 4, 5)).astype("<f4")),
        "fortran_big_i2": np.asfortranarray(np.arange(24, dtype=">i2").reshape(2, 3, 4)),
        "scalar": np.array(3.25),
        "empty": np.zeros((0, 3), dtype="<f4"),
        "bool": np.array([True, False, True, True]),
        "c8": (rng.standard_normal(5) + 1j * rng.standard_normal(5)).astype("<c8"),
        "c16_big": (rng.standard_normal((2, 2)) + 1j).astype(">c16"),
        "i8": np.array([-(2**62), 5], dtype="<i8"),
        "u2": np.arange(7, dtype="<u2"),
        "f2": rng.standard_normal(9).astype("<f2"),
        "u1": np.arange(10, dtype=np.uint8),
        "i1": np.arange(-3, 3, dtype=np.int8),
        "u8_big": np.array([1, 2**63], dtype=">u8"),
    }


# ------------------------------------------------------------ zip crafting

def zip_bytes(members, eocd_entries=None, cd_offset_delta=0, zip64=False, flags=0, extra_cd=b""):
    """members: list of (name, data, method, declared_usize or None, crc or None, local_offset_override)."""
    out = bytearray()
    central = bytearray()
    offsets = []
    for name, data, method, usize, crc, at in members:
        nb = name.encode()
        raw = data
        comp = raw
        if method == 8:
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            comp = c.compress(raw) + c.flush()
        u = len(raw) if usize is None else usize
        cr = zlib.crc32(raw) if crc is None else crc
        if at is None:
            at = len(out)
            out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, flags, method, 0, 0, cr, len(comp), u, len(nb), 0)
            out += nb + comp
        offsets.append(at)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, flags, method, 0, 0, cr, len(comp), u,
                               len(nb), 0, 0, 0, 0, 0, at) + nb
    central += extra_cd
    cd_off = len(out) + cd_offset_delta
    n = len(members) if eocd_entries is None else eocd_entries
    tail = bytearray()
    if zip64:
        z = len(out) + len(central)
        tail += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, n, n, len(central), cd_off)
        tail += struct.pack("<IIQI", 0x07064B50, 0, z, 1)
        tail += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    else:
        tail += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(central), cd_off, 0)
    return bytes(out + central + tail)


def npy_bytes(a, version=None):
    b = io.BytesIO()
    if version:
        np.lib.format.write_array(b, a, version=version)
    else:
        np.save(b, a)
    return b.getvalue()


def npy_with_header(literal, data=b"", version=1):
    h = literal.encode()
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", len(h)) + h + data


def hdr(descr="'<f4'", fortran="False", shape="(2,)"):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)


def main():
    expected = {"npy": {}, "npz": {}, "invalid": {}}
    arrs = arrays()
    for name, a in arrs.items():
        np.save(os.path.join(HERE, name + ".npy"), a)
        expected["npy"][name + ".npy"] = describe(a)
    for ver in ((2, 0), (3, 0)):
        fname = "f4_v%d.npy" % ver[0]
        with open(os.path.join(HERE, fname), "wb") as f:
            f.write(npy_bytes(arrs["f4"], ver))
        expected["npy"][fname] = describe(arrs["f4"])
    np.savez(os.path.join(HERE, "savez.npz"), **arrs)
    np.savez_compressed(os.path.join(HERE, "savez_compressed.npz"), **arrs)
    np.savez(os.path.join(HERE, "savez_positional.npz"), arrs["f4"], arrs["u1"])
    for fname, stored in (("savez.npz", True), ("savez_compressed.npz", False)):
        d = {}
        with np.load(os.path.join(HERE, fname)) as z:  # numpy's own reader
            for k in z.files:
                e = describe(z[k])
                e["zero_copy"] = bool(e["zero_copy"] and stored)
                d[k] = e
        expected["npz"][fname] = d
    expected["npz"]["savez_positional.npz"] = {"arr_0": describe(arrs["f4"]), "arr_1": describe(arrs["u1"])}
    a = arrs["f4"]
    expected["npz"]["ok_zip64_eocd.npz"] = {"w": describe(a)}
    with open(os.path.join(HERE, "ok_zip64_eocd.npz"), "wb") as f:
        f.write(zip_bytes([("w.npy", npy_bytes(a), 0, None, None, None)], zip64=True))

    f4 = npy_bytes(np.arange(4, dtype="<f4"))
    big = npy_bytes(np.zeros(1000, dtype="<f8"))
    obj = io.BytesIO()
    np.save(obj, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    structured = npy_bytes(np.zeros(2, dtype=[("x", "<f4"), ("y", "<i4")]))
    import ml_dtypes
    bf16 = npy_bytes(np.zeros(3, dtype=ml_dtypes.bfloat16))
    bz = io.BytesIO()
    with zipfile.ZipFile(bz, "w", compression=zipfile.ZIP_BZIP2) as z:
        z.writestr("w.npy", f4)
    attacks = {
        # .npy
        "bad_magic.npy": (b"\x93NUMPX\x01\x00" + f4[8:], "open", "bad_magic"),
        "version_4.npy": (b"\x93NUMPY\x04\x00" + f4[8:], "open", "unsupported"),
        "header_over_10000_bytes.npy": (npy_with_header(hdr() + " " * 10001, b"\0" * 8, version=2), "open",
                                        "limit_exceeded"),
        "header_length_past_eof.npy": (b"\x93NUMPY\x01\x00\xff\x00{'descr'", "open", "malformed_manifest"),
        "object_dtype.npy": (obj.getvalue(), "open", "unsupported"),
        "structured_dtype.npy": (structured, "open", "unsupported"),
        "bfloat16_void_dtype.npy": (bf16, "open", "unsupported"),
        "unicode_dtype.npy": (npy_bytes(np.array(["ab", "c"])), "open", "unsupported"),
        "native_order_descr.npy": (npy_with_header(hdr("'=f4'"), b"\0" * 8), "open", "unsupported"),
        "literal_function_call.npy": (npy_with_header(hdr("__import__('os').system('echo pwned')"), b"\0" * 8),
                                      "open", "malformed_manifest"),
        "literal_missing_shape.npy": (npy_with_header("{'descr': '<f4', 'fortran_order': False}", b""), "open",
                                      "malformed_manifest"),
        "literal_extra_key.npy": (npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), "
                                                  "'x': 1}", b"\0" * 8), "open", "malformed_manifest"),
        "literal_duplicate_key.npy": (npy_with_header("{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, "
                                                      "'shape': (2,)}", b"\0" * 8), "open", "malformed_manifest"),
        "literal_one_tuple_without_comma.npy": (npy_with_header(hdr(shape="(2)"), b"\0" * 8), "open",
                                                "malformed_manifest"),
        "literal_negative_dim.npy": (npy_with_header(hdr(shape="(-2,)"), b"\0" * 8), "open", "malformed_manifest"),
        "literal_float_dim.npy": (npy_with_header(hdr(shape="(2.0,)"), b"\0" * 8), "open", "malformed_manifest"),
        "literal_fortran_order_string.npy": (npy_with_header(hdr(fortran="'no'"), b"\0" * 8), "open",
                                             "malformed_manifest"),
        "literal_unterminated.npy": (npy_with_header("{'descr': '<f4", b""), "open", "malformed_manifest"),
        "literal_trailing_text.npy": (npy_with_header(hdr() + " x", b"\0" * 8), "open", "malformed_manifest"),
        "shape_product_overflows.npy": (npy_with_header(hdr(shape="(4294967296, 4294967296, 2)"), b""), "open",
                                        "shape_overflow"),
        "dim_over_int64.npy": (npy_with_header(hdr(shape="(9223372036854775808,)"), b""), "open", "shape_overflow"),
        "data_shorter_than_shape.npy": (f4[:-1], "open", "length_mismatch"),
        "data_trailing_bytes.npy": (f4 + b"\0", "open", "length_mismatch"),
        # .npz
        "no_eocd.npz": (b"PK\x03\x04" + b"\0" * 40, "open", "bad_magic"),
        # 4 GiB declared from a 30-byte stream: refused before inflating.
        "zip_bomb_declares_4gib.npz": (zip_bytes([("w.npy", f4, 8, 0xFFFFFFFE, None, None)]), "open",
                                       "limit_exceeded"),
        "lying_size_larger_than_npy_header.npz": (zip_bytes([("w.npy", f4, 8, len(f4) + 64, None, None)]), "open",
                                                  "length_mismatch"),
        "stored_sizes_disagree.npz": (zip_bytes([("w.npy", f4, 0, len(f4) + 1, None, None)]), "open",
                                      "malformed_manifest"),
        "deflate_stream_longer_than_declared.npz": (
            zip_bytes([("w.npy", f4[:-4] + b"\0" * 4 + b"junk" * 8, 8, len(f4), None, None)]), "read",
            "length_mismatch"),
        "crc_mismatch_deflated.npz": (zip_bytes([("w.npy", f4, 8, None, 0x12345678, None)]), "read",
                                      "digest_mismatch"),
        "crc_mismatch_stored.npz": (zip_bytes([("w.npy", f4, 0, None, 0x12345678, None)]), "verify",
                                    "digest_mismatch"),
        "truncated_central_directory.npz": (zip_bytes([("w.npy", f4, 0, None, None, None)], eocd_entries=3),
                                            "open", "malformed_manifest"),
        "entry_count_2pow16_minus_2.npz": (zip_bytes([("w.npy", f4, 0, None, None, None)], eocd_entries=0xFFFE),
                                           "open", "malformed_manifest"),
        "central_directory_offset_past_eof.npz": (zip_bytes([("w.npy", f4, 0, None, None, None)],
                                                            cd_offset_delta=10**6), "open", "malformed_manifest"),
        "overlapping_members.npz": (zip_bytes([("w.npy", f4, 0, None, None, None),
                                               ("w.npy", f4, 0, None, None, 0)]), "open", "invalid_structure"),
        "duplicate_member_names.npz": (zip_bytes([("w.npy", f4, 0, None, None, None),
                                                  ("w.npy", f4, 0, None, None, None)]), "open", "invalid_structure"),
        # the archive opens; the object member is refused when read (it would need pickle)
        "object_array_member.npz": (zip_bytes([("w.npy", obj.getvalue(), 8, None, None, None)]), "read",
                                    "unsupported"),
        "encrypted_member.npz": (zip_bytes([("w.npy", f4, 0, None, None, None)], flags=1), "open", "unsupported"),
        "bzip2_member.npz": (bz.getvalue(), "open", "unsupported"),
        "non_npy_member.npz": (zip_bytes([("readme.txt", b"hello", 0, None, None, None)]), "open", "unsupported"),
        "member_npy_header_malformed.npz": (zip_bytes([("w.npy", npy_with_header(hdr(shape="(2"), b""), 8, None,
                                                        None, None)]), "open", "malformed_manifest"),
        "member_shape_overflow.npz": (zip_bytes([("w.npy", npy_with_header(hdr(shape="(4294967296, 4294967296, 2)"),
                                                                           b""), 0, None, None, None)]), "open",
                                      "shape_overflow"),
    }
    # A deflate ratio bomb under the per-member cap: 512 MiB declared from a
    # few hundred bytes of stream. The header is honest about the size.
    bomb_arr_hdr = npy_with_header(hdr("'<f8'", shape="(67108864,)"))
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    small = c.compress(bomb_arr_hdr + b"\0" * 4096) + c.flush()
    declared = len(bomb_arr_hdr) + 8 * 67108864
    nb = b"w.npy"
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, 0, len(small), declared, len(nb), 0) + nb + small
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, 0, len(small), declared, len(nb),
                          0, 0, 0, 0, 0, 0) + nb
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), len(local), 0)
    attacks["deflate_ratio_over_1032.npz"] = (local + central + eocd, "open", "limit_exceeded")

    os.makedirs(os.path.join(HERE, "attacks"), exist_ok=True)
    for name, (data, stage, code) in attacks.items():
        with open(os.path.join(HERE, "attacks", name), "wb") as f:
            f.write(data)
        expected["invalid"]["attacks/" + name] = {"stage": stage, "code": code}
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
