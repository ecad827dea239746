// The scalar loops that define the field split, byte-plane and
// exponent-pair kernels (field_kernels.h, bit layouts in docs/codec.md): the
// SIMD kernels hand them their tails, the one-lane target runs them whole,
// and bench/micro measures the kernels against them.
#pragma once

#include <cstddef>
#include <cstdint>

// The vector paths view byte pairs as u16 lanes, low byte first.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "field_kernels.cc assumes a little-endian target");

namespace z4ai::detail::scalar {

inline void bf16_split(const uint8_t* src, size_t n, uint8_t* e, uint8_t* sm) {
  for (size_t i = 0; i < n; ++i) {
    const uint8_t lo = src[2 * i], hi = src[2 * i + 1];
    e[i] = uint8_t(hi << 1 | lo >> 7);
    sm[i] = uint8_t((hi & 0x80) | (lo & 0x7F));
  }
}
inline void bf16_merge(const uint8_t* e, const uint8_t* sm, size_t n, uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) {
    dst[2 * i] = uint8_t(e[i] << 7 | (sm[i] & 0x7F));
    dst[2 * i + 1] = uint8_t((sm[i] & 0x80) | e[i] >> 1);
  }
}
// fp16: hi = sign << 2 | mantissa bits 9..8, lo = mantissa bits 7..0.
inline void fp16_merge(const uint8_t* e, const uint8_t* lo, const uint8_t* hi, size_t n, uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) {
    dst[2 * i] = lo[i];
    dst[2 * i + 1] = uint8_t((hi[i] & 0x4) << 5 | (e[i] & 0x1F) << 2 | (hi[i] & 0x3));
  }
}
inline void fp32_split(const uint8_t* src, size_t n, uint8_t* e, uint8_t* sm, uint8_t* m1, uint8_t* m0) {
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = src + 4 * i;
    m0[i] = p[0];
    m1[i] = p[1];
    e[i] = uint8_t(p[3] << 1 | p[2] >> 7);
    sm[i] = uint8_t((p[3] & 0x80) | (p[2] & 0x7F));
  }
}
inline void fp32_merge(const uint8_t* e, const uint8_t* sm, const uint8_t* m1, const uint8_t* m0, size_t n,
                       uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) {
    uint8_t* p = dst + 4 * i;
    p[0] = m0[i];
    p[1] = m1[i];
    p[2] = uint8_t(e[i] << 7 | (sm[i] & 0x7F));
    p[3] = uint8_t((sm[i] & 0x80) | e[i] >> 1);
  }
}
// Sign split merges (sign_split.cc): element i's sign is bit i % 8 of
// signs[i / 8]; elements [begin, n) of whole-array pointers.
inline uint8_t sign_at(const uint8_t* signs, size_t i) { return uint8_t(((signs[i >> 3] >> (i & 7)) & 1u) << 7); }
inline void bf16_sign_merge(const uint8_t* signs, const uint8_t* e, const uint8_t* mant, size_t begin, size_t n,
                            uint8_t* dst) {
  for (size_t i = begin; i < n; ++i) {
    dst[2 * i] = uint8_t(e[i] << 7 | (mant[i] & 0x7F));
    dst[2 * i + 1] = uint8_t(sign_at(signs, i) | e[i] >> 1);
  }
}
inline void fp32_sign_merge(const uint8_t* signs, const uint8_t* e, const uint8_t* mant, const uint8_t* m1,
                            const uint8_t* m0, size_t begin, size_t n, uint8_t* dst) {
  for (size_t i = begin; i < n; ++i) {
    uint8_t* p = dst + 4 * i;
    p[0] = m0[i];
    p[1] = m1[i];
    p[2] = uint8_t(e[i] << 7 | (mant[i] & 0x7F));
    p[3] = uint8_t(sign_at(signs, i) | e[i] >> 1);
  }
}
inline void split_planes(const uint8_t* src, size_t n, uint32_t width, uint8_t* const* planes) {
  for (size_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < width; ++j) planes[j][i] = src[i * width + j];
}
inline void join_planes(const uint8_t* const* planes, size_t n, uint32_t width, uint8_t* dst) {
  for (size_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < width; ++j) dst[i * width + j] = planes[j][i];
}

// Exponent nibble pairs (field_kernels.h). exp_at(i) yields element i's exponent.
inline uint8_t nibble(uint8_t e, uint8_t base) {
  const uint8_t sym = uint8_t(e - base);
  return sym <= 14 ? sym : 15;
}
inline uint8_t bf16_exp_at(const uint8_t* src, size_t i) { return uint8_t(src[2 * i + 1] << 1 | src[2 * i] >> 7); }
inline uint8_t fp32_exp_at(const uint8_t* src, size_t i) { return uint8_t(src[4 * i + 3] << 1 | src[4 * i + 2] >> 7); }

