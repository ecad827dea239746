"""Byte-level builders for hand-made .zt files (golden and corrupt).

Independent of every zTensor implementation on purpose: the files it makes
test readers, so it must not share code with one. Needs numpy and cbor2;
zstd helpers need the `zstandard` package (generators only, not tests).
"""
from __future__ import annotations

import hashlib
import struct

import cbor2
import numpy as np

MAGIC_V1 = b"ZTEN1000"
MAGIC_V01 = b"ZTEN0001"
ALIGN = 64

# numpy dtype name -> v1.2 storage dtype (spec v1.2 §2, the closed set of 13)
NP_TO_ZT = {
    "float64": "f64", "float32": "f32", "float16": "f16", "bfloat16": "bf16",
    "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8",
    "uint64": "u64", "uint32": "u32", "uint16": "u16", "uint8": "u8",
    "bool": "bool",
}
# v1.2 storage dtype -> v0.1 spelling (spec v0.1 §5.1)
ZT_TO_V01 = {
    "f64": "float64", "f32": "float32", "f16": "float16", "bf16": "bfloat16",
    "i64": "int64", "i32": "int32", "i16": "int16", "i8": "int8",
    "u64": "uint64", "u32": "uint32", "u16": "uint16", "u8": "uint8",
    "bool": "bool",
}


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli), the algorithm `crc32c:` digests name."""
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283  # RFC 3720 check value


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def le_bytes(arr: np.ndarray) -> bytes:
    """Little-endian C-order bytes of an array (the decoded storage bytes)."""
    a = np.ascontiguousarray(arr)
    if a.dtype.byteorder == ">" or (a.dtype.byteorder == "=" and np.little_endian is False):
        a = a.astype(a.dtype.newbyteorder("<"))
    return a.tobytes()


def zt_dtype(arr: np.ndarray) -> str:
    return NP_TO_ZT[np.dtype(arr.dtype).name]


def zstd_compress(data: bytes, *, content_size: bool = True, level: int = 3) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor(level=level, write_content_size=content_size).compress(data)


def digest_of(stored: bytes, algo: str | None, style: str = "spec") -> str | None:
    """`algorithm:hex` over the stored bytes. style "ref" mimics ztensor 1.2.3
    for crc32c ("crc32c:0x" + 8 upper-case hex digits)."""
    if algo is None:
        return None
    if algo == "sha256":
        return "sha256:" + sha256_hex(stored)
    if algo == "crc32c":
        v = crc32c(stored)
        return f"crc32c:0x{v:08X}" if style == "ref" else f"crc32c:{v:08x}"
    raise ValueError(algo)


class V1File:
    """Builds a v1.x file: header magic, 64-aligned zero-padded blobs, CBOR
    manifest, u64 LE manifest size, footer magic (spec v1.2 §4)."""

    def __init__(self, header: bytes = MAGIC_V1):
        self.buf = bytearray(header)

    def pad(self):
        self.buf += b"\0" * (-len(self.buf) % ALIGN)

    def blob(self, stored: bytes) -> int:
        self.pad()
        off = len(self.buf)
        self.buf += stored
        return off

    def component(self, decoded: bytes, dtype: str, *, encoding: str = "raw", digest: str | None = None,
                  type: str | None = None, content_size: bool = True, uncompressed_length: bool = True,
                  digest_style: str = "spec", extra: dict | None = None) -> dict:
        """Appends one component blob and returns its manifest map."""
        stored = decoded
        if encoding == "zstd":
            stored = zstd_compress(decoded, content_size=content_size)
        off = self.blob(stored)
        c = {"dtype": dtype}
        if type is not None:
            c["type"] = type
        c["offset"] = off
        c["length"] = len(stored)
        if encoding == "zstd" and uncompressed_length:
            c["uncompressed_length"] = len(decoded)
        if encoding != "raw":
            c["encoding"] = encoding
        d = digest_of(stored, digest, digest_style)
        if d:
            c["digest"] = d
        if extra:
            c.update(extra)
        return c

    def finish(self, manifest, *, raw_manifest: bytes | None = None, footer: bytes = MAGIC_V1,
               size_override: int | None = None) -> bytes:
        self.pad()
        m = raw_manifest if raw_manifest is not None else cbor2.dumps(manifest)
        size = len(m) if size_override is None else size_override
        return bytes(self.buf) + m + struct.pack("<Q", size) + footer


class V01File:
    """Builds a v0.1 file: "ZTEN0001", 64-aligned blobs, a CBOR array of
    per-tensor maps, u64 LE size of that array (spec v0.1 §2-§3)."""

    def __init__(self):
        self.buf = bytearray(MAGIC_V01)

    def blob(self, stored: bytes) -> int:
        self.buf += b"\0" * (-len(self.buf) % ALIGN)
        off = len(self.buf)
        self.buf += stored
        return off

    def finish(self, entries, *, raw_manifest: bytes | None = None) -> bytes:
        m = raw_manifest if raw_manifest is not None else cbor2.dumps(entries)
        return bytes(self.buf) + m + struct.pack("<Q", len(m))


def read_manifest(data: bytes):
    """Decodes the manifest of a v1 or v0.1 file (for generators' checks)."""
    if data[-8:] == MAGIC_V1:
        n = struct.unpack("<Q", data[-16:-8])[0]
        return cbor2.loads(data[len(data) - 16 - n:-16])
    n = struct.unpack("<Q", data[-8:])[0]
    return cbor2.loads(data[len(data) - 8 - n:-8])
