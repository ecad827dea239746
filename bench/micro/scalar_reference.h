// The scalar loops that defined the transforms before the SIMD kernels
// (float_split.cc, byte_planes.cc), and plain loops for the exponent pairs:
// the baselines the benchmark compares to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace zt_bench {

inline void bf16_split(const uint8_t* src, size_t n, uint8_t* e, uint8_t* sm) {
  for (size_t i = 0; i < n; ++i) {
    uint16_t v;
    std::memcpy(&v, src + 2 * i, 2);
    e[i] = uint8_t(v >> 7);
    sm[i] = uint8_t(((v >> 8) & 0x80) | (v & 0x7F));
  }
}
inline void bf16_merge(const uint8_t* e, const uint8_t* sm, size_t n, uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) {
    uint16_t v = uint16_t((sm[i] & 0x80) << 8 | e[i] << 7 | (sm[i] & 0x7F));
    std::memcpy(dst + 2 * i, &v, 2);
  }
}
inline void fp32_split(const uint8_t* src, size_t n, uint8_t* e, uint8_t* sm, uint8_t* m1, uint8_t* m0) {
  for (size_t i = 0; i < n; ++i) {
    uint32_t v;
    std::memcpy(&v, src + 4 * i, 4);
    e[i] = uint8_t(v >> 23);
    sm[i] = uint8_t(((v >> 24) & 0x80) | ((v >> 16) & 0x7F));
    m1[i] = uint8_t(v >> 8);
    m0[i] = uint8_t(v);
  }
}
inline void fp32_merge(const uint8_t* e, const uint8_t* sm, const uint8_t* m1, const uint8_t* m0, size_t n,
                       uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) {
    uint32_t v = uint32_t(sm[i] & 0x80) << 24 | uint32_t(e[i]) << 23 | uint32_t(sm[i] & 0x7F) << 16 |
                 uint32_t(m1[i]) << 8 | m0[i];
    std::memcpy(dst + 4 * i, &v, 4);
  }
}

template <uint32_t W>
void split_planes(const uint8_t* src, size_t n, uint8_t* const* planes) {
  uint8_t* p[W];
  for (uint32_t j = 0; j < W; ++j) p[j] = planes[j];
  for (size_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < W; ++j) p[j][i] = src[i * W + j];
}
template <uint32_t W>
void join_planes(const uint8_t* const* planes, size_t n, uint8_t* dst) {
  const uint8_t* p[W];
  for (uint32_t j = 0; j < W; ++j) p[j] = planes[j];
  for (size_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < W; ++j) dst[i * W + j] = p[j][i];
}

// Exponent nibble pairs (src/codec/field_kernels.h), written as plain loops.
inline uint8_t nibble(uint8_t e, uint8_t base) {
  const uint8_t sym = uint8_t(e - base);
  return sym <= 14 ? sym : 15;
}
inline size_t pack_pairs(const uint8_t* exp, size_t n, uint8_t base, uint8_t* pairs, uint8_t* esc) {
  size_t k = 0;
  for (size_t i = 0; i < n; i += 2) {
    const uint8_t lo = nibble(exp[i], base), hi = i + 1 < n ? nibble(exp[i + 1], base) : 0;
    if (lo == 15) esc[k++] = exp[i];
    if (hi == 15) esc[k++] = exp[i + 1];
    pairs[i / 2] = uint8_t(lo | hi << 4);
  }
  return k;
}
inline size_t bf16_split_paired(const uint8_t* src, size_t n, uint8_t base, uint8_t* pairs, uint8_t* esc,
                                uint8_t* sm) {
  size_t k = 0;
  for (size_t i = 0; i < n; i += 2) {
    uint8_t nib[2] = {0, 0};
    for (size_t j = i; j < i + 2 && j < n; ++j) {
      const uint8_t lo = src[2 * j], hi = src[2 * j + 1], e = uint8_t(hi << 1 | lo >> 7);
      sm[j] = uint8_t((hi & 0x80) | (lo & 0x7F));
      nib[j - i] = nibble(e, base);
      if (nib[j - i] == 15) esc[k++] = e;
    }
    pairs[i / 2] = uint8_t(nib[0] | nib[1] << 4);
  }
  return k;
}
inline size_t fp32_split_paired(const uint8_t* src, size_t n, uint8_t base, uint8_t* pairs, uint8_t* esc,
                                uint8_t* sm, uint8_t* m1, uint8_t* m0) {
  size_t k = 0;
  for (size_t i = 0; i < n; i += 2) {
    uint8_t nib[2] = {0, 0};
    for (size_t j = i; j < i + 2 && j < n; ++j) {
      const uint8_t* p = src + 4 * j;
      const uint8_t e = uint8_t(p[3] << 1 | p[2] >> 7);
      m0[j] = p[0];
      m1[j] = p[1];
      sm[j] = uint8_t((p[3] & 0x80) | (p[2] & 0x7F));
      nib[j - i] = nibble(e, base);
      if (nib[j - i] == 15) esc[k++] = e;
    }
    pairs[i / 2] = uint8_t(nib[0] | nib[1] << 4);
  }
  return k;
}
inline bool count_pair_escapes(const uint8_t* pairs, size_t n, size_t* n_esc) {
  size_t c = 0;
  for (size_t i = 0; i < n; ++i) c += ((pairs[i / 2] >> (i % 2 * 4)) & 0xF) == 15;
  if (n % 2 && pairs[n / 2] >> 4) return false;
  *n_esc = c;
  return true;
}
inline uint8_t unpack(const uint8_t* pairs, size_t i, uint8_t base, const uint8_t*& esc) {
  const uint8_t nib = (pairs[i / 2] >> (i % 2 * 4)) & 0xF;
  return nib == 15 ? *esc++ : uint8_t(nib + base);
}
inline void bf16_merge_paired(const uint8_t* pairs, const uint8_t* esc, uint8_t base, const uint8_t* sm, size_t n,
                              uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) {
    const uint8_t e = unpack(pairs, i, base, esc);
    dst[2 * i] = uint8_t(e << 7 | (sm[i] & 0x7F));
    dst[2 * i + 1] = uint8_t((sm[i] & 0x80) | e >> 1);
  }
}
inline void fp32_merge_paired(const uint8_t* pairs, const uint8_t* esc, uint8_t base, const uint8_t* sm,
                              const uint8_t* m1, const uint8_t* m0, size_t n, uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) {
    const uint8_t e = unpack(pairs, i, base, esc);
    uint8_t* p = dst + 4 * i;
    p[0] = m0[i];
    p[1] = m1[i];
    p[2] = uint8_t(e << 7 | (sm[i] & 0x7F));
    p[3] = uint8_t((sm[i] & 0x80) | e >> 1);
  }
}

}  // namespace zt_bench
