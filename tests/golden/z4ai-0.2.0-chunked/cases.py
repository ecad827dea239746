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


def _boundary_plane(seed: int, n: int, k: int) -> np.ndarray:
    """k random bytes, then n - k from a 4-letter alphabet: as k grows, zstd's
    frame for the plane creeps up to n bytes, one byte at a time."""
    g = np.random.default_rng(seed)
    return np.concatenate([g.integers(0, 256, k), g.integers(0, 4, n - k)]).astype(np.uint8)


def _bf16_tiny_tensor(n: int, k: int) -> bytes:
    """n bf16 elements: a random low byte, a high byte from _boundary_plane."""
    lo = np.random.default_rng(n + 2).integers(0, 256, n).astype(np.uint8)
    return np.stack([lo, _boundary_plane(n + 1, n, k)], 1).tobytes()


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
        # Planes zstd codes to exactly n - 1 and n - 2 bytes, alone and as a
        # tiny tensor's high byte (per-tensor entries of small models): PyPI
        # keeps the zstd frame; a coder that gives zstd only n - 1 bytes of
        # room cannot finish it and stores the plane.
        "plane_zstd_n_minus_1": (_boundary_plane(300, 300, 169).tobytes(), {}),
        "plane_zstd_n_minus_2": (_boundary_plane(300, 300, 167).tobytes(), {}),
        "bf16_tiny_high_plane_n_minus_1": (_bf16_tiny_tensor(384, 230), {"dtype": "bf16"}),
    }


def tiny_tensors() -> dict:
    """A per-tensor model's small tensors (biases, norm scales, conv kernels of
    4..259 elements) in fp32/bf16/fp16, each compressed alone: about 1 in 14
    has a plane zstd codes to 1..8 bytes under its size. Compared against the
    peer live (too many for the manifest); name -> (input bytes, dtype)."""
    out = {}
    for dtype in ("fp32", "bf16", "fp16"):
        for n in range(4, 260, 3):
            for kind, scale, loc in (("bias", 0.02, 0.0), ("norm", 0.05, 1.0), ("conv", 0.3, 0.0)):
                x = np.random.default_rng([n, len(dtype), len(kind)]).standard_normal(n) * scale + loc
                if dtype == "bf16":
                    b = x.astype(np.float32).view(np.uint16)[1::2].tobytes()
                else:
                    b = x.astype(np.float32 if dtype == "fp32" else np.float16).tobytes()
                out[f"{dtype}_{kind}_{n}"] = (b, dtype)
    return out
