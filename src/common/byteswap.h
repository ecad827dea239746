// In-place byte swapping of fixed-width elements (big-endian legacy data,
// big-endian hosts writing the little-endian format).
#pragma once

#include <cstddef>
#include <cstdint>

namespace zt {

inline void byteswap_elements(uint8_t* data, size_t nbytes, size_t width) {
  if (width <= 1) return;
  for (size_t i = 0; i + width <= nbytes; i += width) {
    for (size_t a = 0, b = width - 1; a < b; ++a, --b) {
      uint8_t t = data[i + a];
      data[i + a] = data[i + b];
      data[i + b] = t;
    }
  }
}

}  // namespace zt