// Packs elements [begin, n), begin even; returns the escapes written.
template <class ExpAt>
size_t pack_pairs(ExpAt exp_at, size_t begin, size_t n, uint8_t base, uint8_t* pairs, uint8_t* esc) {
  size_t k = 0;
  for (size_t i = begin; i < n; i += 2) {
    const uint8_t e0 = exp_at(i), lo = nibble(e0, base);
    if (lo == 15) esc[k++] = e0;
    uint8_t hi = 0;
    if (i + 1 < n) {
      const uint8_t e1 = exp_at(i + 1);
      hi = nibble(e1, base);
      if (hi == 15) esc[k++] = e1;
    }
    pairs[i / 2] = uint8_t(lo | hi << 4);
  }
  return k;
}
// Appends the escapes among elements [begin, end) in order.
template <class ExpAt>
size_t collect_escapes(ExpAt exp_at, size_t begin, size_t end, uint8_t base, uint8_t* esc) {
  size_t k = 0;
  for (size_t i = begin; i < end; ++i) {
    const uint8_t e = exp_at(i);
    if (nibble(e, base) == 15) esc[k++] = e;
  }
  return k;
}
inline size_t count_escapes(const uint8_t* pairs, size_t n_bytes) {
  size_t c = 0;
  for (size_t j = 0; j < n_bytes; ++j) c += ((pairs[j] & 0xF) == 15) + ((pairs[j] >> 4) == 15);
  return c;
}
// Exponent of element i; an escape nibble takes the next escape byte.
inline uint8_t unpack(const uint8_t* pairs, size_t i, uint8_t base, const uint8_t*& esc) {
  const uint8_t nib = (pairs[i / 2] >> (i % 2 * 4)) & 0xF;
  return nib == 15 ? *esc++ : uint8_t(nib + base);
}
inline void bf16_merge_paired(const uint8_t* pairs, const uint8_t*& esc, uint8_t base, const uint8_t* sm,
                              size_t begin, size_t end, uint8_t* dst) {
  for (size_t i = begin; i < end; ++i) {
    const uint8_t e = unpack(pairs, i, base, esc);
    dst[2 * i] = uint8_t(e << 7 | (sm[i] & 0x7F));
    dst[2 * i + 1] = uint8_t((sm[i] & 0x80) | e >> 1);
  }
}
inline void fp32_merge_paired(const uint8_t* pairs, const uint8_t*& esc, uint8_t base, const uint8_t* sm,
                              const uint8_t* m1, const uint8_t* m0, size_t begin, size_t end, uint8_t* dst) {
  for (size_t i = begin; i < end; ++i) {
    const uint8_t e = unpack(pairs, i, base, esc);
    uint8_t* p = dst + 4 * i;
    p[0] = m0[i];
    p[1] = m1[i];
    p[2] = uint8_t(e << 7 | (sm[i] & 0x7F));
    p[3] = uint8_t((sm[i] & 0x80) | e >> 1);
  }
}

// The same kernels over whole buffers, with field_kernels.h's signatures.
inline size_t pack_exponent_pairs(const uint8_t* exp, size_t n, uint8_t base, uint8_t* pairs, uint8_t* esc) {
  return pack_pairs([exp](size_t i) { return exp[i]; }, 0, n, base, pairs, esc);
}
inline size_t bf16_split_paired(const uint8_t* src, size_t n, uint8_t base, uint8_t* pairs, uint8_t* esc,
                                uint8_t* sm) {
  for (size_t i = 0; i < n; ++i) sm[i] = uint8_t((src[2 * i + 1] & 0x80) | (src[2 * i] & 0x7F));
  return pack_pairs([src](size_t i) { return bf16_exp_at(src, i); }, 0, n, base, pairs, esc);
}
inline size_t fp32_split_paired(const uint8_t* src, size_t n, uint8_t base, uint8_t* pairs, uint8_t* esc,
                                uint8_t* sm, uint8_t* m1, uint8_t* m0) {
  for (size_t i = 0; i < n; ++i) {
    m0[i] = src[4 * i];
    m1[i] = src[4 * i + 1];
    sm[i] = uint8_t((src[4 * i + 3] & 0x80) | (src[4 * i + 2] & 0x7F));
  }
  return pack_pairs([src](size_t i) { return fp32_exp_at(src, i); }, 0, n, base, pairs, esc);
}
// count_pair_escapes: the escapes among the first n nibbles; false when n is
// odd and the pad nibble is not 0.
inline bool count_pair_escapes(const uint8_t* pairs, size_t n, size_t* n_escapes) {
  size_t c = count_escapes(pairs, n / 2);
  if (n % 2) {
    if (pairs[n / 2] >> 4) return false;
    c += (pairs[n / 2] & 0xF) == 15;
  }
  *n_escapes = c;
  return true;
}

}  // namespace z4ai::detail::scalar
