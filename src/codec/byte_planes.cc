// Byte-plane transpose. Widths 2, 4 and 8 get fixed-width loops the compiler
// can unroll and vectorise; other widths use the generic loop.
#include <cstring>

#include "codec/transforms.h"

namespace z4ai::detail {
namespace {

template <uint32_t W>
void split_fixed(const uint8_t* src, size_t n, uint8_t* const* planes) {
  uint8_t* p[W];
  for (uint32_t j = 0; j < W; ++j) p[j] = planes[j];
  for (size_t i = 0; i < n; ++i) {
    for (uint32_t j = 0; j < W; ++j) p[j][i] = src[i * W + j];
  }
}

template <uint32_t W>
void join_fixed(const uint8_t* const* planes, size_t n, uint8_t* dst) {
  const uint8_t* p[W];
  for (uint32_t j = 0; j < W; ++j) p[j] = planes[j];
  for (size_t i = 0; i < n; ++i) {
    for (uint32_t j = 0; j < W; ++j) dst[i * W + j] = p[j][i];
  }
}

}  // namespace

void split_planes(const uint8_t* src, size_t n, uint32_t width, uint8_t* const* planes) {
  switch (width) {
    case 1: if (n) std::memcpy(planes[0], src, n); return;
    case 2: return split_fixed<2>(src, n, planes);
    case 4: return split_fixed<4>(src, n, planes);
    case 8: return split_fixed<8>(src, n, planes);
    default:
      for (size_t i = 0; i < n; ++i)
        for (uint32_t j = 0; j < width; ++j) planes[j][i] = src[i * width + j];
  }
}

void join_planes(const uint8_t* const* planes, size_t n, uint32_t width, uint8_t* dst) {
  switch (width) {
    case 1: if (n) std::memcpy(dst, planes[0], n); return;
    case 2: return join_fixed<2>(planes, n, dst);
    case 4: return join_fixed<4>(planes, n, dst);
    case 8: return join_fixed<8>(planes, n, dst);
    default:
      for (size_t i = 0; i < n; ++i)
        for (uint32_t j = 0; j < width; ++j) dst[i * width + j] = planes[j][i];
  }
}

}  // namespace z4ai::detail
