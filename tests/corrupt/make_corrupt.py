"""Writes one crafted .zt file per failure kind, hostile safetensors/.npz/PyTorch files for the one
safetensors parser and the one zip reader (foreign_craft.py), and tests/corrupt/expected.json.

expected.json maps file name -> {"code", "stage", "object", "role", "why"}:
  code   the zt::error_code_name() a reader must raise (include/ztensor/status.h),
         or null for edge cases the spec allows (the file must read cleanly);
  stage  where the error must surface:
           open         ztensor.open(path)
           read         reader.read_component(object, role)
           verify       reader.verify() (and reading with open(path, verify=True))
An accepted file (code null) also names what its object/role must read as:
  nbytes, sha256  the length and SHA-256 of those decoded bytes.
A safetensors file also names `zstn`: the code the ZSTN writer gives for it.
The reasoning behind each choice, with the spec sentence it rests on, is in
tests/corrupt/README.md.

Regenerate (needs numpy, cbor2, zstandard):
    python3 tests/corrupt/make_corrupt.py   (any Python with those, e.g. build/peers/zt12/bin/python)
"""
from __future__ import annotations

import hashlib
import json
import os
import struct
import sys

import cbor2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
import zt_craft as zc  # noqa: E402

import foreign_craft  # noqa: E402  (beside this file)

CASES: dict[str, dict] = {}
FILES: dict[str, bytes] = {}
# Bare codec frames (not .zt files): frames.json names the code z4ai.decompress must raise.
FRAME_CASES: dict[str, dict] = {}
FRAMES: dict[str, bytes] = {}


def stored_chunks_claim_frame(n=16):
    """A Z4AI v2 frame (docs/codec.md) of n chunks of 256 MiB, each the
    smallest legal body: transform none, one stored stream whose raw length
    is the whole chunk and whose payload is empty (288 bytes for 16)."""
    chunk = 256 << 20
    header = b"Z4AI" + bytes([2, 0, 0, 0]) + struct.pack("<QQII", n * chunk, 0, chunk, n)
    body = bytes([0, 0, 1, 0]) + struct.pack("<II", chunk, 0)
    return header + struct.pack("<I", len(body)) * n + body * n


def case(name, data, code, stage="open", obj=None, role=None, why="", reads=None, ext=".zt", zstn=None):
    """`reads`: for an accepted file, the bytes obj/role must decode to. `zstn`: for a safetensors
    file, the code the ZSTN writer must give."""
    fname = name + ext
    assert fname not in CASES, fname
    assert (code is None) == (reads is not None), name
    FILES[fname] = data
    CASES[fname] = {"code": code, "stage": stage, "object": obj, "role": role, "why": why}
    if reads is not None:
        CASES[fname].update(nbytes=len(reads), sha256=hashlib.sha256(reads).hexdigest())
    if zstn is not None:
        CASES[fname]["zstn"] = zstn


def foreign_case(name, ext, data, code, why, zstn=None):
    case(name, data, code, why=why, ext=ext, zstn=zstn)


F32 = np.arange(4, dtype=np.float32)  # 16 bytes, shape [4]


def v12(mutate=None, *, version="1.2.0", arr=F32, encoding="raw", digest=None, extra_objects=None,
        **finish_kw):
    """A valid one-object v1.2 file ("w", dense f32 [4]) passed through
    `mutate(manifest, builder)` before the manifest is encoded."""
    f = zc.V1File()
    comp = f.component(zc.le_bytes(arr), zc.zt_dtype(arr), encoding=encoding, digest=digest)
    m = {"version": version,
         "objects": {"w": {"shape": list(arr.shape), "format": "dense", "components": {"data": comp}}}}
    if extra_objects:
        m["objects"].update(extra_objects(f))
    if mutate:
        mutate(m, f)  # edits in place; the return value is ignored
    return f.finish(m, **finish_kw)


def comp_of(m, obj="w", role="data"):
    return m["objects"][obj]["components"][role]


