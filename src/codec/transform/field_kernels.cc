// Highway kernels for field_kernels.h. foreach_target.h compiles this file
// once per SIMD target; HWY_DYNAMIC_DISPATCH picks the best one the CPU runs.
// Each kernel runs whole vectors, then hands the tail to the scalar loops
// (field_kernels_scalar.h), which are also the definition the vectors must match.
#include "codec/transform/field_kernels.h"

#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "codec/transform/field_kernels.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "codec/transform/field_kernels_scalar.h"

HWY_BEFORE_NAMESPACE();
namespace z4ai::detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR
// One-lane vectors gain nothing over the scalar loops.
void Bf16Split(const uint8_t* src, size_t n, uint8_t* e, uint8_t* sm) { scalar::bf16_split(src, n, e, sm); }
void Bf16Merge(const uint8_t* e, const uint8_t* sm, size_t n, uint8_t* dst) { scalar::bf16_merge(e, sm, n, dst); }
void Fp16Merge(const uint8_t* e, const uint8_t* lo, const uint8_t* hi, size_t n, uint8_t* dst) {
  scalar::fp16_merge(e, lo, hi, n, dst);
}
void Fp32Split(const uint8_t* src, size_t n, uint8_t* e, uint8_t* sm, uint8_t* m1, uint8_t* m0) {
  scalar::fp32_split(src, n, e, sm, m1, m0);
}
void Fp32Merge(const uint8_t* e, const uint8_t* sm, const uint8_t* m1, const uint8_t* m0, size_t n, uint8_t* dst) {
  scalar::fp32_merge(e, sm, m1, m0, n, dst);
}
void Bf16SignMerge(const uint8_t* signs, const uint8_t* e, const uint8_t* mant, size_t n, uint8_t* dst) {
  scalar::bf16_sign_merge(signs, e, mant, 0, n, dst);
}
void Fp32SignMerge(const uint8_t* signs, const uint8_t* e, const uint8_t* mant, const uint8_t* m1, const uint8_t* m0,
                   size_t n, uint8_t* dst) {
  scalar::fp32_sign_merge(signs, e, mant, m1, m0, 0, n, dst);
}
void SplitPlanes2(const uint8_t* src, size_t n, uint8_t* const* p) { scalar::split_planes(src, n, 2, p); }
void SplitPlanes4(const uint8_t* src, size_t n, uint8_t* const* p) { scalar::split_planes(src, n, 4, p); }
void SplitPlanes8(const uint8_t* src, size_t n, uint8_t* const* p) { scalar::split_planes(src, n, 8, p); }
void JoinPlanes2(const uint8_t* const* p, size_t n, uint8_t* dst) { scalar::join_planes(p, n, 2, dst); }
void JoinPlanes4(const uint8_t* const* p, size_t n, uint8_t* dst) { scalar::join_planes(p, n, 4, dst); }
void JoinPlanes8(const uint8_t* const* p, size_t n, uint8_t* dst) { scalar::join_planes(p, n, 8, dst); }
size_t PackExponentPairs(const uint8_t* exp, size_t n, uint8_t base, uint8_t* pairs, uint8_t* esc) {
  return scalar::pack_exponent_pairs(exp, n, base, pairs, esc);
}
size_t Bf16SplitPaired(const uint8_t* src, size_t n, uint8_t base, uint8_t* pairs, uint8_t* esc, uint8_t* sm) {
  return scalar::bf16_split_paired(src, n, base, pairs, esc, sm);
}
size_t Fp32SplitPaired(const uint8_t* src, size_t n, uint8_t base, uint8_t* pairs, uint8_t* esc, uint8_t* sm,
                       uint8_t* m1, uint8_t* m0) {
  return scalar::fp32_split_paired(src, n, base, pairs, esc, sm, m1, m0);
}
size_t CountPairEscapes(const uint8_t* pairs, size_t n_bytes) { return scalar::count_escapes(pairs, n_bytes); }
void Bf16MergePaired(const uint8_t* pairs, const uint8_t* esc, uint8_t base, const uint8_t* sm, size_t n,
                     uint8_t* dst) {
  scalar::bf16_merge_paired(pairs, esc, base, sm, 0, n, dst);
}
void Fp32MergePaired(const uint8_t* pairs, const uint8_t* esc, uint8_t base, const uint8_t* sm, const uint8_t* m1,
                     const uint8_t* m0, size_t n, uint8_t* dst) {
  scalar::fp32_merge_paired(pairs, esc, base, sm, m1, m0, 0, n, dst);
}
#else

