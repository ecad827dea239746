// Byte-plane transpose. The work is in field_kernels.cc: SIMD for widths 2,
// 4 and 8, a generic loop for the others.
#include "codec/transform/field_kernels.h"
#include "codec/transform/transforms.h"

namespace z4ai::detail {

void split_planes(const uint8_t* src, size_t n, uint32_t width, uint8_t* const* planes) {
  split_planes_kernel(src, n, width, planes);
}

void join_planes(const uint8_t* const* planes, size_t n, uint32_t width, uint8_t* dst) {
  join_planes_kernel(planes, n, width, dst);
}

}  // namespace z4ai::detail
