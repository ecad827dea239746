#include "codec/sparse_path.h"

#include <cstring>

namespace z4ai::detail {
namespace {

inline bool is_zero(const uint8_t* p, uint32_t width) {
  switch (width) {
    case 1: return *p == 0;
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return v == 0; }
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return v == 0; }
    case 8: { uint64_t v; std::memcpy(&v, p, 8); return v == 0; }
    default:
      for (uint32_t j = 0; j < width; ++j)
        if (p[j]) return false;
      return true;
  }
}

}  // namespace

namespace {
// The width is a template argument so the loop has no per-element switch
// and vectorises.
template <class Word>
size_t count_zero_words(const uint8_t* src, size_t n) {
  size_t zeros = 0;
  for (size_t i = 0; i < n; ++i) {
    Word v;
    std::memcpy(&v, src + i * sizeof(Word), sizeof(Word));
    zeros += v == 0;
  }
  return zeros;
}
}  // namespace

size_t count_zero_elements(const uint8_t* src, size_t n, uint32_t width) {
  switch (width) {
    case 1: return count_zero_words<uint8_t>(src, n);
    case 2: return count_zero_words<uint16_t>(src, n);
    case 4: return count_zero_words<uint32_t>(src, n);
    case 8: return count_zero_words<uint64_t>(src, n);
    default: break;
  }
  size_t zeros = 0;
  for (size_t i = 0; i < n; ++i) zeros += is_zero(src + i * width, width);
  return zeros;
}

size_t sparse_pack(const uint8_t* src, size_t n, uint32_t width, uint8_t* bitmap, uint8_t* packed) {
  std::memset(bitmap, 0, bitmap_bytes(n));
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* e = src + i * width;
    if (is_zero(e, width)) continue;
    bitmap[i >> 3] |= uint8_t(1u << (i & 7));
    std::memcpy(packed + k * width, e, width);
    ++k;
  }
  return k;
}

bool bitmap_popcount(const uint8_t* bitmap, size_t n, size_t& count) {
  size_t full = n / 8, c = 0;
  for (size_t i = 0; i < full; ++i) c += size_t(__builtin_popcount(bitmap[i]));
  if (n % 8) {
    uint8_t last = bitmap[full];
    uint8_t valid = uint8_t((1u << (n % 8)) - 1);
    if (last & ~valid) return false;
    c += size_t(__builtin_popcount(last));
  }
  count = c;
  return true;
}

void sparse_unpack(const uint8_t* bitmap, const uint8_t* packed, size_t n, uint32_t width, uint8_t* dst) {
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    uint8_t* e = dst + i * width;
    if (bitmap[i >> 3] >> (i & 7) & 1) {
      std::memcpy(e, packed + k * width, width);
      ++k;
    } else {
      std::memset(e, 0, width);
    }
  }
}

}  // namespace z4ai::detail