using D8 = hn::ScalableTag<uint8_t>;
using V8 = hn::Vec<D8>;

// The bf16/fp32 exponent straddles two bytes: e = hi << 1 | lo >> 7.
HWY_INLINE V8 ExponentOf(V8 lo, V8 hi) { return hn::Or(hn::ShiftLeft<1>(hi), hn::ShiftRight<7>(lo)); }
HWY_INLINE V8 SignMantissaOf(D8 d, V8 lo, V8 hi) {
  return hn::Or(hn::And(hi, hn::Set(d, 0x80)), hn::And(lo, hn::Set(d, 0x7F)));
}
// Inverse: the low byte gets the exponent's bit 0, the high byte its bits 7..1.
HWY_INLINE V8 LowByteOf(D8 d, V8 e, V8 sm) { return hn::Or(hn::ShiftLeft<7>(e), hn::And(sm, hn::Set(d, 0x7F))); }
HWY_INLINE V8 HighByteOf(D8 d, V8 e, V8 sm) { return hn::Or(hn::And(sm, hn::Set(d, 0x80)), hn::ShiftRight<1>(e)); }

void Bf16Split(const uint8_t* HWY_RESTRICT src, size_t n, uint8_t* HWY_RESTRICT e, uint8_t* HWY_RESTRICT sm) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    V8 lo, hi;
    hn::LoadInterleaved2(d, src + 2 * i, lo, hi);
    hn::StoreU(ExponentOf(lo, hi), d, e + i);
    hn::StoreU(SignMantissaOf(d, lo, hi), d, sm + i);
  }
  scalar::bf16_split(src + 2 * i, n - i, e + i, sm + i);
}

void Bf16Merge(const uint8_t* HWY_RESTRICT e, const uint8_t* HWY_RESTRICT sm, size_t n, uint8_t* HWY_RESTRICT dst) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const V8 ve = hn::LoadU(d, e + i), vs = hn::LoadU(d, sm + i);
    hn::StoreInterleaved2(LowByteOf(d, ve, vs), HighByteOf(d, ve, vs), d, dst + 2 * i);
  }
  scalar::bf16_merge(e + i, sm + i, n - i, dst + 2 * i);
}

// fp16's high byte: sign from hi bit 2, the 5-bit exponent, mantissa bits 9..8.
void Fp16Merge(const uint8_t* HWY_RESTRICT e, const uint8_t* HWY_RESTRICT lo, const uint8_t* HWY_RESTRICT hi,
               size_t n, uint8_t* HWY_RESTRICT dst) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const V8 vh = hn::LoadU(d, hi + i);
    const V8 sign = hn::ShiftLeft<5>(hn::And(vh, hn::Set(d, 0x4)));
    const V8 exp = hn::ShiftLeft<2>(hn::And(hn::LoadU(d, e + i), hn::Set(d, 0x1F)));
    hn::StoreInterleaved2(hn::LoadU(d, lo + i), hn::Or(hn::Or(sign, exp), hn::And(vh, hn::Set(d, 0x3))), d,
                          dst + 2 * i);
  }
  scalar::fp16_merge(e + i, lo + i, hi + i, n - i, dst + 2 * i);
}

void Fp32Split(const uint8_t* HWY_RESTRICT src, size_t n, uint8_t* HWY_RESTRICT e, uint8_t* HWY_RESTRICT sm,
               uint8_t* HWY_RESTRICT m1, uint8_t* HWY_RESTRICT m0) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    V8 b0, b1, b2, b3;
    hn::LoadInterleaved4(d, src + 4 * i, b0, b1, b2, b3);
    hn::StoreU(b0, d, m0 + i);
    hn::StoreU(b1, d, m1 + i);
    hn::StoreU(ExponentOf(b2, b3), d, e + i);
    hn::StoreU(SignMantissaOf(d, b2, b3), d, sm + i);
  }
  scalar::fp32_split(src + 4 * i, n - i, e + i, sm + i, m1 + i, m0 + i);
}

