// Copying a strided selection (a numpy-style view: shape and byte strides,
// possibly negative) into a C-ordered buffer: what a torch slice holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ztpy {

// Copies the `shape` elements of `item` bytes each, found at `src` +
// sum(index[d] * strides[d]), into `dst` in C order. The caller has checked
// that every element lies inside the source and that `dst` holds them all.
void strided_copy(uint8_t* dst, const uint8_t* src, std::span<const int64_t> shape,
                  std::span<const int64_t> strides, size_t item);

}  // namespace ztpy
