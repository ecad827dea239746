#include "codec/frame/lean_order1.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace z4ai::detail {
namespace {

// kWindows windows of kWindowElems consecutive elements, centred in equal
// segments. Order-1 figures on a sample run low (few samples per context),
// hence the margin: on whole 256 Ki-element chunks, crepe's CNN exponents
// measure 0.89 (neighbouring kernel weights share a scale) and MiniLM's 0.997.
constexpr size_t kWindows = 4;
constexpr size_t kWindowElems = 4096;
constexpr double kOrder1Share = 0.9;

double bits(const uint32_t* counts, uint64_t total) {
  double h = 0;
  for (size_t i = 0; i < 256; ++i)
    if (counts[i]) h -= double(counts[i]) * std::log2(double(counts[i]) / double(total));
  return h;
}

uint8_t symbol(const uint8_t* e, DType dtype) {
  uint16_t top;  // the element's upper 16 bits
  std::memcpy(&top, e + (dtype == DType::fp32 ? 2 : 0), 2);
  return dtype == DType::fp16 ? uint8_t(top >> 8) : uint8_t(top >> 7);
}

// Window k of `windows` (kWindowElems elements, centred in the k-th of equal segments).
const uint8_t* window(std::span<const uint8_t> data, size_t k, size_t windows, size_t w) {
  const size_t segment = data.size() / w / windows;
  return data.data() + (k * segment + (segment - kWindowElems) / 2) * w;
}

}  // namespace

bool lean_order1_pays(std::span<const uint8_t> data, DType dtype) {
  if (dtype != DType::bf16 && dtype != DType::fp16 && dtype != DType::fp32) return false;
  const size_t w = dtype_width(dtype), n = data.size() / w;
  if (n < kWindows * kWindowElems * 2) return false;
  std::vector<uint32_t> pairs(size_t{256} * 256, 0);
  uint32_t ctx[256] = {0}, next[256] = {0};
  for (size_t k = 0; k < kWindows; ++k) {
    const uint8_t* p = window(data, k, kWindows, w);
    uint8_t prev = symbol(p, dtype);
    for (size_t i = 1; i < kWindowElems; ++i) {
      const uint8_t s = symbol(p + i * w, dtype);
      ++ctx[prev];
      ++next[s];
      ++pairs[size_t(prev) << 8 | s];
      prev = s;
    }
  }
  uint64_t total = 0;
  double bits1 = 0;
  for (size_t c = 0; c < 256; ++c) {
    total += ctx[c];
    if (ctx[c]) bits1 += bits(&pairs[c << 8], ctx[c]);
  }
  return bits1 < kOrder1Share * bits(next, total);
}

}  // namespace z4ai::detail

namespace z4ai::detail {
namespace {
// kStationaryWindows windows of kWindowElems elements, centred in equal
// segments; i.i.d. exponents measure a gap of ~0.004 bits (sample bias).
constexpr size_t kStationaryWindows = 8;
constexpr double kStationaryMaxGapBits = 0.01;
}  // namespace

bool lean_exponents_stationary(std::span<const uint8_t> data, DType dtype) {
  if (dtype != DType::bf16 && dtype != DType::fp16 && dtype != DType::fp32) return false;
  const size_t w = dtype_width(dtype), n = data.size() / w;
  if (n < kStationaryWindows * kWindowElems * 2) return false;
  uint32_t pooled[256] = {0};
  double window_bits = 0;
  for (size_t k = 0; k < kStationaryWindows; ++k) {
    const uint8_t* p = window(data, k, kStationaryWindows, w);
    uint32_t counts[256] = {0};
    for (size_t i = 0; i < kWindowElems; ++i) ++counts[symbol(p + i * w, dtype)];
    for (size_t c = 0; c < 256; ++c) pooled[c] += counts[c];
    window_bits += bits(counts, kWindowElems);
  }
  const double total = double(kStationaryWindows * kWindowElems);
  const double gap = (bits(pooled, uint64_t(total)) - window_bits) / total;
  return gap < kStationaryMaxGapBits;
}

}  // namespace z4ai::detail
