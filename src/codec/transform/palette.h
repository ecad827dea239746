// Palette transform: a chunk whose elements take at most 256 distinct values
// (int8/int4-dequantised weights, masks) becomes a table of those values plus
// one index byte per element. Field splits cannot see that the exponent and
// mantissa of such values are tied; the index stream makes it explicit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace z4ai::detail {

inline constexpr size_t kMaxPaletteEntries = 256;

// Builds the palette (k * width bytes, values in first-seen order) and indices (n bytes); false if
// there are more than 256 distinct values.
bool palette_encode(const uint8_t* src, size_t n, uint32_t width, std::vector<uint8_t>& palette,
                    std::vector<uint8_t>& indices);
// Cheap pre-check on a sample: at most 256 distinct values?
bool palette_plausible(const uint8_t* src, size_t n, uint32_t width);
// False if an index is outside the palette (corrupt stream).
bool palette_decode(const uint8_t* palette, size_t entries, const uint8_t* indices, size_t n, uint32_t width,
                    uint8_t* dst);

}  // namespace z4ai::detail
