#include "codec/transform/palette.h"

#include <algorithm>
#include <cstring>

namespace z4ai::detail {
namespace {

uint64_t load(const uint8_t* p, uint32_t width) {
  uint64_t v = 0;
  for (uint32_t b = 0; b < width; ++b) v |= uint64_t(p[b]) << (8 * b);
  return v;
}

// Membership set for <= 256 values: open addressing, 1024 slots.
struct ValueSet {
  static constexpr size_t kSlots = 1024;
  uint64_t keys[kSlots];
  bool used[kSlots] = {};
  size_t size = 0;
  // Returns false when a 257th value arrives.
  bool insert(uint64_t v) {
    size_t s = size_t((v * 0x9E3779B97F4A7C15ull) >> 54);
    while (used[s]) {
      if (keys[s] == v) return true;
      s = (s + 1) & (kSlots - 1);
    }
    if (size == kMaxPaletteEntries) return false;
    used[s] = true, keys[s] = v, ++size;
    return true;
  }
};

// Distinct values, sorted; false past 256.
bool distinct_values(const uint8_t* src, size_t n, uint32_t width, std::vector<uint64_t>& values) {
  ValueSet set;
  uint64_t last = ~uint64_t{0};
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = load(src + i * width, width);
    if (v == last) continue;  // runs are common
    last = v;
    if (!set.insert(v)) return false;
  }
  values.clear();
  for (size_t s = 0; s < ValueSet::kSlots; ++s)
    if (set.used[s]) values.push_back(set.keys[s]);
  std::sort(values.begin(), values.end());
  return true;
}

}  // namespace

bool palette_plausible(const uint8_t* src, size_t n, uint32_t width) {
  if (width < 2 || width > 8 || n < 1024) return false;
  std::vector<uint64_t> values;
  return distinct_values(src, n, width, values);
}

namespace {

// Open-addressing map from value to palette index; 1024 slots for <= 256 keys.
struct IndexMap {
  static constexpr size_t kSlots = 1024;
  uint64_t keys[kSlots];
  int16_t vals[kSlots];
  IndexMap() { std::fill(vals, vals + kSlots, int16_t(-1)); }
  static size_t slot(uint64_t v) { return size_t((v * 0x9E3779B97F4A7C15ull) >> 54); }
  void put(uint64_t v, int16_t idx) {
    size_t s = slot(v);
    while (vals[s] >= 0) s = (s + 1) & (kSlots - 1);
    keys[s] = v, vals[s] = idx;
  }
  int16_t get(uint64_t v) const {
    for (size_t s = slot(v);; s = (s + 1) & (kSlots - 1))
      if (vals[s] < 0 || keys[s] == v) return vals[s];
  }
};

template <class T>
void decode_typed(const uint8_t* palette, const uint8_t* indices, size_t n, uint8_t* dst) {
  T pal[kMaxPaletteEntries] = {};
  std::memcpy(pal, palette, sizeof(pal));
  for (size_t i = 0; i < n; ++i) std::memcpy(dst + i * sizeof(T), &pal[indices[i]], sizeof(T));
}

}  // namespace

bool palette_encode(const uint8_t* src, size_t n, uint32_t width, std::vector<uint8_t>& palette,
                    std::vector<uint8_t>& indices) {
  if (width < 2 || width > 8) return false;
  // One pass: a value gets the next index when first seen (insertion order).
  std::vector<uint64_t> values;
  indices.resize(n);
  if (width == 2) {
    std::vector<int16_t> table(65536, -1);
    for (size_t i = 0; i < n; ++i) {
      uint16_t v = uint16_t(src[2 * i] | src[2 * i + 1] << 8);
      int16_t idx = table[v];
      if (idx < 0) {
        if (values.size() == kMaxPaletteEntries) return false;
        idx = table[v] = int16_t(values.size());
        values.push_back(v);
      }
      indices[i] = uint8_t(idx);
    }
  } else {
    IndexMap map;
    for (size_t i = 0; i < n; ++i) {
      uint64_t v = load(src + i * width, width);
      int16_t idx = map.get(v);
      if (idx < 0) {
        if (values.size() == kMaxPaletteEntries) return false;
        idx = int16_t(values.size());
        map.put(v, idx);
        values.push_back(v);
      }
      indices[i] = uint8_t(idx);
    }
  }
  palette.resize(values.size() * width);
  for (size_t k = 0; k < values.size(); ++k)
    for (uint32_t b = 0; b < width; ++b) palette[k * width + b] = uint8_t(values[k] >> (8 * b));
  return true;
}

bool palette_decode(const uint8_t* palette, size_t entries, const uint8_t* indices, size_t n, uint32_t width,
                    uint8_t* dst) {
  for (size_t i = 0; i < n; ++i)
    if (indices[i] >= entries) return false;
  // Unused table slots stay zero; every index was checked above.
  uint8_t padded[kMaxPaletteEntries * 8] = {};
  std::memcpy(padded, palette, entries * width);
  switch (width) {
    case 2: decode_typed<uint16_t>(padded, indices, n, dst); return true;
    case 4: decode_typed<uint32_t>(padded, indices, n, dst); return true;
    case 8: decode_typed<uint64_t>(padded, indices, n, dst); return true;
    default:
      for (size_t i = 0; i < n; ++i) std::memcpy(dst + i * width, padded + size_t(indices[i]) * width, width);
      return true;
  }
}

}  // namespace z4ai::detail