void Fp32Merge(const uint8_t* HWY_RESTRICT e, const uint8_t* HWY_RESTRICT sm, const uint8_t* HWY_RESTRICT m1,
               const uint8_t* HWY_RESTRICT m0, size_t n, uint8_t* HWY_RESTRICT dst) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const V8 ve = hn::LoadU(d, e + i), vs = hn::LoadU(d, sm + i);
    hn::StoreInterleaved4(hn::LoadU(d, m0 + i), hn::LoadU(d, m1 + i), LowByteOf(d, ve, vs), HighByteOf(d, ve, vs),
                          d, dst + 4 * i);
  }
  scalar::fp32_merge(e + i, sm + i, m1 + i, m0 + i, n - i, dst + 4 * i);
}

// The sign-split high byte: the packed sign bit of each lane (a vector
// starts on a whole sign byte: N is a multiple of 8) over the exponent's
// bits 7..1; the low byte as the field merge's.
HWY_INLINE V8 SignsOf(D8 d, const uint8_t* signs, size_t i) {
  return hn::IfThenElseZero(hn::LoadMaskBits(d, signs + i / 8), hn::Set(d, 0x80));
}

void Bf16SignMerge(const uint8_t* HWY_RESTRICT signs, const uint8_t* HWY_RESTRICT e, const uint8_t* HWY_RESTRICT mant,
                   size_t n, uint8_t* HWY_RESTRICT dst) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const V8 ve = hn::LoadU(d, e + i);
    const V8 lo = LowByteOf(d, ve, hn::LoadU(d, mant + i));
    hn::StoreInterleaved2(lo, hn::Or(SignsOf(d, signs, i), hn::ShiftRight<1>(ve)), d, dst + 2 * i);
  }
  scalar::bf16_sign_merge(signs, e, mant, i, n, dst);
}

void Fp32SignMerge(const uint8_t* HWY_RESTRICT signs, const uint8_t* HWY_RESTRICT e, const uint8_t* HWY_RESTRICT mant,
                   const uint8_t* HWY_RESTRICT m1, const uint8_t* HWY_RESTRICT m0, size_t n,
                   uint8_t* HWY_RESTRICT dst) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const V8 ve = hn::LoadU(d, e + i);
    const V8 b2 = LowByteOf(d, ve, hn::LoadU(d, mant + i));
    const V8 b3 = hn::Or(SignsOf(d, signs, i), hn::ShiftRight<1>(ve));
    hn::StoreInterleaved4(hn::LoadU(d, m0 + i), hn::LoadU(d, m1 + i), b2, b3, d, dst + 4 * i);
  }
  scalar::fp32_sign_merge(signs, e, mant, m1, m0, i, n, dst);
}

void SplitPlanes2(const uint8_t* HWY_RESTRICT src, size_t n, uint8_t* const* planes) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  uint8_t* HWY_RESTRICT p0 = planes[0];
  uint8_t* HWY_RESTRICT p1 = planes[1];
  size_t i = 0;
  for (; i + N <= n; i += N) {
    V8 v0, v1;
    hn::LoadInterleaved2(d, src + 2 * i, v0, v1);
    hn::StoreU(v0, d, p0 + i);
    hn::StoreU(v1, d, p1 + i);
  }
  uint8_t* rest[2] = {p0 + i, p1 + i};
  scalar::split_planes(src + 2 * i, n - i, 2, rest);
}

void SplitPlanes4(const uint8_t* HWY_RESTRICT src, size_t n, uint8_t* const* planes) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  uint8_t* p[4] = {planes[0], planes[1], planes[2], planes[3]};
  size_t i = 0;
  for (; i + N <= n; i += N) {
    V8 v0, v1, v2, v3;
    hn::LoadInterleaved4(d, src + 4 * i, v0, v1, v2, v3);
    hn::StoreU(v0, d, p[0] + i);
    hn::StoreU(v1, d, p[1] + i);
    hn::StoreU(v2, d, p[2] + i);
    hn::StoreU(v3, d, p[3] + i);
  }
  uint8_t* rest[4] = {p[0] + i, p[1] + i, p[2] + i, p[3] + i};
  scalar::split_planes(src + 4 * i, n - i, 4, rest);
}

