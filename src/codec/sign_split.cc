// Sign split (transform 5): the field split with the signs packed in a stream
// of their own (bit i % 8 of byte i / 8 for element i; bits past n are 0) and
// the top mantissa bits alone in theirs.
// Weights whose mantissa sequences recur with the opposite sign (STFT bases,
// RNN gate tables, symmetric kernels) then give the zstd stages the same
// mantissa bytes twice, which the field split's sign << 7 | mantissa byte
// hides. Merge masks every field, so any stream bytes give defined output.
#include <cstring>

#include "codec/byte_io.h"
#include "codec/transforms.h"

namespace z4ai::detail {
namespace {

// The sign bit of each W-byte little-endian element, LSB first.
template <size_t W>
void pack_signs(const uint8_t* src, size_t n, uint8_t* bits) {
  std::memset(bits, 0, (n + 7) / 8);
  for (size_t i = 0; i < n; ++i) bits[i >> 3] |= uint8_t((src[W * i + W - 1] >> 7) << (i & 7));
}
inline uint32_t sign_of(const uint8_t* bits, size_t i) { return (bits[i >> 3] >> (i & 7)) & 1u; }

}  // namespace

uint32_t sign_split_stream_count(DType dtype) {
  switch (dtype) {
    case DType::bf16: return 3;  // sign, exponent, mantissa 6..0
    case DType::fp32: return 5;  // sign, exponent, mantissa 22..16, 15..8, 7..0
    default: return 0;
  }
}

void sign_split(DType dtype, const uint8_t* src, size_t n, uint8_t* const* s) {
  if (dtype == DType::bf16) {
    pack_signs<2>(src, n, s[0]);
    for (size_t i = 0; i < n; ++i) {
      const uint16_t v = load_u16(src + 2 * i);
      s[1][i] = uint8_t(v >> 7);
      s[2][i] = uint8_t(v & 0x7F);
    }
    return;
  }
  pack_signs<4>(src, n, s[0]);  // fp32
  for (size_t i = 0; i < n; ++i) {
    const uint32_t v = load_u32(src + 4 * i);
    s[1][i] = uint8_t(v >> 23);
    s[2][i] = uint8_t((v >> 16) & 0x7F);
    s[3][i] = uint8_t(v >> 8);
    s[4][i] = uint8_t(v);
  }
}

void sign_merge(DType dtype, const uint8_t* const* s, size_t n, uint8_t* dst) {
  if (dtype == DType::bf16) {
    for (size_t i = 0; i < n; ++i)
      store_u16(dst + 2 * i, uint16_t(sign_of(s[0], i) << 15 | uint32_t(s[1][i]) << 7 | (s[2][i] & 0x7Fu)));
    return;
  }
  for (size_t i = 0; i < n; ++i)  // fp32
    store_u32(dst + 4 * i, sign_of(s[0], i) << 31 | uint32_t(s[1][i]) << 23 | (s[2][i] & 0x7Fu) << 16 |
                          uint32_t(s[3][i]) << 8 | s[4][i]);
}

}  // namespace z4ai::detail
