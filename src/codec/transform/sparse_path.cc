#include "codec/transform/sparse_path.h"

#include <algorithm>
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
// Calls fn(Word{}) with the unsigned word of `width` bytes (1, 2, 4 or 8),
// so each element loop is compiled per width; false for other widths.
template <class Fn>
bool with_word(uint32_t width, Fn&& fn) {
  switch (width) {
    case 1: fn(uint8_t{}); return true;
    case 2: fn(uint16_t{}); return true;
    case 4: fn(uint32_t{}); return true;
    case 8: fn(uint64_t{}); return true;
    default: return false;
  }
}

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
  size_t zeros = 0;
  if (with_word(width, [&](auto word) { zeros = count_zero_words<decltype(word)>(src, n); })) return zeros;
  for (size_t i = 0; i < n; ++i) zeros += is_zero(src + i * width, width);
  return zeros;
}

namespace {
// Pruned weights put zeros at random positions, so a branch per element
// mispredicts about half the time (at 50 % zeros that branch cost more than
// the rest of the decode). The word loops below have none: every element is
// copied and the output index advances by the element's bit.
template <class Word>
size_t pack_words(const uint8_t* src, size_t n, uint8_t* bitmap, uint8_t* packed) {
  size_t k = 0;
  for (size_t byte = 0; byte * 8 < n; ++byte) {
    const size_t end = std::min(n, byte * 8 + 8);
    unsigned bits = 0;
    for (size_t i = byte * 8; i < end; ++i) {
      Word v;
      std::memcpy(&v, src + i * sizeof(Word), sizeof(Word));
      std::memcpy(packed + k * sizeof(Word), &v, sizeof(Word));  // k <= i: inside `packed`
      const unsigned nz = v != 0;
      bits |= nz << (i & 7);
      k += nz;
    }
    bitmap[byte] = uint8_t(bits);
  }
  return k;
}
}  // namespace

size_t sparse_pack(const uint8_t* src, size_t n, uint32_t width, uint8_t* bitmap, uint8_t* packed) {
  size_t k = 0;
  if (with_word(width, [&](auto word) { k = pack_words<decltype(word)>(src, n, bitmap, packed); })) return k;
  std::memset(bitmap, 0, bitmap_bytes(n));
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* e = src + i * width;
    if (is_zero(e, width)) continue;
    bitmap[i >> 3] |= uint8_t(1u << (i & 7));
    std::memcpy(packed + k * width, e, width);
    ++k;
  }
  return k;
}

namespace {
// Set bits in p[0, bytes), eight bytes per step in a register. The portable
// build has no popcnt instruction, so __builtin_popcount is a libgcc call:
// made per bitmap byte it was 19 % of sparse50-fp32's decode.
size_t count_bits(const uint8_t* p, size_t bytes) {
  size_t c = 0, i = 0;
  auto word_bits = [](uint64_t v) {
    v = v - ((v >> 1) & 0x5555555555555555ULL);
    v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
    v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return size_t((v * 0x0101010101010101ULL) >> 56);
  };
  for (; i + 8 <= bytes; i += 8) {
    uint64_t v;
    std::memcpy(&v, p + i, 8);
    c += word_bits(v);
  }
  for (; i < bytes; ++i) c += word_bits(p[i]);
  return c;
}
}  // namespace

bool bitmap_popcount(const uint8_t* bitmap, size_t n, size_t& count) {
  size_t full = n / 8, c = count_bits(bitmap, full);
  if (n % 8) {
    uint8_t last = bitmap[full];
    uint8_t valid = uint8_t((1u << (n % 8)) - 1);
    if (last & ~valid) return false;
    c += count_bits(&last, 1);
  }
  count = c;
  return true;
}

namespace {
// Branch-free like pack_words: each element reads the next packed value and
// keeps it when its bit is set. The read may run up to 7 elements past the
// last one used, so the loop stops while 8 packed values remain unread and
// the rest goes element by element.
template <class Word>
void unpack_words(const uint8_t* bitmap, const uint8_t* packed, size_t n, uint8_t* dst) {
  const size_t total = count_bits(bitmap, bitmap_bytes(n));
  size_t k = 0, byte = 0;
  for (; byte < n / 8 && k + 8 <= total; ++byte) {
    const unsigned bits = bitmap[byte];
    for (unsigned j = 0; j < 8; ++j) {
      Word v;
      std::memcpy(&v, packed + k * sizeof(Word), sizeof(Word));
      const unsigned nz = (bits >> j) & 1;
      v &= Word(Word(0) - Word(nz));
      std::memcpy(dst + (byte * 8 + j) * sizeof(Word), &v, sizeof(Word));
      k += nz;
    }
  }
  for (size_t i = byte * 8; i < n; ++i) {
    Word v = 0;
    if (bitmap[i >> 3] >> (i & 7) & 1) std::memcpy(&v, packed + k++ * sizeof(Word), sizeof(Word));
    std::memcpy(dst + i * sizeof(Word), &v, sizeof(Word));
  }
}
}  // namespace

void sparse_unpack(const uint8_t* bitmap, const uint8_t* packed, size_t n, uint32_t width, uint8_t* dst) {
  if (with_word(width, [&](auto word) { unpack_words<decltype(word)>(bitmap, packed, n, dst); })) return;
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