// Width 8: three rounds of even/odd byte separation turn 8 vectors of whole
// elements into the 8 planes (round r splits on bit r of the byte index).
void SplitPlanes8(const uint8_t* HWY_RESTRICT src, size_t n, uint8_t* const* planes) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  uint8_t* p[8];
  for (int j = 0; j < 8; ++j) p[j] = planes[j];
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const uint8_t* s = src + 8 * i;
    V8 v[8];
    for (size_t k = 0; k < 8; ++k) v[k] = hn::LoadU(d, s + k * N);
    V8 a[8];  // a[0..3]: bytes 0,2,4,6 of each element; a[4..7]: bytes 1,3,5,7
    for (int k = 0; k < 4; ++k) {
      a[k] = hn::ConcatEven(d, v[2 * k + 1], v[2 * k]);
      a[4 + k] = hn::ConcatOdd(d, v[2 * k + 1], v[2 * k]);
    }
    // b: bytes {0,4} {0,4} {2,6} {2,6} {1,5} {1,5} {3,7} {3,7}
    V8 b[8];
    for (int h = 0; h < 2; ++h) {
      b[4 * h + 0] = hn::ConcatEven(d, a[4 * h + 1], a[4 * h + 0]);
      b[4 * h + 1] = hn::ConcatEven(d, a[4 * h + 3], a[4 * h + 2]);
      b[4 * h + 2] = hn::ConcatOdd(d, a[4 * h + 1], a[4 * h + 0]);
      b[4 * h + 3] = hn::ConcatOdd(d, a[4 * h + 3], a[4 * h + 2]);
    }
    // Pair q of b holds byte index (bit0 = q / 2, bit1 = q % 2); bit 2 is even/odd.
    for (int q = 0; q < 4; ++q) {
      const int byte = (q >> 1) | (q & 1) << 1;
      hn::StoreU(hn::ConcatEven(d, b[2 * q + 1], b[2 * q]), d, p[byte] + i);
      hn::StoreU(hn::ConcatOdd(d, b[2 * q + 1], b[2 * q]), d, p[byte + 4] + i);
    }
  }
  uint8_t* rest[8];
  for (int j = 0; j < 8; ++j) rest[j] = p[j] + i;
  scalar::split_planes(src + 8 * i, n - i, 8, rest);
}

void JoinPlanes2(const uint8_t* const* planes, size_t n, uint8_t* HWY_RESTRICT dst) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  const uint8_t* HWY_RESTRICT p0 = planes[0];
  const uint8_t* HWY_RESTRICT p1 = planes[1];
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreInterleaved2(hn::LoadU(d, p0 + i), hn::LoadU(d, p1 + i), d, dst + 2 * i);
  const uint8_t* rest[2] = {p0 + i, p1 + i};
  scalar::join_planes(rest, n - i, 2, dst + 2 * i);
}

void JoinPlanes4(const uint8_t* const* planes, size_t n, uint8_t* HWY_RESTRICT dst) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  const uint8_t* p[4] = {planes[0], planes[1], planes[2], planes[3]};
  size_t i = 0;
  for (; i + N <= n; i += N)
    hn::StoreInterleaved4(hn::LoadU(d, p[0] + i), hn::LoadU(d, p[1] + i), hn::LoadU(d, p[2] + i),
                          hn::LoadU(d, p[3] + i), d, dst + 4 * i);
  const uint8_t* rest[4] = {p[0] + i, p[1] + i, p[2] + i, p[3] + i};
  scalar::join_planes(rest, n - i, 4, dst + 4 * i);
}

