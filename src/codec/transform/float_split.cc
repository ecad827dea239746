// Float bit-field split: each exponent gets its own byte stream, apart from
// sign and mantissa, so the low-entropy exponent is coded on its own. The
// split is a bijection on bits; merge masks every field so any stream bytes
// (even corrupt ones) give defined output, later caught by the checksum.
// bf16, fp32 (split and merge) and fp16 (merge) run SIMD kernels (field_kernels.h).
#include <cstring>

#include "codec/transform/field_kernels.h"
#include "codec/transform/transforms.h"

namespace z4ai::detail {
namespace {

inline uint16_t ld16(const uint8_t* p) { uint16_t v; std::memcpy(&v, p, 2); return v; }
inline uint64_t ld64(const uint8_t* p) { uint64_t v; std::memcpy(&v, p, 8); return v; }
inline void st64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }

// bf16 s1 e8 m7 -> [exponent] [sign<<7 | mantissa]
void bf16_split(const uint8_t* src, size_t n, uint8_t* const* s) { bf16_split_kernel(src, n, s[0], s[1]); }
void bf16_merge(const uint8_t* const* s, size_t n, uint8_t* dst) { bf16_merge_kernel(s[0], s[1], n, dst); }

// fp16 s1 e5 m10 -> [exponent] [mantissa low 8] [sign<<2 | mantissa high 2]
void fp16_split(const uint8_t* src, size_t n, uint8_t* const* s) {
  uint8_t *e = s[0], *lo = s[1], *hi = s[2];
  for (size_t i = 0; i < n; ++i) {
    uint16_t v = ld16(src + 2 * i);
    e[i] = uint8_t((v >> 10) & 0x1F);
    lo[i] = uint8_t(v);
    hi[i] = uint8_t(((v >> 13) & 0x4) | ((v >> 8) & 0x3));
  }
}
void fp16_merge(const uint8_t* const* s, size_t n, uint8_t* dst) { fp16_merge_kernel(s[0], s[1], s[2], n, dst); }

// fp32 s1 e8 m23 -> [exponent] [sign<<7 | mantissa 22..16] [m 15..8] [m 7..0]
void fp32_split(const uint8_t* src, size_t n, uint8_t* const* s) { fp32_split_kernel(src, n, s[0], s[1], s[2], s[3]); }
void fp32_merge(const uint8_t* const* s, size_t n, uint8_t* dst) { fp32_merge_kernel(s[0], s[1], s[2], s[3], n, dst); }

// fp64 s1 e11 m52 -> [exponent low 8] [sign<<7 | exponent high 3 <<4 | m 51..48]
//                    [m 47..40] ... [m 7..0]
void fp64_split(const uint8_t* src, size_t n, uint8_t* const* s) {
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = ld64(src + 8 * i);
    uint32_t exp = uint32_t(v >> 52) & 0x7FF;
    s[0][i] = uint8_t(exp);
    s[1][i] = uint8_t((v >> 56) & 0x80) | uint8_t((exp >> 8) << 4) | uint8_t((v >> 48) & 0xF);
    for (int k = 0; k < 6; ++k) s[2 + k][i] = uint8_t(v >> (8 * (5 - k)));
  }
}
void fp64_merge(const uint8_t* const* s, size_t n, uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) {
    uint64_t h = s[1][i];
    uint64_t v = (h & 0x80) << 56 | ((h >> 4) & 0x7) << 60 | uint64_t(s[0][i]) << 52 | (h & 0xF) << 48;
    for (int k = 0; k < 6; ++k) v |= uint64_t(s[2 + k][i]) << (8 * (5 - k));
    st64(dst + 8 * i, v);
  }
}

// fp8 with `mbits` mantissa bits: [exponent] [sign<<mbits | mantissa]
void fp8_split(const uint8_t* src, size_t n, uint8_t* const* s, int mbits) {
  const uint8_t emask = uint8_t((0x7F >> mbits));
  const uint8_t mmask = uint8_t((1 << mbits) - 1);
  for (size_t i = 0; i < n; ++i) {
    uint8_t b = src[i];
    s[0][i] = uint8_t((b >> mbits) & emask);
    s[1][i] = uint8_t(((b >> 7) << mbits) | (b & mmask));
  }
}
void fp8_merge(const uint8_t* const* s, size_t n, uint8_t* dst, int mbits) {
  const uint8_t emask = uint8_t((0x7F >> mbits));
  const uint8_t mmask = uint8_t((1 << mbits) - 1);
  for (size_t i = 0; i < n; ++i) {
    uint8_t sm = s[1][i];
    dst[i] = uint8_t(((sm >> mbits) & 1) << 7 | (s[0][i] & emask) << mbits | (sm & mmask));
  }
}

int fp8_mantissa_bits(DType d) {
  return (d == DType::f8_e4m3fn || d == DType::f8_e4m3fnuz) ? 3 : 2;
}

}  // namespace

uint32_t field_stream_count(DType dtype) {
  switch (dtype) {
    case DType::bf16: return 2;
    case DType::fp16: return 3;
    case DType::fp32: return 4;
    case DType::fp64: return 8;
    case DType::f8_e4m3fn: case DType::f8_e5m2: case DType::f8_e4m3fnuz: case DType::f8_e5m2fnuz: return 2;
    default: return 0;
  }
}

void field_split(DType dtype, const uint8_t* src, size_t n, uint8_t* const* streams) {
  switch (dtype) {
    case DType::bf16: return bf16_split(src, n, streams);
    case DType::fp16: return fp16_split(src, n, streams);
    case DType::fp32: return fp32_split(src, n, streams);
    case DType::fp64: return fp64_split(src, n, streams);
    default: return fp8_split(src, n, streams, fp8_mantissa_bits(dtype));
  }
}

void field_merge(DType dtype, const uint8_t* const* streams, size_t n, uint8_t* dst) {
  switch (dtype) {
    case DType::bf16: return bf16_merge(streams, n, dst);
    case DType::fp16: return fp16_merge(streams, n, dst);
    case DType::fp32: return fp32_merge(streams, n, dst);
    case DType::fp64: return fp64_merge(streams, n, dst);
    default: return fp8_merge(streams, n, dst, fp8_mantissa_bits(dtype));
  }
}

}  // namespace z4ai::detail
