#!/usr/bin/env python3
"""What our z4ai frame for a buffer is made of: the "why" behind a benchmark cell.

    python3 bench/codec_peers/frame_anatomy.py FILE DTYPE [--effort max] [--no-auto] [--level N]

Compresses FILE (raw bytes of DTYPE: bf16, fp16, fp32, fp8_e4m3, raw) with our
z4ai and reads the frame header and chunk bodies (layout: docs/codec.md, "Z4AI
and ZARA"): mode (chunked streams or whole-buffer zstd), chunk size and count,
which transforms the chunks took, and how many compressed bytes each stream
method carries. Which coders a frame leans on is what sets its decode speed
(e.g. adaptive arithmetic coding against rANS, one zstd stream against
per-chunk streams decoded on every core).
"""

from __future__ import annotations

import argparse
import collections
import struct
import time

TRANSFORMS = {0: "none", 1: "byte planes", 2: "field split", 3: "palette", 4: "paired field split"}
METHODS = {0: "stored", 1: "zstd", 2: "rANS o0", 3: "rANS o1", 4: "brotli", 5: "arith o0", 6: "arith o1",
           7: "blocked rANS"}
HEADER = 32


def anatomy(frame: bytes) -> dict:
    magic, version, _dtype, mode = frame[:4], frame[4], frame[5], frame[6]
    length, = struct.unpack_from("<Q", frame, 8)
    chunk_bytes, n_chunks = struct.unpack_from("<II", frame, 24)
    out = {"magic": magic.decode(), "version": version, "mode": "whole-buffer zstd" if mode == 1 else "chunked",
           "original": length, "frame": len(frame), "chunk_bytes": chunk_bytes, "chunks": n_chunks,
           "transforms": collections.Counter(), "methods": collections.Counter()}
    if mode == 1:
        out["methods"]["zstd (whole buffer)"] = len(frame) - HEADER
        return out
    lens = struct.unpack_from(f"<{n_chunks}I", frame, HEADER)
    off = HEADER + 4 * n_chunks
    for body_len in lens:
        body = frame[off:off + body_len]
        t, tail = body[0], body[1]
        p = 2 + tail
        n_streams = body[p]
        p += 1
        out["transforms"][str(TRANSFORMS.get(t & 0x7F, t)) + (" +sparse" if t & 0x80 else "")] += 1
        for _ in range(n_streams):
            m, _raw, comp = struct.unpack_from("<BII", body, p)
            p += 9
            out["methods"][METHODS.get(m, m)] += comp
        off += body_len
    return out


def main() -> int:
    import z4ai

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("dtype")
    ap.add_argument("--effort", default=None)
    ap.add_argument("--no-auto", action="store_true")
    ap.add_argument("--level", type=int, default=None)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    data = open(args.file, "rb").read()
    dtype = None if args.dtype == "raw" else args.dtype
    kw = {"auto": False} if args.no_auto else {}
    t0 = time.perf_counter()
    frame = z4ai.compress(data, dtype=dtype, effort=args.effort, level=args.level, threads=args.threads, **kw)
    tc = time.perf_counter() - t0
    t0 = time.perf_counter()
    z4ai.decompress(frame, threads=args.threads)
    td = time.perf_counter() - t0
    a = anatomy(frame)
    print(f"{args.file}: {a['magic']} v{a['version']} {a['mode']}, {a['original']:,} -> {a['frame']:,} B "
          f"(ratio {a['original'] / a['frame']:.3f}); compress {len(data) / 1e6 / tc:.1f} MB/s, "
          f"decompress {len(data) / 1e6 / td:.1f} MB/s (one run, threads={args.threads})")
    if a["mode"] == "chunked":
        print(f"  chunks: {a['chunks']} x {a['chunk_bytes']:,} B; transforms: "
              + ", ".join(f"{k} x{v}" for k, v in a["transforms"].most_common()))
    total = sum(a["methods"].values()) or 1
    print("  compressed bytes by stream method: "
          + ", ".join(f"{k} {v / total:.1%}" for k, v in a["methods"].most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