// Width 8: zero-extend planes 2k and 2k+1 into u16 lanes (byte 2k low), then
// interleave the four u16 streams.
void JoinPlanes8(const uint8_t* const* planes, size_t n, uint8_t* HWY_RESTRICT dst) {
  const hn::ScalableTag<uint16_t> d16;
  const hn::Rebind<uint8_t, decltype(d16)> dh;
  const size_t N = hn::Lanes(d16);
  const uint8_t* p[8];
  for (int j = 0; j < 8; ++j) p[j] = planes[j];
  size_t i = 0;
  for (; i + N <= n; i += N) {
    hn::Vec<decltype(d16)> w[4];
    for (int k = 0; k < 4; ++k) {
      const auto lo = hn::PromoteTo(d16, hn::LoadU(dh, p[2 * k] + i));
      const auto hi = hn::PromoteTo(d16, hn::LoadU(dh, p[2 * k + 1] + i));
      w[k] = hn::Or(lo, hn::ShiftLeft<8>(hi));
    }
    // The u16 view of dst is only touched by Highway's unaligned stores.
    hn::StoreInterleaved4(w[0], w[1], w[2], w[3], d16, reinterpret_cast<uint16_t*>(dst + 8 * i));
  }
  const uint8_t* rest[8];
  for (int j = 0; j < 8; ++j) rest[j] = p[j] + i;
  scalar::join_planes(rest, n - i, 8, dst + 8 * i);
}

// ---- Exponent nibble pairs. Vectors hold N elements in element order; the
// pairs of N elements are N/2 bytes, built through u16 lanes (little-endian:
// element 2j is the low byte). Escapes are rare, so a vector holding one
// keeps the vector pairs and appends its escapes with a scalar pass.

HWY_INLINE V8 NibbleOf(D8 d, V8 e, V8 base) { return hn::Min(hn::Sub(e, base), hn::Set(d, 15)); }

HWY_INLINE void StorePairs(D8 d, V8 nib, uint8_t* HWY_RESTRICT pairs) {
  const hn::RepartitionToWide<D8> d16;
  const hn::Rebind<uint8_t, decltype(d16)> dh;
  const auto w = hn::BitCast(d16, nib);  // nib(2j) | nib(2j+1) << 8
  hn::StoreU(hn::TruncateTo(dh, hn::Or(w, hn::ShiftRight<4>(w))), dh, pairs);
}

HWY_INLINE V8 LoadNibbles(D8 d, const uint8_t* HWY_RESTRICT pairs) {
  const hn::RepartitionToWide<D8> d16;
  const hn::Rebind<uint8_t, decltype(d16)> dh;
  const auto w = hn::PromoteTo(d16, hn::LoadU(dh, pairs));
  return hn::BitCast(d, hn::Or(hn::And(w, hn::Set(d16, 0x000F)), hn::And(hn::ShiftLeft<4>(w), hn::Set(d16, 0x0F00))));
}

HWY_INLINE bool AnyEscape(D8 d, V8 nib) { return !hn::AllFalse(d, hn::Eq(nib, hn::Set(d, 15))); }

// The exponents of one vector of nibbles: base + nibble, and the escape
// lanes (nibble 15) filled from `esc` in lane order, which advances. Only
// the escaped lanes are patched one by one: a whole-vector scalar fallback
// made the merge 23 % of a detector's fp32 decode, whose wide exponent
// range puts an escape in most 64-lane vectors.
HWY_INLINE V8 ExponentsOf(D8 d, V8 nib, V8 vb, const uint8_t*& esc) {
  const auto is_esc = hn::Eq(nib, hn::Set(d, 15));
  const V8 e = hn::Add(nib, vb);
  if (HWY_LIKELY(hn::AllFalse(d, is_esc))) return e;
  HWY_ALIGN uint8_t lanes[HWY_MAX_BYTES];
  uint8_t bits[(HWY_MAX_BYTES + 7) / 8];
  hn::Store(e, d, lanes);
  const size_t n_bytes = hn::StoreMaskBits(d, is_esc, bits);
  for (size_t b = 0; b < n_bytes; ++b)
    for (unsigned m = bits[b]; m != 0; m &= m - 1) lanes[8 * b + unsigned(__builtin_ctz(m))] = *esc++;
  return hn::Load(d, lanes);
}