def sparse_csr_file(mutate=None, index_dtype=np.uint64, version="1.2.0"):
    f = zc.V1File()
    vals = np.array([1, 2, 3], np.float32)
    idx = np.array([0, 2, 1], index_dtype)
    ptr = np.array([0, 2, 3], index_dtype)
    comps = {"values": f.component(vals.tobytes(), "f32"),
             "indices": f.component(idx.tobytes(), zc.zt_dtype(idx)),
             "indptr": f.component(ptr.tobytes(), zc.zt_dtype(ptr))}
    m = {"version": version, "objects": {"s": {"shape": [2, 3], "format": "sparse_csr", "components": comps}}}
    if mutate:
        mutate(m, f)  # edits in place; the return value is ignored
    return f.finish(m)


def build():
    valid = v12()
    msize = struct.unpack("<Q", valid[-16:-8])[0]

    # ---- footer, magic and manifest size (spec v1.2 §4, §5 steps 1-5)
    case("bad_header_magic", b"ZTEN9999" + valid[8:], "bad_magic")
    case("bad_footer_magic", valid[:-8] + b"ZTEN1001", "bad_magic")
    case("empty_file", b"", "bad_magic")
    case("truncated_shorter_than_header_and_footer", b"ZTEN1000" + b"\0" * 12, "bad_magic")
    case("truncated_tail", valid[:-5], "bad_magic")
    case("manifest_size_over_1gib", valid[:-16] + struct.pack("<Q", (1 << 30) + 1) + b"ZTEN1000",
         "manifest_too_large")
    case("manifest_size_u64_max", valid[:-16] + struct.pack("<Q", 2**64 - 1) + b"ZTEN1000", "manifest_too_large")
    case("manifest_size_past_file", valid[:-16] + struct.pack("<Q", len(valid) + 100) + b"ZTEN1000",
         "malformed_manifest")
    case("manifest_overlaps_header_magic", valid[:-16] + struct.pack("<Q", len(valid) - 16 - 4) + b"ZTEN1000",
         "malformed_manifest")

    # ---- CBOR well-formedness and decoder limits (§1 "CBOR-encoded map (RFC 7049)")
    def raw(m_bytes):
        return zc.V1File().finish(None, raw_manifest=m_bytes)

    case("cbor_garbage", raw(b"\xff\xfe\xfd\x1c\x1d\x1e"), "malformed_manifest")
    case("cbor_empty_manifest", raw(b""), "malformed_manifest")
    good_manifest = zc.read_manifest(valid)
    case("cbor_trailing_bytes", raw(cbor2.dumps(good_manifest) + b"\x00"), "malformed_manifest")
    case("cbor_two_top_level_items", raw(cbor2.dumps(good_manifest) + cbor2.dumps({})), "malformed_manifest")
    case("cbor_truncated_map", raw(cbor2.dumps(good_manifest)[:-3]), "malformed_manifest")
    case("cbor_map_claims_2pow62_items", raw(b"\xbb" + struct.pack(">Q", 1 << 62) + b"\x60\x60"),
         "malformed_manifest")
    case("cbor_array_claims_2pow62_items", raw(b"\xa2\x67version\x651.2.0\x67objects\x9b" +
                                               struct.pack(">Q", 1 << 62)), "malformed_manifest")
    case("cbor_nested_200000_deep", raw(b"\x81" * 200_000 + b"\x80"), "limit_exceeded")
    case("cbor_nested_30000_deep_indefinite", raw(b"\x9f" * 30_000 + b"\xff" * 30_000), "limit_exceeded")
    case("cbor_text_claims_2pow62_bytes", raw(b"\xa1\x67version\x7b" + struct.pack(">Q", 1 << 62) + b"1.2.0"),
         "malformed_manifest")
    case("cbor_indefinite_text_chunk_claims_2pow62_bytes",
         raw(b"\xa1\x67version\x7f\x7b" + struct.pack(">Q", 1 << 62) + b"1.2\xff"), "malformed_manifest")
    case("cbor_indefinite_text_unterminated", raw(b"\xa1\x67version\x7f\x63" + b"1.2"), "malformed_manifest")
    case("cbor_indefinite_text_with_int_chunk", raw(b"\xa1\x67version\x7f\x01\xff"), "malformed_manifest")
    case("cbor_unexpected_break", raw(b"\xa1\x67version\xff"), "malformed_manifest")
    case("cbor_duplicate_map_key",
         raw(b"\xa3\x67version\x651.2.0\x67objects\xa0\x67version\x651.2.0"), "malformed_manifest",
         why="RFC 8949 §5.6: a map with duplicate keys is not valid")

    # ---- root fields (§1 Root: version and objects required)
    def drop(key):
        def f(m, _):
            del m[key]
        return f

    case("missing_version", v12(drop("version")), "missing_field")
    case("missing_objects", v12(drop("objects")), "missing_field")
    case("version_not_text", v12(lambda m, _: m.update(version=120)), "wrong_type")
    case("objects_not_map", v12(lambda m, _: m.update(objects=[m["objects"]["w"]])), "wrong_type")
    case("root_is_array", raw(cbor2.dumps([good_manifest])), "wrong_type")
    case("attributes_not_map", v12(lambda m, _: m.update(attributes=["x"])), "wrong_type")
    dup = zc.V1File()
    dup_comp = dup.component(zc.le_bytes(F32), "f32")
    dup_obj = cbor2.dumps({"shape": [4], "format": "dense", "components": {"data": dup_comp}})
    case("duplicate_object_name",
         dup.finish(None, raw_manifest=b"\xa2\x67version\x651.2.0\x67objects\xa2" + cbor2.dumps("w") + dup_obj
                    + cbor2.dumps("w") + dup_obj), "malformed_manifest", obj="w",
         why="RFC 8949 §5.6 duplicate map keys; two objects of one name would make the file ambiguous")
    case("major_version_2", v12(version="2.0.0"), "unsupported",
         why="Appendix: major versions may change the container structure")

    # ---- object fields (§1 Object)
    def obj_drop(key):
        def f(m, _):
            del m["objects"]["w"][key]
        return f

    def obj_set(key, value):
        def f(m, _):
            m["objects"]["w"][key] = value
        return f

    case("object_missing_shape", v12(obj_drop("shape")), "missing_field", obj="w")
    case("object_missing_format", v12(obj_drop("format")), "missing_field", obj="w")
    case("object_missing_components", v12(obj_drop("components")), "missing_field", obj="w")
    case("object_not_map", v12(lambda m, _: m["objects"].update(w=[1, 2])), "wrong_type", obj="w")
    case("shape_not_array", v12(obj_set("shape", 4)), "wrong_type", obj="w")
    case("shape_negative_entry", v12(obj_set("shape", [-4])), "wrong_type", obj="w")
    case("shape_float_entry", v12(obj_set("shape", [4.0])), "wrong_type", obj="w")
    case("shape_text_entry", v12(obj_set("shape", ["4"])), "wrong_type", obj="w")
    case("format_not_text", v12(obj_set("format", 1)), "wrong_type", obj="w")
    case("components_not_map", v12(obj_set("components", [])), "wrong_type", obj="w")
    case("object_attributes_not_map", v12(obj_set("attributes", "x")), "wrong_type", obj="w")
    case("rank_over_limit", v12(obj_set("shape", [1] * 65 + [4])), "limit_exceeded", obj="w",
         why="implementation limit kMaxRank = 64 (src/container/limits.h)")

    # ---- component fields (§1 Component)
    def c_set(**kv):
        def f(m, _):
            comp_of(m).update(kv)
        return f

    def c_drop(key):
        def f(m, _):
            del comp_of(m)[key]
        return f

    case("component_not_map", v12(lambda m, _: m["objects"]["w"]["components"].update(data=5)), "wrong_type",
         obj="w", role="data")
    case("component_missing_dtype", v12(c_drop("dtype")), "missing_field", obj="w", role="data")
    case("component_missing_offset", v12(c_drop("offset")), "missing_field", obj="w", role="data")
    case("component_missing_length", v12(c_drop("length")), "missing_field", obj="w", role="data")
    case("dtype_unknown_f128", v12(c_set(dtype="f128")), "unknown_dtype", obj="w", role="data")
    case("dtype_v01_spelling_in_v12", v12(c_set(dtype="float32")), "unknown_dtype", obj="w", role="data")
    case("dtype_v11_f8_e4m3_in_v12", v12(c_set(dtype="f8_e4m3"), arr=np.arange(16, dtype=np.uint8)),
         "unknown_dtype", obj="w", role="data", why="§2: dtype is one of the 13 fixed primitives")
    case("dtype_v11_complex64_in_v12", v12(lambda m, _: (comp_of(m).update(dtype="complex64"),
                                                         m["objects"]["w"].update(shape=[2]))),
         "unknown_dtype", obj="w", role="data")
    case("offset_negative", v12(c_set(offset=-64)), "wrong_type", obj="w", role="data")
    case("offset_text", v12(c_set(offset="64")), "wrong_type", obj="w", role="data")
    case("length_negative", v12(c_set(length=-16)), "wrong_type", obj="w", role="data")
    case("encoding_not_text", v12(c_set(encoding=1)), "wrong_type", obj="w", role="data")
    case("offset_not_multiple_of_64", v12(c_set(offset=72), arr=np.arange(64, dtype=np.uint8)),
         "misaligned_offset", obj="w", role="data")
    case("offset_zero_overlaps_magic", v12(c_set(offset=0)), "offset_out_of_range", obj="w", role="data",
         why="the blob would cover the header magic; the data section starts after it")
    case("offset_plus_length_past_manifest_start",
         v12(lambda m, _: (comp_of(m).update(length=80), m["objects"]["w"].update(shape=[20]))),
         "offset_out_of_range", obj="w", role="data", why="the blob would run into the manifest")
    case("offset_past_eof", v12(c_set(offset=1 << 40)), "offset_out_of_range", obj="w", role="data")
    case("offset_plus_length_overflows_u64",
         v12(lambda m, _: (comp_of(m).update(offset=2**64 - 64, length=128), m["objects"]["w"].update(shape=[32]))),
         "offset_out_of_range", obj="w", role="data")
    case("length_u64_max", v12(lambda m, _: (comp_of(m).update(length=2**64 - 1),
                                             m["objects"]["w"].update(shape=[2**64 - 1])),
                               arr=np.arange(16, dtype=np.uint8)), "offset_out_of_range", obj="w", role="data")

    # ---- dense size rules (§2 "Computing data size")
    case("dense_length_not_product_shape_width", v12(obj_set("shape", [3])), "length_mismatch", obj="w",
         role="data")
    case("dense_length_longer_than_shape", v12(obj_set("shape", [2, 1])), "length_mismatch", obj="w",
         role="data")
    case("shape_product_overflow", v12(obj_set("shape", [2**32, 2**32, 2])), "shape_overflow", obj="w")
    case("shape_times_width_overflow", v12(obj_set("shape", [2**62])), "shape_overflow", obj="w",
         why="2^62 f32 elements = 2^64 bytes")
    case("complex64_on_f64_storage", v12(lambda m, _: (comp_of(m).update(type="complex64"),
                                                       m["objects"]["w"].update(shape=[1])),
                                         arr=np.arange(2, dtype=np.float64)),
         "wrong_type", obj="w", role="data", why="§2 table: complex64 is stored as dtype f32")
    case("fp8_on_f32_storage", v12(c_set(type="f8_e4m3fn")), "wrong_type", obj="w", role="data",
         why="§2 table: f8_e4m3fn is stored as dtype u8")
    case("complex64_length_counts_storage_not_pairs", v12(c_set(type="complex64")), "length_mismatch",
         obj="w", role="data", why="4 complex64 elements need 4*2*4 = 32 bytes, the blob has 16")

    # ---- format-required components (§3)
    case("dense_missing_data", v12(lambda m, _: m["objects"]["w"].update(
        components={"values": comp_of(m)})), "missing_component", obj="w")
    case("sparse_csr_missing_indptr", sparse_csr_file(lambda m, _: m["objects"]["s"]["components"].pop("indptr")),
         "missing_component", obj="s")
    case("sparse_csr_missing_indices", sparse_csr_file(lambda m, _: m["objects"]["s"]["components"].pop("indices")),
         "missing_component", obj="s")
    case("sparse_csr_u32_indices_in_v12", sparse_csr_file(index_dtype=np.uint32), "wrong_type", obj="s",
         role="indices", why="§3 'All index components ... MUST use dtype: \"u64\"' (ztensor 1.2.3 writes these)")
    case("sparse_csr_f32_indices_in_v11", sparse_csr_file(index_dtype=np.float32, version="1.1.0"), "wrong_type",
         obj="s", role="indices", why="v1.1 Part III §2: indices are Integer")
    case("sparse_csr_indptr_wrong_length", sparse_csr_file(lambda m, _: m["objects"]["s"].update(shape=[3, 3])),
         "length_mismatch", obj="s", role="indptr", why="§3 indptr length = rows + 1")

    def coo(mutate=None, coords_dtype=np.uint64):
        def extra(f):
            vals = np.array([5, 6], np.int32)
            crd = np.array([0, 1, 2, 0], coords_dtype)
            return {"c": {"shape": [2, 3], "format": "sparse_coo", "components": {
                "values": f.component(vals.tobytes(), "i32"),
                "coords": f.component(crd.tobytes(), zc.zt_dtype(crd))}}}
        return v12(mutate, extra_objects=extra)

    case("sparse_coo_missing_coords", coo(lambda m, _: m["objects"]["c"]["components"].pop("coords")),
         "missing_component", obj="c")
    case("sparse_coo_i64_coords_in_v12", coo(coords_dtype=np.int64), "wrong_type", obj="c", role="coords")
    case("sparse_coo_coords_not_ndim_times_nnz", coo(lambda m, _: m["objects"]["c"].update(shape=[2, 3, 4])),
         "length_mismatch", obj="c", role="coords", why="§3 coords: flat array of length ndim * nnz")

    def quant(drop_role):
        def extra(f):
            comps = {"packed_weight": f.component(np.arange(4, dtype=np.int32).tobytes(), "i32"),
                     "scales": f.component(np.ones(2, np.float16).tobytes(), "f16"),
                     "zeros": f.component(np.zeros(2, np.float16).tobytes(), "f16")}
            comps.pop(drop_role)
            return {"q": {"shape": [4, 8], "format": "quantized_group",
                          "attributes": {"bits": 4, "group_size": 16, "packing": "8_per_i32"},
                          "components": comps}}
        return v12(extra_objects=extra)

    case("quantized_group_missing_scales", quant("scales"), "missing_component", obj="q")
    case("quantized_group_missing_zeros", quant("zeros"), "missing_component", obj="q")
    case("quantized_group_missing_packed_weight", quant("packed_weight"), "missing_component", obj="q")

    # ---- zstd (§1 uncompressed_length, §5 "Decompression limits")
    case("zstd_missing_uncompressed_length_v12", v12(c_drop("uncompressed_length"), encoding="zstd"),
         "missing_field", obj="w", role="data", why="§1: uncompressed_length 'Required when encoding is zstd'")
    case("zstd_uncompressed_length_over_cap", v12(lambda m, _: (comp_of(m).update(uncompressed_length=2**41),
                                                                m["objects"]["w"].update(shape=[2**39])),
                                                  encoding="zstd"),
         "limit_exceeded", obj="w", role="data", why="kMaxUncompressedBytes = 2^40")
    case("zstd_uncompressed_length_not_shape", v12(c_set(uncompressed_length=32), encoding="zstd"),
         "length_mismatch", obj="w", role="data")

    def zstd_payload(payload, decl_len, shape, content_size_ok=True):
        def f(m, b):
            off = b.blob(payload)
            comp_of(m).update(offset=off, length=len(payload), uncompressed_length=decl_len)
            m["objects"]["w"]["shape"] = shape
        return v12(f, encoding="zstd")

    longer = zc.zstd_compress(np.arange(8, dtype=np.float32).tobytes(), content_size=False)
    case("zstd_decodes_longer_than_declared", zstd_payload(longer, 16, [4]), "length_mismatch", stage="read",
         obj="w", role="data", why="a stream that would pass uncompressed_length is an error, never a write past it")
    longer_cs = zc.zstd_compress(np.arange(8, dtype=np.float32).tobytes(), content_size=True)
    case("zstd_frame_size_disagrees_with_declared", zstd_payload(longer_cs, 16, [4]), "length_mismatch",
         stage="read", obj="w", role="data")
    shorter = zc.zstd_compress(np.arange(2, dtype=np.float32).tobytes(), content_size=False)
    case("zstd_decodes_shorter_than_declared", zstd_payload(shorter, 16, [4]), "length_mismatch", stage="read",
         obj="w", role="data")
    case("zstd_garbage_stream", zstd_payload(b"\x13\x37" * 20, 16, [4]), "corrupt_stream", stage="read",
         obj="w", role="data")
    good = zc.zstd_compress(np.arange(4, dtype=np.float32).tobytes())
    case("zstd_truncated_stream", zstd_payload(good[:-4], 16, [4]), "corrupt_stream", stage="read", obj="w",
         role="data")
    case("zstd_bad_frame_magic", zstd_payload(b"\x29" + good[1:], 16, [4]), "corrupt_stream", stage="read",
         obj="w", role="data")

    # ---- encodings and digests (§1 encoding, digest)
    case("unknown_encoding_lz4", v12(c_set(encoding="lz4")), "unknown_encoding", stage="read", obj="w",
         role="data", why="§1 encoding is 'raw' or 'zstd'; the manifest stays readable, the blob does not")
    case("digest_mismatch_sha256", v12(lambda m, _: comp_of(m).update(digest="sha256:" + "00" * 32)),
         "digest_mismatch", stage="verify", obj="w", role="data")
    case("digest_mismatch_crc32c", v12(lambda m, _: comp_of(m).update(digest="crc32c:00000000")),
         "digest_mismatch", stage="verify", obj="w", role="data")
    case("digest_mismatch_crc32c_0x_style", v12(lambda m, _: comp_of(m).update(digest="crc32c:0x00000000")),
         "digest_mismatch", stage="verify", obj="w", role="data")
    flipped = bytearray(v12(digest="sha256"))
    flipped[64] ^= 0x01  # first data byte, digest left as written
    case("digest_mismatch_data_flipped", bytes(flipped), "digest_mismatch", stage="verify", obj="w", role="data")
    # A writer that hashed the decoded bytes instead of the stored ones.
    decoded_sha = "sha256:" + zc.sha256_hex(zc.le_bytes(F32))
    case("digest_over_decoded_not_stored_zstd", v12(lambda m, _: comp_of(m).update(digest=decoded_sha),
                                                    encoding="zstd"),
         "digest_mismatch", stage="read", obj="w", role="data",
         why="§1 digest: 'Checksum of the stored (possibly compressed) bytes'; "
             "checked whenever a component is decoded")
    case("digest_unknown_algorithm_md5", v12(lambda m, _: comp_of(m).update(digest="md5:" + "00" * 16)),
         "unsupported", stage="verify", obj="w", role="data")
    case("digest_not_text", v12(lambda m, _: comp_of(m).update(digest=5)), "wrong_type", obj="w", role="data")

    # ---- z4ai components (docs/codec.md: the decoder checks each chunk's streams against its bytes)
    frame = stored_chunks_claim_frame()
    FRAMES["z4ai_16_stored_chunks_claim_4gib.z4"] = frame
    FRAME_CASES["z4ai_16_stored_chunks_claim_4gib.z4"] = {
        "code": "corrupt_stream",
        "why": "16 chunks of 256 MiB, each a stored stream of 0 bytes claiming the whole chunk: refused from "
               "the stream table, before any output page is touched"}

    def z4ai_object(_):
        c = _.component(frame, "u8", extra={"encoding": "z4ai", "uncompressed_length": 16 << 28})
        return {"x": {"shape": [16 << 28], "format": "dense", "components": {"data": c}}}
    case("z4ai_stored_chunks_claim_4gib", v12(extra_objects=z4ai_object), "corrupt_stream", stage="read",
         obj="x", role="data", why="a 288-byte z4ai frame whose chunks claim 4 GiB: the stream table is checked "
                                   "against the stored bytes before any output page is touched")

    # ---- v0.1 (ZTEN0001, CBOR array of maps)
    def v01(entries_mutate=None, raw_manifest=None):
        f = zc.V01File()
        arr = np.arange(4, dtype=np.float32)
        e = {"name": "t", "offset": f.blob(arr.tobytes()), "size": 16, "dtype": "float32", "shape": [4],
             "encoding": "raw"}
        entries = [e]
        if entries_mutate:
            entries = entries_mutate(entries) or entries
        return f.finish(entries, raw_manifest=raw_manifest)

    case("v01_root_map_not_array", v01(lambda es: {"t": es[0]}), "wrong_type",
         why="v0.1 §3.3.1: 'A single CBOR-encoded array'")
    case("v01_cbor_garbage", v01(raw_manifest=b"\x9f\x01\x02"), "malformed_manifest")
    case("v01_array_claims_2pow62_items", v01(raw_manifest=b"\x9b" + struct.pack(">Q", 1 << 62)),
         "malformed_manifest")
    case("v01_entry_not_map", v01(lambda es: [5]), "wrong_type")
    case("v01_missing_name", v01(lambda es: es[0].pop("name") and None), "missing_field")
    case("v01_missing_size", v01(lambda es: es[0].pop("size") and None), "missing_field", obj="t")
    case("v01_dtype_v12_spelling", v01(lambda es: es[0].update(dtype="f32")), "unknown_dtype", obj="t",
         why="v0.1 §5.1 lists float32-style names only")
    case("v01_bad_endianness", v01(lambda es: es[0].update(data_endianness="middle")), "wrong_type", obj="t",
         why="v0.1 §4: valid values are 'little' or 'big'")
    case("v01_size_past_eof", v01(lambda es: es[0].update(size=1 << 20)), "offset_out_of_range", obj="t")
    case("v01_misaligned_offset", v01(lambda es: es[0].update(offset=8)), "misaligned_offset", obj="t")
    case("v01_size_not_shape", v01(lambda es: es[0].update(shape=[3])), "length_mismatch", obj="t")
    case("v01_cbor_size_past_file", v01()[:-8] + struct.pack("<Q", 4096), "malformed_manifest")
    case("v01_checksum_mismatch", v01(lambda es: es[0].update(checksum="crc32c:0x00000000")), "digest_mismatch",
         stage="verify", obj="t", role="data")

    # ---- components sharing bytes, NUL in names (our reader's rules, docs/format.md)
    def second_object(**comp):
        def f(m, _):
            m["objects"]["w2"] = {"shape": [comp.pop("n", 4)], "format": "dense",
                                  "components": {"data": dict(comp_of(m), **comp)}}
        return f
    case("components_alias_same_bytes", v12(second_object()), "invalid_structure", obj="w2", role="data",
         why="two objects read one blob; a digest or a write to one would stand for the other")
    case("components_overlap_prefix", v12(second_object(n=2, length=8)), "invalid_structure", obj="w2",
         role="data", why="w2 reads the first half of w's bytes")

    def inside(m, f):
        big = f.component(zc.le_bytes(np.arange(32, dtype=np.float32)), "f32")  # 128 bytes at 128
        m["objects"]["big"] = {"shape": [32], "format": "dense", "components": {"data": big}}
        m["objects"]["w2"] = {"shape": [4], "format": "dense",
                              "components": {"data": dict(big, offset=big["offset"] + 64, length=16)}}
    case("component_inside_another", v12(inside), "invalid_structure", obj="w2", role="data",
         why="a blob lying inside another object's blob")

    def zstd_and_raw(m, f):
        z = comp_of(m)  # the zstd blob of w; r reads the same bytes raw
        m["objects"]["r"] = {"shape": [z["length"]], "format": "dense",
                             "components": {"data": {"dtype": "u8", "offset": z["offset"], "length": z["length"]}}}
    case("component_read_as_zstd_and_raw", v12(zstd_and_raw, encoding="zstd"), "invalid_structure", obj="r",
         role="data", why="one blob decoded as zstd by one object and handed out raw by another")

    def rename(name):
        def f(m, _):
            m["objects"][name] = m["objects"].pop("w")
        return f
    case("name_with_nul", v12(rename("a\0b")), "invalid_structure", obj="a\0b",
         why="C strings end at NUL: the name would read as 'a'")

    def shadow(m, f):
        m["objects"]["a"] = m["objects"].pop("w")
        m["objects"]["a\0b"] = {"shape": [4], "format": "dense",
                                "components": {"data": f.component(zc.le_bytes(F32), "f32")}}
    case("name_with_nul_shadows_another", v12(shadow), "invalid_structure", obj="a\0b",
         why="'a' and 'a\\0b' print and reach C as the same name")

    def nul_role(m, _):
        m["objects"]["w"]["components"] = {"da\0ta": comp_of(m)}
    case("role_with_nul", v12(nul_role), "invalid_structure", obj="w")

    # ---- accepted edge cases (the spec allows them; they must read cleanly)
    padded = bytearray(v12(arr=np.arange(3, dtype=np.uint8)))
    padded[64 + 3:128] = b"\xAA" * (128 - 67)
    case("ok_nonzero_padding", bytes(padded), None, stage="read", obj="w", role="data",
         why="§5 'Readers MAY ignore padding content'", reads=bytes([0, 1, 2]))
    case("ok_future_minor_version", v12(version="1.9.0"), None, stage="read", obj="w", role="data",
         why="Appendix: minor versions only add optional fields", reads=F32.tobytes())
    case("ok_unknown_format", v12(obj_set("format", "sparse_bsr_future")), None, stage="read", obj="w",
         role="data", why="§1 format is an open set ('etc.'); components stay readable", reads=F32.tobytes())
    case("ok_unknown_logical_type", v12(c_set(type="f4_e2m1_future")), None, stage="read", obj="w", role="data",
         why="§2 'Readers that encounter an unrecognized type MAY fall back to loading raw dtype elements'",
         reads=F32.tobytes())
    case("ok_uncompressed_length_on_raw", v12(c_set(uncompressed_length=16)), None, stage="read", obj="w",
         role="data", why="an optional field that matters only for zstd", reads=F32.tobytes())


def main():
    build()
    foreign_craft.build(foreign_case)
    for name in os.listdir(HERE):
        if name.endswith((".zt", ".safetensors", ".npz", ".pt")) and name not in FILES:
            os.remove(os.path.join(HERE, name))
    for name, data in FILES.items():
        # the 200,000-deep manifest needs 200,000 bytes; everything else is tiny
        assert len(data) < 64 * 1024 or name == "cbor_nested_200000_deep.zt", name
        with open(os.path.join(HERE, name), "wb") as fh:
            fh.write(data)
    with open(os.path.join(HERE, "expected.json"), "w") as fh:
        json.dump(dict(sorted(CASES.items())), fh, indent=1)
        fh.write("\n")
    for name, data in FRAMES.items():
        with open(os.path.join(HERE, name), "wb") as fh:
            fh.write(data)
    with open(os.path.join(HERE, "frames.json"), "w") as fh:
        json.dump(dict(sorted(FRAME_CASES.items())), fh, indent=1)
        fh.write("\n")
    print(f"{len(FILES)} files, {sum(map(len, FILES.values()))} bytes")


if __name__ == "__main__":
    main()
