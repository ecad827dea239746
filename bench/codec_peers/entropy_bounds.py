#!/usr/bin/env python3
"""Empirical entropy bounds for the real-model corpus (evidence for the report).

    python3 bench/codec_peers/entropy_bounds.py

For all-MiniLM-L6-v2 in bf16/fp16/fp32, prints the best ratio a coder can
reach with (a) order-0 models of the exponent field and the sign+mantissa
bytes, (b) the exponent coded order-1 (on the previous exponent) and the
sign+mantissa bits coded order-0 given the exponent. Any field-split codec
with order-0/order-1 entropy stages sits at or below these ratios, so they
tell whether a size target against ZipNN is reachable by entropy coding.

For bf16 it also prints (c) a context-model bound: each tensor coded apart,
the exponent and sign+mantissa conditioned on the quantised scale of the
element's row and column (log2 of their RMS, 1/4-binade steps; the side
information is not counted) -- what a context-mixing coder that learns
per-row and per-column scales could approach.
"""

from __future__ import annotations

import numpy as np

import corpus


def h(counts: np.ndarray) -> float:
    """Total information in bits for a histogram."""
    c = counts[counts > 0].astype(np.float64)
    return float(-(c * np.log2(c / c.sum())).sum())


def h_cond(ctx: np.ndarray, sym: np.ndarray, nsym: int) -> float:
    """Bits of sym coded with a separate order-0 model per context value."""
    joint = np.bincount(ctx.astype(np.int64) * nsym + sym.astype(np.int64))
    joint = np.pad(joint, (0, (-len(joint)) % nsym)).reshape(-1, nsym)
    return sum(h(row) for row in joint if row.sum())


def fields(bits: np.ndarray, dtype: str):
    if dtype == "bf16":
        return (bits >> 7) & 0xFF, ((bits >> 15) << 7) | (bits & 0x7F), 8, 8
    if dtype == "fp16":
        return (bits >> 10) & 0x1F, ((bits >> 15) << 10) | (bits & 0x3FF), 5, 11
    # fp32: exponent 8 bits; sign + 23 mantissa bits split as the top 8 (with sign) and two low bytes
    return (bits >> 23) & 0xFF, ((bits >> 31) << 7) | ((bits >> 16) & 0x7F), 8, 8


def main() -> None:
    model = corpus.load_minilm()
    for dt in ("bf16", "fp16", "fp32"):
        arrs = [corpus._cast(a, dt) for _, a in model]
        raw = b"".join(a.tobytes() for a in arrs)
        n = len(raw)
        bits = np.frombuffer(raw, np.uint16 if dt != "fp32" else np.uint32).astype(np.uint32)
        exp, sm, eb, sb = fields(bits, dt)
        total_bits = n * 8
        low = 0.0
        if dt == "fp32":  # the two low mantissa bytes: order-0 per byte (they are near-uniform)
            low = h(np.bincount((bits >> 8) & 0xFF, minlength=256)) + h(np.bincount(bits & 0xFF, minlength=256))
        o0 = h(np.bincount(exp)) + h(np.bincount(sm)) + low
        prev = np.concatenate([[0], exp[:-1]])
        o1 = h_cond(prev, exp, 1 << eb) + h_cond(exp, sm, 1 << sb) + low
        print(f"{dt}: {n / 1e6:.1f} MB  exponent H0 {h(np.bincount(exp)) / exp.size:.3f} bit/elem  "
              f"order-0 split bound ratio {total_bits / o0:.4f}  order-1 exp + mantissa|exp bound ratio "
              f"{total_bits / o1:.4f}")
    print(f"bf16: per-tensor row/column-scale context bound ratio {scale_context_bound(model):.4f}")


def scale_context_bound(model) -> float:
    """Ratio of (c) for bf16: per tensor, exponent | prev exponent + row/column scale."""
    total_bits = coded = 0.0
    for _, a in model:
        bits = np.frombuffer(corpus._cast(a, "bf16").tobytes(), np.uint16).astype(np.int64)
        exp, sm = (bits >> 7) & 0xFF, ((bits >> 15) << 7) | (bits & 0x7F)
        total_bits += bits.size * 16
        prev = np.concatenate([[0], exp[:-1]])
        if a.ndim == 2 and min(a.shape) > 1:
            x = np.abs(a.astype(np.float64))
            lr = np.log2(np.sqrt((x ** 2).mean(1)) + 1e-30)
            lc = np.log2(np.sqrt((x ** 2).mean(0)) + 1e-30)
            lt = np.log2(np.sqrt((x ** 2).mean()) + 1e-30)
            ctx = np.clip(np.round((lr[:, None] + lc[None, :] - lt) * 4), -80, 80).astype(np.int64).ravel() + 80
            coded += h_cond(ctx * 256 + prev, exp, 256) + h_cond(ctx * 256 + exp, sm, 256)
        else:
            coded += h_cond(prev, exp, 256) + h_cond(exp, sm, 256)
    return total_bits / coded


if __name__ == "__main__":
    main()