size_t PackExponentPairs(const uint8_t* HWY_RESTRICT exp, size_t n, uint8_t base, uint8_t* HWY_RESTRICT pairs,
                         uint8_t* HWY_RESTRICT esc) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  const V8 vb = hn::Set(d, base);
  const auto exp_at = [exp](size_t i) { return exp[i]; };
  size_t k = 0, i = 0;
  for (; i + N <= n; i += N) {
    const V8 nib = NibbleOf(d, hn::LoadU(d, exp + i), vb);
    if (HWY_UNLIKELY(AnyEscape(d, nib))) k += scalar::collect_escapes(exp_at, i, i + N, base, esc + k);
    StorePairs(d, nib, pairs + i / 2);
  }
  return k + scalar::pack_pairs(exp_at, i, n, base, pairs, esc + k);
}

size_t Bf16SplitPaired(const uint8_t* HWY_RESTRICT src, size_t n, uint8_t base, uint8_t* HWY_RESTRICT pairs,
                       uint8_t* HWY_RESTRICT esc, uint8_t* HWY_RESTRICT sm) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  const V8 vb = hn::Set(d, base);
  const auto exp_at = [src](size_t i) { return scalar::bf16_exp_at(src, i); };
  size_t k = 0, i = 0;
  for (; i + N <= n; i += N) {
    V8 lo, hi;
    hn::LoadInterleaved2(d, src + 2 * i, lo, hi);
    hn::StoreU(SignMantissaOf(d, lo, hi), d, sm + i);
    const V8 nib = NibbleOf(d, ExponentOf(lo, hi), vb);
    if (HWY_UNLIKELY(AnyEscape(d, nib))) k += scalar::collect_escapes(exp_at, i, i + N, base, esc + k);
    StorePairs(d, nib, pairs + i / 2);
  }
  for (size_t j = i; j < n; ++j) sm[j] = uint8_t((src[2 * j + 1] & 0x80) | (src[2 * j] & 0x7F));
  return k + scalar::pack_pairs(exp_at, i, n, base, pairs, esc + k);
}

size_t Fp32SplitPaired(const uint8_t* HWY_RESTRICT src, size_t n, uint8_t base, uint8_t* HWY_RESTRICT pairs,
                       uint8_t* HWY_RESTRICT esc, uint8_t* HWY_RESTRICT sm, uint8_t* HWY_RESTRICT m1,
                       uint8_t* HWY_RESTRICT m0) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  const V8 vb = hn::Set(d, base);
  const auto exp_at = [src](size_t i) { return scalar::fp32_exp_at(src, i); };
  size_t k = 0, i = 0;
  for (; i + N <= n; i += N) {
    V8 b0, b1, b2, b3;
    hn::LoadInterleaved4(d, src + 4 * i, b0, b1, b2, b3);
    hn::StoreU(b0, d, m0 + i);
    hn::StoreU(b1, d, m1 + i);
    hn::StoreU(SignMantissaOf(d, b2, b3), d, sm + i);
    const V8 nib = NibbleOf(d, ExponentOf(b2, b3), vb);
    if (HWY_UNLIKELY(AnyEscape(d, nib))) k += scalar::collect_escapes(exp_at, i, i + N, base, esc + k);
    StorePairs(d, nib, pairs + i / 2);
  }
  for (size_t j = i; j < n; ++j) {
    m0[j] = src[4 * j];
    m1[j] = src[4 * j + 1];
    sm[j] = uint8_t((src[4 * j + 3] & 0x80) | (src[4 * j + 2] & 0x7F));
  }
  return k + scalar::pack_pairs(exp_at, i, n, base, pairs, esc + k);
}

// Escape nibbles in n_bytes whole pair bytes.
size_t CountPairEscapes(const uint8_t* HWY_RESTRICT pairs, size_t n_bytes) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  const V8 k0F = hn::Set(d, 0x0F), kF0 = hn::Set(d, 0xF0), kFF = hn::Set(d, 0xFF);
  size_t c = 0, j = 0;
  for (; j + N <= n_bytes; j += N) {
    const V8 p = hn::LoadU(d, pairs + j);
    c += hn::CountTrue(d, hn::Eq(hn::Or(p, kF0), kFF)) + hn::CountTrue(d, hn::Eq(hn::Or(p, k0F), kFF));
  }
  return c + scalar::count_escapes(pairs + j, n_bytes - j);
}

