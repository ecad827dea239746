#include "codec/transform/paired_split.h"

#include <string>

#include "codec/transform/field_kernels.h"

namespace z4ai::detail {
namespace {

constexpr unsigned kWindow = 15;           // nibble values 0..14; 15 escapes
// The window is picked on kBaseSampleRuns spread runs of kBaseRunElems
// elements: a strided sample would touch every cache line of the chunk.
constexpr size_t kBaseSampleRuns = 32;
constexpr size_t kBaseRunElems = 256;
constexpr double kMaxEscapeShare = 0.005;  // above: plain field split

uint8_t exponent_of(DType dtype, const uint8_t* p) {
  return dtype == DType::bf16 ? uint8_t((p[1] << 1) | (p[0] >> 7)) : uint8_t((p[3] << 1) | (p[2] >> 7));
}

zt::Status corrupt(const std::string& what) {
  return {zt::ErrorCode::corrupt_stream, "z4ai chunk: paired field split: " + what};
}

}  // namespace

uint32_t paired_stream_count(DType dtype) {
  if (dtype == DType::bf16) return 3;
  if (dtype == DType::fp32) return 5;
  return 0;
}

bool choose_pair_base(const uint8_t* src, size_t n, DType dtype, uint8_t& base) {
  if (paired_stream_count(dtype) == 0 || n == 0) return false;
  const uint32_t w = dtype_width(dtype);
  uint32_t hist[256] = {};
  size_t sampled = 0;
  auto count = [&](size_t from, size_t len) {
    for (size_t i = from; i < from + len; ++i) ++hist[exponent_of(dtype, src + i * w)];
    sampled += len;
  };
  if (n <= kBaseSampleRuns * kBaseRunElems) {
    count(0, n);
  } else {
    const size_t stride = (n - kBaseRunElems) / (kBaseSampleRuns - 1);
    for (size_t r = 0; r < kBaseSampleRuns; ++r) count(r * stride, kBaseRunElems);
  }
  uint32_t window = 0, best = 0;
  for (unsigned k = 0; k < kWindow; ++k) window += hist[k];
  best = window;
  base = 0;
  for (unsigned b = 1; b + kWindow <= 256; ++b) {
    window += hist[b + kWindow - 1] - hist[b - 1];
    if (window > best) {
      best = window;
      base = uint8_t(b);
    }
  }
  return double(sampled - best) <= kMaxEscapeShare * double(sampled);
}

size_t paired_split(DType dtype, const uint8_t* src, size_t n, uint8_t base, uint8_t* escapes,
                    uint8_t* const* s) {
  if (dtype == DType::bf16) return bf16_split_paired(src, n, base, s[1], escapes, s[2]);
  return fp32_split_paired(src, n, base, s[1], escapes, s[2], s[3], s[4]);
}

zt::Status check_paired_lengths(DType dtype, const uint32_t* raw_lens, size_t n) {
  const uint32_t k = paired_stream_count(dtype);
  if (k == 0) return corrupt("dtype has no paired field split");
  for (uint32_t i = 1; i < k; ++i)
    if (raw_lens[i] != paired_stream_length(i, n))
      return {zt::ErrorCode::length_mismatch, "z4ai chunk: paired field split: stream " + std::to_string(i) +
                                                  " has " + std::to_string(raw_lens[i]) + " bytes, expected " +
                                                  std::to_string(paired_stream_length(i, n))};
  if (raw_lens[0] < 1 || raw_lens[0] - size_t{1} > n)
    return corrupt("stream 0 must hold the base exponent and at most one escape per element, not " +
                   std::to_string(raw_lens[0]) + " bytes");
  return {};
}

zt::Status paired_merge(DType dtype, const uint8_t* const* s, uint32_t escape_stream_len, size_t n, uint8_t* dst) {
  size_t escapes = 0;
  if (!count_pair_escapes(s[1], n, &escapes)) return corrupt("the pad nibble after an odd element count is not 0");
  if (escapes != escape_stream_len - size_t{1})
    return corrupt(std::to_string(escapes) + " escape nibbles but " + std::to_string(escape_stream_len - 1) +
                   " escaped exponents");
  const uint8_t base = s[0][0];
  if (dtype == DType::bf16) {
    bf16_merge_paired(s[1], s[0] + 1, base, s[2], n, dst);
  } else {
    fp32_merge_paired(s[1], s[0] + 1, base, s[2], s[3], s[4], n, dst);
  }
  return {};
}

}  // namespace z4ai::detail
