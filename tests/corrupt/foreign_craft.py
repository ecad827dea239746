"""Hostile safetensors, .npz and PyTorch (zip) files for tests/corrupt: each exercises one rule of the
one safetensors parser (ztensor/safetensors_header.h) or the one zip reader (src/convert/zip/), and
names the code `ztensor.open` must give. Safetensors files also name the code the ZSTN writer
(`z4ai.safetensors.compress_bytes`, `zt compress`) gives: it takes its verdict from the same parser
and reports a refused input as invalid_argument. Used by make_corrupt.py.
"""
from __future__ import annotations

import json
import struct
import zlib


def safetensors(header: dict | str, data: bytes, *, size: int | None = None) -> bytes:
    """`header` as a dict (JSON-encoded) or verbatim text; `size` overrides the u64 prefix."""
    text = header if isinstance(header, str) else json.dumps(header, separators=(",", ":"))
    raw = text.encode("utf-8")
    return struct.pack("<Q", len(raw) if size is None else size) + raw + data


def _t(dtype: str, shape: list, begin: int, end: int) -> dict:
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


def zip_archive(members: list[tuple[str, bytes]], *, local_names: dict | None = None,
                inside_previous: int | None = None, count: int | None = None, zip64_count: int | None = None,
                flags: int = 0) -> bytes:
    """Stored members. `local_names`: member index -> a different name in its local header;
    `inside_previous`: that member's local header is placed inside the previous member's data;
    `count`: the EOCD's entry count; `zip64_count`: a zip64 EOCD claiming that many entries."""
    local_names = local_names or {}
    body, central, offsets = b"", b"", []
    for i, (name, data) in enumerate(members):
        crc = zlib.crc32(data)
        lname = local_names.get(i, name).encode()
        local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, flags, 0, 0, 0, crc, len(data), len(data), len(lname), 0)
        offsets.append(len(body))
        body += local + lname + data
    if inside_previous is not None:
        # the previous member's data is widened to swallow this member's local header and data
        i = inside_previous
        prev_name, prev_data = members[i - 1]
        swallowed = body[offsets[i]:]
        members = list(members)
        members[i - 1] = (prev_name, prev_data + swallowed)
    for i, (name, data) in enumerate(members):
        n = name.encode()
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, flags, 0, 0, 0, zlib.crc32(data), len(data),
                               len(data), len(n), 0, 0, 0, 0, 0, offsets[i]) + n
    n = len(members) if count is None else count
    tail = b""
    if zip64_count is not None:
        z64_at = len(body) + len(central)
        tail += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, zip64_count, zip64_count, 0, 0)
        tail += struct.pack("<IIQI", 0x07064B50, 0, z64_at, 1)
        return body + central + tail + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                                                   0xFFFFFFFF, 0)
    return body + central + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(central), len(body), 0)


def npy(values: bytes = b"\0" * 8) -> bytes:
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % (len(values) // 4)
    header += " " * (-(10 + len(header) + 1) % 64) + "\n"  # data 64-byte aligned
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + values


def build(case) -> None:
    """case(name, ext, data, code, why, zstn=None)."""
    f32 = b"\0" * 16
    st = lambda h, d=f32, **kw: safetensors(h, d, **kw)  # noqa: E731
    bad = "invalid_argument"  # what the ZSTN writer says of a file the parser refuses
    case("st_overlapping_tensors", ".safetensors", st({"a": _t("F32", [4], 0, 16), "b": _t("F32", [2], 8, 16)}),
         "invalid_structure", "tensors share bytes of the data buffer", zstn=bad)
    case("st_gap_between_tensors", ".safetensors",
         st({"a": _t("F32", [2], 0, 8), "b": _t("F32", [1], 12, 16)}), "invalid_structure",
         "bytes no tensor covers (a polyglot could hide there)", zstn=bad)
    case("st_shape_does_not_match_offsets", ".safetensors", st({"a": _t("F32", [3], 0, 16)}), "length_mismatch",
         "shape x element size must equal the span", zstn=bad)
    case("st_duplicate_name", ".safetensors",
         st('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[2],'
            '"data_offsets":[8,16]}}'), "invalid_structure", "two tensors of one name", zstn=bad)
    case("st_missing_dtype", ".safetensors", st({"a": {"shape": [4], "data_offsets": [0, 16]}}), "missing_field",
         "dtype is required", zstn=bad)
    case("st_unknown_dtype", ".safetensors", st({"a": _t("F128", [1], 0, 16)}), "unsupported",
         "a dtype the format does not define", zstn=bad)
    case("st_name_with_nul", ".safetensors", st({"a\0b": _t("F32", [4], 0, 16)}), "invalid_structure",
         "a NUL would cut the name in C", zstn=bad)
    case("st_trailing_bytes", ".safetensors", st({"a": _t("F32", [2], 0, 8)}), "invalid_structure",
         "data after the last tensor", zstn=bad)
    case("st_not_json", ".safetensors", st("{not json}"), "malformed_manifest", "the header is not JSON",
         zstn=bad)
    case("st_header_past_eof", ".safetensors", st({"a": _t("F32", [4], 0, 16)}, size=1000),
         "offset_out_of_range", "the header size runs past the file", zstn=bad)
    case("st_header_over_100mb", ".safetensors", st({"a": _t("F32", [4], 0, 16)}, size=100_000_001),
         "limit_exceeded", "safetensors' MAX_HEADER_SIZE", zstn=bad)

    # One zip reader for .npz and PyTorch: the same archive rule gives the same code in both.
    pkl = b"\x80\x02}q\x00."  # an empty dict
    for ext, members in ((".npz", [("a.npy", npy()), ("b.npy", npy())]),
                         (".pt", [("m/data.pkl", pkl), ("m/data/0", b"\0" * 8)])):
        kind = ext[1:]
        first, second = members[0][0], members[1][0]
        case(f"zip_{kind}_duplicate_member", ext, zip_archive([members[0], members[0]]), "invalid_structure",
             "two members of one name: readers taking the first or the last would differ")
        case(f"zip_{kind}_local_name_differs", ext, zip_archive(members, local_names={1: second + "x"}),
             "invalid_structure", "the local header names another file than the central directory")
        case(f"zip_{kind}_member_inside_another", ext, zip_archive(members, inside_previous=1), "invalid_structure",
             f"'{second}' lies inside the data of '{first}'")
        case(f"zip_{kind}_encrypted", ext, zip_archive(members, flags=1), "unsupported", "an encrypted member")
        case(f"zip_{kind}_claims_2pow21_members", ext, zip_archive(members, zip64_count=1 << 21), "limit_exceeded",
             "more members than kMaxMembers (2^20), refused before reading entries")
        case(f"zip_{kind}_no_end_record", ext, zip_archive(members)[:-22], "bad_magic",
             "no end-of-central-directory record")