void Bf16MergePaired(const uint8_t* HWY_RESTRICT pairs, const uint8_t* esc, uint8_t base,
                     const uint8_t* HWY_RESTRICT sm, size_t n, uint8_t* HWY_RESTRICT dst) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  const V8 vb = hn::Set(d, base);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const V8 e = ExponentsOf(d, LoadNibbles(d, pairs + i / 2), vb, esc), vs = hn::LoadU(d, sm + i);
    hn::StoreInterleaved2(LowByteOf(d, e, vs), HighByteOf(d, e, vs), d, dst + 2 * i);
  }
  scalar::bf16_merge_paired(pairs, esc, base, sm, i, n, dst);
}

void Fp32MergePaired(const uint8_t* HWY_RESTRICT pairs, const uint8_t* esc, uint8_t base,
                     const uint8_t* HWY_RESTRICT sm, const uint8_t* HWY_RESTRICT m1, const uint8_t* HWY_RESTRICT m0,
                     size_t n, uint8_t* HWY_RESTRICT dst) {
  const D8 d;
  const size_t N = hn::Lanes(d);
  const V8 vb = hn::Set(d, base);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const V8 e = ExponentsOf(d, LoadNibbles(d, pairs + i / 2), vb, esc), vs = hn::LoadU(d, sm + i);
    hn::StoreInterleaved4(hn::LoadU(d, m0 + i), hn::LoadU(d, m1 + i), LowByteOf(d, e, vs), HighByteOf(d, e, vs), d,
                          dst + 4 * i);
  }
  scalar::fp32_merge_paired(pairs, esc, base, sm, m1, m0, i, n, dst);
}

#endif  // HWY_TARGET == HWY_SCALAR

}  // namespace z4ai::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace z4ai::detail {

HWY_EXPORT(Bf16Split);
HWY_EXPORT(Bf16Merge);
HWY_EXPORT(Fp16Merge);
HWY_EXPORT(Fp32Split);
HWY_EXPORT(Fp32Merge);
HWY_EXPORT(Bf16SignMerge);
HWY_EXPORT(Fp32SignMerge);
HWY_EXPORT(SplitPlanes2);
HWY_EXPORT(SplitPlanes4);
HWY_EXPORT(SplitPlanes8);
HWY_EXPORT(JoinPlanes2);
HWY_EXPORT(JoinPlanes4);
HWY_EXPORT(JoinPlanes8);
HWY_EXPORT(PackExponentPairs);
HWY_EXPORT(Bf16SplitPaired);
HWY_EXPORT(Fp32SplitPaired);
HWY_EXPORT(CountPairEscapes);
HWY_EXPORT(Bf16MergePaired);
HWY_EXPORT(Fp32MergePaired);

void bf16_split_kernel(const uint8_t* src, size_t n, uint8_t* exp, uint8_t* sm) {
  HWY_DYNAMIC_DISPATCH(Bf16Split)(src, n, exp, sm);
}
void bf16_merge_kernel(const uint8_t* exp, const uint8_t* sm, size_t n, uint8_t* dst) {
  HWY_DYNAMIC_DISPATCH(Bf16Merge)(exp, sm, n, dst);
}
void fp16_merge_kernel(const uint8_t* e, const uint8_t* lo, const uint8_t* hi, size_t n, uint8_t* dst) {
  HWY_DYNAMIC_DISPATCH(Fp16Merge)(e, lo, hi, n, dst);
}
void fp32_split_kernel(const uint8_t* src, size_t n, uint8_t* e, uint8_t* sm, uint8_t* m1, uint8_t* m0) {
  HWY_DYNAMIC_DISPATCH(Fp32Split)(src, n, e, sm, m1, m0);
}
void fp32_merge_kernel(const uint8_t* e, const uint8_t* sm, const uint8_t* m1, const uint8_t* m0, size_t n,
                       uint8_t* dst) {
  HWY_DYNAMIC_DISPATCH(Fp32Merge)(e, sm, m1, m0, n, dst);
}

