// Zero-aware path: a bitmap with one bit per element (set = nonzero element)
// followed by only the nonzero elements. Pruned or padded tensors pay one bit
// per zero element instead of one entropy-coded symbol per zero byte.
#pragma once

#include <cstddef>
#include <cstdint>

namespace z4ai::detail {

inline size_t bitmap_bytes(size_t n_elems) { return (n_elems + 7) / 8; }

size_t count_zero_elements(const uint8_t* src, size_t n_elems, uint32_t width);
// Writes the bitmap and the packed nonzero elements; returns their count.
size_t sparse_pack(const uint8_t* src, size_t n_elems, uint32_t width, uint8_t* bitmap, uint8_t* packed);
// Number of set bits among the first n_elems bits; false if any bit past
// n_elems is set (non-canonical bitmap).
bool bitmap_popcount(const uint8_t* bitmap, size_t n_elems, size_t& count);
// Expands packed nonzero elements back to n_elems elements (zeros elsewhere).
void sparse_unpack(const uint8_t* bitmap, const uint8_t* packed, size_t n_elems, uint32_t width, uint8_t* dst);

}  // namespace z4ai::detail
