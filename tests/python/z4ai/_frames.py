"""Reading a Z4AI frame's chunk headers (docs/codec.md, "Chunk body") in tests."""

import struct


def chunk_heads(blob):
    """(transform byte, [stream methods]) of every chunk of a mode-0 frame."""
    assert blob[6] == 0, "chunked frame expected"
    n = struct.unpack_from("<I", blob, 28)[0]
    lens = struct.unpack_from(f"<{n}I", blob, 32)
    off, out = 32 + 4 * n, []
    for ln in lens:
        tail = blob[off + 1]
        ns = blob[off + 2 + tail]
        methods = [blob[off + 3 + tail + 9 * i] for i in range(ns)]
        out.append((blob[off], methods))
        off += ln
    return out
