#!/usr/bin/env python3
"""Generates the GGUF test files and expected.json.

Valid files are written by gguf-py's GGUFWriter (the reference producer) and
quantized with gguf-py's own quantizers; expected values come from gguf-py's
GGUFReader and gguf.quants.dequantize. Attack files are crafted byte by byte,
one per defect, each with the error code the reader must return.

Run: python3 tests/formats/gguf/make_gguf.py   (needs `pip install gguf numpy`)
"""
import hashlib
import json
import os
import struct

import numpy as np
import gguf
from gguf import GGMLQuantizationType as Q, GGUFValueType as V

NESTED = [[1, 2], [3]]
HERE = os.path.dirname(os.path.abspath(__file__))


def sha(b):
    return hashlib.sha256(bytes(b)).hexdigest()


def write_dense(path):
    w = gguf.GGUFWriter(path, arch="ztest")
    w.add_uint8("t.u8", 200)
    w.add_int8("t.i8", -100)
    w.add_uint16("t.u16", 60000)
    w.add_int16("t.i16", -30000)
    w.add_uint32("t.u32", 4000000000)
    w.add_int32("t.i32", -2000000000)
    w.add_uint64("t.u64", 2**63 + 5)
    w.add_int64("t.i64", -(2**62))
    w.add_float32("t.f32", 0.15625)
    w.add_float64("t.f64", 1e300)
    w.add_bool("t.bool", True)
    w.add_string("t.str", "héllo ✓")
    w.add_array("t.strings", ["a", "", "ünï", "[PAD]"])
    w.add_array("t.ints", [1, -2, 3])
    w.add_array("t.nested", NESTED)
    rng = np.random.default_rng(1)
    w.add_tensor("f32", rng.standard_normal((2, 3, 4)).astype(np.float32))
    w.add_tensor("f16", rng.standard_normal((5, 7)).astype(np.float16))
    bf = (rng.standard_normal((3, 8)).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    w.add_tensor("bf16", bf.view(np.uint8), raw_shape=(3, 8), raw_dtype=Q.BF16)
    w.add_tensor("f64", rng.standard_normal(6))
    w.add_tensor("i8", np.arange(-5, 5, dtype=np.int8))
    w.add_tensor("i16", np.arange(12, dtype=np.int16).reshape(3, 4))
    w.add_tensor("i32", np.arange(-6, 6, dtype=np.int32).reshape(2, 2, 3))
    w.add_tensor("i64", np.array([2**40, -1], dtype=np.int64))
    w.add_tensor("vec4d", np.ones((1, 2, 1, 3), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def kquant_blocks(rng, qtype, n_blocks):
    """Random K-quant blocks with finite f16 scales (gguf-py has no K-quantizer)."""
    _, tsize = gguf.GGML_QUANT_SIZES[qtype]
    b = rng.integers(0, 256, size=(n_blocks, tsize), dtype=np.uint8)
    f16_fields = {Q.Q2_K: [80, 82], Q.Q3_K: [108], Q.Q4_K: [0, 2], Q.Q5_K: [0, 2], Q.Q6_K: [208]}
    for off in f16_fields.get(qtype, []):
        b[:, off:off + 2] = rng.uniform(-0.01, 0.01, n_blocks).astype(np.float16).view(np.uint8).reshape(-1, 2)
    if qtype == Q.Q8_K:
        b[:, 0:4] = rng.uniform(-0.01, 0.01, n_blocks).astype(np.float32).view(np.uint8).reshape(-1, 4)
    return b


def write_quant(path, custom_alignment=None):
    w = gguf.GGUFWriter(path, arch="ztest")
    if custom_alignment:
        w.add_custom_alignment(custom_alignment)
    rng = np.random.default_rng(2)
    for qt in (Q.Q8_0, Q.Q4_0, Q.Q4_1, Q.Q5_0, Q.Q5_1):
        x = rng.standard_normal((3, 64)).astype(np.float32)
        w.add_tensor(qt.name.lower(), gguf.quants.quantize(x, qt), raw_dtype=qt)
    for qt in (Q.Q2_K, Q.Q3_K, Q.Q4_K, Q.Q5_K, Q.Q6_K, Q.Q8_K, Q.IQ4_NL):
        bs, ts = gguf.GGML_QUANT_SIZES[qt]
        rows, per_row = 2, 2 * 256 // bs
        blocks = kquant_blocks(rng, qt, rows * per_row).reshape(rows, per_row * ts)
        w.add_tensor(qt.name.lower(), blocks, raw_dtype=qt)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def q8_k_reference(blocks):
    # gguf-py has no Q8_K dequantizer: value = f32 d * i8 q.
    d = blocks[:, 0:4].copy().view(np.float32)
    q = blocks[:, 4:260].copy().view(np.int8).astype(np.float32)
    return d * q


def describe(path):
    r = gguf.GGUFReader(path)
    attrs = {}
    for name, field in r.fields.items():
        if name.startswith("GGUF."):
            continue
        attrs[name] = field_value(field)
    if "t.nested" in attrs:
        # GGUFReader flattens arrays of arrays; the value is what was written.
        attrs["t.nested"] = NESTED
    tensors = {}
    for t in r.tensors:
        qt = Q(t.tensor_type)
        raw = np.ascontiguousarray(t.data).view(np.uint8).tobytes()
        shape = [int(x) for x in reversed(t.shape.tolist())]
        e = {"shape": shape, "ggml_type": qt.name, "sha256": sha(raw)}
        if qt in (Q.F32, Q.F16, Q.BF16) or qt in (Q.Q8_0, Q.Q4_0, Q.Q4_1, Q.Q5_0, Q.Q5_1,
                                                  Q.Q2_K, Q.Q3_K, Q.Q4_K, Q.Q5_K, Q.Q6_K, Q.Q8_K):
            byte_rows = np.frombuffer(raw, dtype=np.uint8)
            if qt == Q.Q8_K:
                f = q8_k_reference(byte_rows.reshape(-1, 292))
            elif qt == Q.F32:
                f = byte_rows.view(np.float32)
            else:
                bs, ts = gguf.GGML_QUANT_SIZES[qt]
                f = gguf.quants.dequantize(byte_rows.reshape(-1, ts), qt)
            e["dequant_sha256"] = sha(np.ascontiguousarray(f, dtype="<f4").tobytes())
        tensors[t.name] = e
    return {"attributes": attrs, "tensors": tensors}


def field_value(field):
    return field.contents()


# ---------------------------------------------------------------- crafting

def s(x):
    b = x.encode() if isinstance(x, str) else x
    return struct.pack("<Q", len(b)) + b


def kv(key, vtype, payload):
    return s(key) + struct.pack("<I", vtype) + payload


def tinfo(name, dims, ggml_type, offset):
    return s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims) + \
        struct.pack("<II", ggml_type, 0)[:4] + struct.pack("<Q", offset)


def gguf_file(kvs=(), tensors=(), data=b"", version=3, align=32, n_tensors=None, n_kv=None):
    head = b"GGUF" + struct.pack("<IQQ", version, len(tensors) if n_tensors is None else n_tensors,
                                 len(kvs) if n_kv is None else n_kv)
    body = head + b"".join(kvs) + b"".join(tensors)
    body += b"\0" * ((-len(body)) % align)
    return body + data


def u32(v):
    return struct.pack("<I", v)


F32 = 0
ATTACKS = {
    # name: (bytes, expected error code)
    "bad_magic": (b"GGUX" + b"\0" * 20, "bad_magic"),
    "empty_file": (b"", "bad_magic"),
    "version_1_unsupported": (gguf_file(version=1), "unsupported"),
    "version_4_unsupported": (gguf_file(version=4), "unsupported"),
    "truncated_before_counts": (b"GGUF" + u32(3) + b"\1\0", "malformed_manifest"),
    "kv_count_2pow60": (gguf_file(n_kv=2**60), "malformed_manifest"),
    "tensor_count_2pow60": (gguf_file(n_tensors=2**60), "malformed_manifest"),
    "key_length_u64_max": (b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 2**64 - 1) + b"k" * 16,
                           "malformed_manifest"),
    "string_value_length_u64_max": (gguf_file([kv("k", V.STRING, struct.pack("<Q", 2**64 - 1) + b"xx")]),
                                    "malformed_manifest"),
    "string_value_length_past_eof": (gguf_file([kv("k", V.STRING, struct.pack("<Q", 1000) + b"xx")]),
                                     "malformed_manifest"),
    "u8_array_count_2pow62": (gguf_file([kv("k", V.ARRAY, u32(V.UINT8) + struct.pack("<Q", 2**62) + b"\0" * 8)]),
                              "malformed_manifest"),
    "string_array_count_2pow61": (gguf_file([kv("k", V.ARRAY, u32(V.STRING) + struct.pack("<Q", 2**61) +
                                                s("a") * 4)]), "malformed_manifest"),
    "string_array_element_length_overflows": (
        gguf_file([kv("k", V.ARRAY, u32(V.STRING) + struct.pack("<Q", 2) + s("a") +
                      struct.pack("<Q", 2**64 - 8) + b"abc")]), "malformed_manifest"),
    "array_nesting_9_deep": (gguf_file([kv("k", V.ARRAY, (u32(V.ARRAY) + struct.pack("<Q", 1)) * 9 +
                                           u32(V.UINT8) + struct.pack("<Q", 0))]), "limit_exceeded"),
    "unknown_value_type_13": (gguf_file([kv("k", 13, b"\0" * 8)]), "malformed_manifest"),
    "unknown_array_element_type": (gguf_file([kv("k", V.ARRAY, u32(99) + struct.pack("<Q", 1) + b"\0" * 8)]),
                                   "malformed_manifest"),
    "bool_value_2": (gguf_file([kv("k", V.BOOL, b"\2")]), "malformed_manifest"),
    "key_not_utf8": (gguf_file([kv(b"\xff\xfe", V.UINT8, b"\1")]), "malformed_manifest"),
    "duplicate_key": (gguf_file([kv("k", V.UINT8, b"\1"), kv("k", V.UINT8, b"\2")]), "invalid_structure"),
    "alignment_zero": (gguf_file([kv("general.alignment", V.UINT32, u32(0))]), "invalid_structure"),
    "alignment_48_not_power_of_two": (gguf_file([kv("general.alignment", V.UINT32, u32(48))], align=48),
                                      "invalid_structure"),
    "alignment_not_u32": (gguf_file([kv("general.alignment", V.UINT64, struct.pack("<Q", 64))]), "wrong_type"),
    "tensor_name_length_u64_max": (gguf_file(tensors=[struct.pack("<Q", 2**64 - 1) + b"\0" * 40]),
                                   "malformed_manifest"),
    "tensor_info_truncated": (b"GGUF" + struct.pack("<IQQ", 3, 1, 0) + s("w") + u32(4) + struct.pack("<3Q", 1, 1, 1),
                              "malformed_manifest"),
    "duplicate_tensor_name": (gguf_file(tensors=[tinfo("w", [4], F32, 0), tinfo("w", [4], F32, 32)],
                                        data=b"\0" * 64), "invalid_structure"),
    "n_dims_5": (gguf_file(tensors=[tinfo("w", [1, 1, 1, 1, 1], F32, 0)], data=b"\0" * 32), "limit_exceeded"),
    "n_dims_u32_max": (gguf_file(tensors=[s("w") + u32(2**32 - 1) + b"\0" * 64]), "limit_exceeded"),
    "dims_product_overflows_u64": (gguf_file(tensors=[tinfo("w", [2**32, 2**32, 2], F32, 0)], data=b"\0" * 32),
                                   "shape_overflow"),
    "dims_product_exceeds_int64": (gguf_file(tensors=[tinfo("w", [2**32, 2**31], 24, 0)], data=b"\0" * 32),
                                   "shape_overflow"),
    "byte_size_overflows_u64": (gguf_file(tensors=[tinfo("w", [2**31, 2**31], 27, 0)], data=b"\0" * 32),
                                "shape_overflow"),
    "ggml_type_4_removed_q4_2": (gguf_file(tensors=[tinfo("w", [32], 4, 0)], data=b"\0" * 32), "unknown_dtype"),
    "ggml_type_1000": (gguf_file(tensors=[tinfo("w", [4], 1000, 0)], data=b"\0" * 32), "unknown_dtype"),
    "q4_0_row_not_whole_blocks": (gguf_file(tensors=[tinfo("w", [48, 2], 2, 0)], data=b"\0" * 64),
                                  "invalid_structure"),
    "tensor_past_eof": (gguf_file(tensors=[tinfo("w", [64], F32, 0)], data=b"\0" * 100), "offset_out_of_range"),
    "tensor_offset_plus_size_overflows": (gguf_file(tensors=[tinfo("w", [64], F32, 2**64 - 32)], data=b"\0" * 256),
                                          "offset_out_of_range"),
    "tensor_offset_misaligned": (gguf_file(tensors=[tinfo("w", [4], F32, 8)], data=b"\0" * 64),
                                 "misaligned_offset"),
    "tensors_overlap": (gguf_file(tensors=[tinfo("a", [16], F32, 0), tinfo("b", [16], F32, 32)],
                                  data=b"\0" * 128), "invalid_structure"),
}

OK_CRAFTED = {
    "ok_zero_dim_tensor": gguf_file(tensors=[tinfo("empty", [0, 4], F32, 0), tinfo("w", [2], F32, 0)],
                                    data=struct.pack("<2f", 1.5, -2.0)),
    "ok_no_tensors_no_kv": gguf_file(),
    "ok_version_2": gguf_file([kv("general.name", V.STRING, s("v2"))], [tinfo("w", [3], F32, 0)],
                              data=struct.pack("<3f", 1, 2, 3), version=2),
    "ok_alignment_64": gguf_file([kv("general.alignment", V.UINT32, u32(64))],
                                 [tinfo("a", [3], F32, 0), tinfo("b", [2], F32, 64)],
                                 data=struct.pack("<3f", 1, 2, 3) + b"\0" * 52 + struct.pack("<2f", 4, 5), align=64),
    "ok_string_value_not_utf8": gguf_file([kv("k", V.STRING, s(b"\xff\x00a"))]),
    "ok_empty_string_and_array": gguf_file([kv("s", V.STRING, s("")),
                                            kv("a", V.ARRAY, u32(V.STRING) + struct.pack("<Q", 0))]),
}


def main():
    expected = {"valid": {}, "invalid": {}}
    write_dense(os.path.join(HERE, "dense.gguf"))
    write_quant(os.path.join(HERE, "quant.gguf"))
    write_quant(os.path.join(HERE, "quant_align64.gguf"), custom_alignment=64)
    for name in ("dense.gguf", "quant.gguf", "quant_align64.gguf"):
        expected["valid"][name] = describe(os.path.join(HERE, name))
    for name, data in OK_CRAFTED.items():
        with open(os.path.join(HERE, name + ".gguf"), "wb") as f:
            f.write(data)
        expected["valid"][name + ".gguf"] = None  # checked by hand in gguf_files_test.cc
    os.makedirs(os.path.join(HERE, "attacks"), exist_ok=True)
    for name, (data, code) in ATTACKS.items():
        with open(os.path.join(HERE, "attacks", name + ".gguf"), "wb") as f:
            f.write(data)
        expected["invalid"]["attacks/" + name + ".gguf"] = code
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True, default=lambda o: o.item() if hasattr(o, "item") else str(o))
        f.write("\n")


if __name__ == "__main__":
    main()
