// Sign split (transform 5): the field split with the signs packed in a stream
// of their own (bit i % 8 of byte i / 8 for element i; bits past n are 0) and
// the top mantissa bits alone in theirs.
// Weights whose mantissa sequences recur with the opposite sign (STFT bases,
// RNN gate tables, symmetric kernels) then give the zstd stages the same
// mantissa bytes twice, which the field split's sign << 7 | mantissa byte
// hides. Merge masks every field, so any stream bytes give defined output.
#include <algorithm>
#include <cstring>

#include "codec/common/byte_io.h"
#include "codec/transform/field_kernels.h"
#include "codec/transform/transforms.h"

namespace z4ai::detail {
namespace {

// The split goes through the field split's SIMD kernel (field_kernels.h) a
// block at a time: the sign split differs from the field split only in its
// sign << 7 | mantissa byte, taken apart 8 elements (one sign byte) per
// 64-bit word. Blocks are whole sign bytes and stay in L1. The merge has a
// kernel of its own.
constexpr size_t kBlockElements = 4096;

constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7FULL;

// Signs (whole bytes, bits past n zero) and mantissas from sm.
void unfuse_signs(const uint8_t* sm, size_t n, uint8_t* signs, uint8_t* mant) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t v = load_u64(sm + i);
    store_u64(mant + i, v & kLow7);
    // Top bit of byte k to bit k: gather the eight bits into the top byte.
    signs[i >> 3] = uint8_t((((v >> 7) & 0x0101010101010101ULL) * 0x0102040810204080ULL) >> 56);
  }
  if (i < n) {
    uint8_t b = 0;
    for (size_t k = 0; i + k < n; ++k) {
      b |= uint8_t((sm[i + k] >> 7) << k);
      mant[i + k] = uint8_t(sm[i + k] & 0x7F);
    }
    signs[i >> 3] = b;
  }
}

}  // namespace

uint32_t sign_split_stream_count(DType dtype) {
  switch (dtype) {
    case DType::bf16: return 3;  // sign, exponent, mantissa 6..0
    case DType::fp32: return 5;  // sign, exponent, mantissa 22..16, 15..8, 7..0
    default: return 0;
  }
}

void sign_split(DType dtype, const uint8_t* src, size_t n, uint8_t* const* s) {
  uint8_t sm[kBlockElements];
  const uint32_t w = dtype == DType::bf16 ? 2 : 4;
  for (size_t at = 0; at < n; at += kBlockElements) {
    const size_t m = std::min(kBlockElements, n - at);
    if (dtype == DType::bf16) {
      bf16_split_kernel(src + w * at, m, s[1] + at, sm);
    } else {
      fp32_split_kernel(src + w * at, m, s[1] + at, sm, s[3] + at, s[4] + at);
    }
    unfuse_signs(sm, m, s[0] + at / 8, s[2] + at);
  }
}

// One pass (field_kernels.h): the sign bits expand to bytes inside the vectors.
void sign_merge(DType dtype, const uint8_t* const* s, size_t n, uint8_t* dst) {
  if (dtype == DType::bf16) return bf16_sign_merge_kernel(s[0], s[1], s[2], n, dst);
  fp32_sign_merge_kernel(s[0], s[1], s[2], s[3], s[4], n, dst);
}

}  // namespace z4ai::detail