void bf16_sign_merge_kernel(const uint8_t* signs, const uint8_t* e, const uint8_t* mant, size_t n, uint8_t* dst) {
  HWY_DYNAMIC_DISPATCH(Bf16SignMerge)(signs, e, mant, n, dst);
}
void fp32_sign_merge_kernel(const uint8_t* signs, const uint8_t* e, const uint8_t* mant, const uint8_t* m1,
                            const uint8_t* m0, size_t n, uint8_t* dst) {
  HWY_DYNAMIC_DISPATCH(Fp32SignMerge)(signs, e, mant, m1, m0, n, dst);
}

void split_planes_kernel(const uint8_t* src, size_t n, uint32_t width, uint8_t* const* planes) {
  switch (width) {
    case 1: if (n) std::memcpy(planes[0], src, n); return;
    case 2: return HWY_DYNAMIC_DISPATCH(SplitPlanes2)(src, n, planes);
    case 4: return HWY_DYNAMIC_DISPATCH(SplitPlanes4)(src, n, planes);
    case 8: return HWY_DYNAMIC_DISPATCH(SplitPlanes8)(src, n, planes);
    default: return scalar::split_planes(src, n, width, planes);
  }
}
void join_planes_kernel(const uint8_t* const* planes, size_t n, uint32_t width, uint8_t* dst) {
  switch (width) {
    case 1: if (n) std::memcpy(dst, planes[0], n); return;
    case 2: return HWY_DYNAMIC_DISPATCH(JoinPlanes2)(planes, n, dst);
    case 4: return HWY_DYNAMIC_DISPATCH(JoinPlanes4)(planes, n, dst);
    case 8: return HWY_DYNAMIC_DISPATCH(JoinPlanes8)(planes, n, dst);
    default: return scalar::join_planes(planes, n, width, dst);
  }
}

size_t pack_exponent_pairs(const uint8_t* exp, size_t n, uint8_t base, uint8_t* pairs, uint8_t* escapes) {
  return HWY_DYNAMIC_DISPATCH(PackExponentPairs)(exp, n, base, pairs, escapes);
}
size_t bf16_split_paired(const uint8_t* src, size_t n, uint8_t base, uint8_t* pairs, uint8_t* escapes, uint8_t* sm) {
  return HWY_DYNAMIC_DISPATCH(Bf16SplitPaired)(src, n, base, pairs, escapes, sm);
}
size_t fp32_split_paired(const uint8_t* src, size_t n, uint8_t base, uint8_t* pairs, uint8_t* escapes, uint8_t* sm,
                         uint8_t* m1, uint8_t* m0) {
  return HWY_DYNAMIC_DISPATCH(Fp32SplitPaired)(src, n, base, pairs, escapes, sm, m1, m0);
}

bool count_pair_escapes(const uint8_t* pairs, size_t n, size_t* n_escapes) {
  size_t c = HWY_DYNAMIC_DISPATCH(CountPairEscapes)(pairs, n / 2);
  if (n % 2) {
    const uint8_t last = pairs[n / 2];
    if (last >> 4) return false;  // the pad nibble must be 0
    c += (last & 0xF) == 15;
  }
  *n_escapes = c;
  return true;
}
void bf16_merge_paired(const uint8_t* pairs, const uint8_t* escapes, uint8_t base, const uint8_t* sm, size_t n,
                       uint8_t* dst) {
  HWY_DYNAMIC_DISPATCH(Bf16MergePaired)(pairs, escapes, base, sm, n, dst);
}
void fp32_merge_paired(const uint8_t* pairs, const uint8_t* escapes, uint8_t base, const uint8_t* sm,
                       const uint8_t* m1, const uint8_t* m0, size_t n, uint8_t* dst) {
  HWY_DYNAMIC_DISPATCH(Fp32MergePaired)(pairs, escapes, base, sm, m1, m0, n, dst);
}

}  // namespace z4ai::detail
#endif  // HWY_ONCE
