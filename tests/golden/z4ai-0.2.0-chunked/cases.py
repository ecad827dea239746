"""Inputs for the Z4AIMF01 byte-identity check, shared by make_digests.py (run
with PyPI z4ai 0.2.0) and tests/python/z4ai/test_chunked_identical.py (ours).

Each case: name -> (input bytes, compress kwargs). Seeded NumPy Generator
streams (PCG64), so both interpreters build the same bytes; the manifest also
keeps each input's SHA-256, so a drift in the data shows as such.
"""

from __future__ import annotations

import numpy as np

MiB = 1 << 20


def _normals(seed: int, n: int, scale: float) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(n) * scale


def cases() -> dict:
    return {
        "fp32_1mib_chunks": (_normals(1, 600_000, 0.02).astype(np.float32).tobytes(),
                             {"dtype": "fp32", "chunk_size": MiB}),
        "bf16_odd_tail": (_normals(2, 700_001, 0.02).astype(np.float32).view(np.uint16)[1::2].tobytes() + b"\x07",
                          {"dtype": "bf16"}),
        "fp16_small_chunks_tail": (_normals(3, 100_003, 0.1).astype(np.float16).tobytes()[:-1],
                                   {"dtype": "fp16", "chunk_size": 65536}),
        "int64": (np.random.default_rng(4).integers(-50, 50, 30_000).astype(np.int64).tobytes(), {"dtype": "int64"}),
        "raw_alphabet4": (np.random.default_rng(5).integers(0, 4, 10_000, dtype=np.uint8).tobytes(),
                          {"chunk_size": 4096}),
        "fp32_level3": (_normals(6, 300_000, 0.02).astype(np.float32).tobytes(), {"dtype": "fp32", "level": 3}),
        "empty": (b"", {"dtype": "fp32"}),
        "one_byte_fp32": (b"\x2a", {"dtype": "fp32"}),
        # One 9 MiB plane: over the 8 MiB where our whole-buffer coder turns
        # on zstd long-distance matching; PyPI's chunked coder never does.
        "raw_9mib_plane": (np.random.default_rng(7).integers(0, 16, 9 * MiB + 3, dtype=np.uint8).tobytes(),
                           {"chunk_size": 16 * MiB}),
    }
