#include "strided_copy.h"

#include <cstring>
#include <vector>

namespace ztpy {
namespace {

struct Axis {
  int64_t n;
  int64_t stride;
};

// Axes of length 1 dropped and neighbours that step through memory as one
// axis merged, so a row block or a column block copies in long runs.
std::vector<Axis> coalesce(std::span<const int64_t> shape, std::span<const int64_t> strides) {
  std::vector<Axis> axes;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!axes.empty() && axes.back().stride == strides[d] * shape[d]) {
      axes.back() = {axes.back().n * shape[d], strides[d]};
    } else {
      axes.push_back({shape[d], strides[d]});
    }
  }
  return axes;
}

template <size_t kItem>
void copy_elements(uint8_t* dst, const uint8_t* src, int64_t n, int64_t stride) {
  for (int64_t i = 0; i < n; ++i, dst += kItem, src += stride) std::memcpy(dst, src, kItem);
}

// One innermost axis: a memcpy when it is contiguous, else element by element.
void copy_axis(uint8_t* dst, const uint8_t* src, const Axis& a, size_t item) {
  if (a.stride == static_cast<int64_t>(item)) {
    std::memcpy(dst, src, static_cast<size_t>(a.n) * item);
    return;
  }
  switch (item) {
    case 1: return copy_elements<1>(dst, src, a.n, a.stride);
    case 2: return copy_elements<2>(dst, src, a.n, a.stride);
    case 4: return copy_elements<4>(dst, src, a.n, a.stride);
    case 8: return copy_elements<8>(dst, src, a.n, a.stride);
    case 16: return copy_elements<16>(dst, src, a.n, a.stride);
    default:
      for (int64_t i = 0; i < a.n; ++i, dst += item, src += a.stride) std::memcpy(dst, src, item);
  }
}

}  // namespace

void strided_copy(uint8_t* dst, const uint8_t* src, std::span<const int64_t> shape,
                  std::span<const int64_t> strides, size_t item) {
  for (int64_t n : shape)
    if (n == 0) return;
  std::vector<Axis> axes = coalesce(shape, strides);
  if (axes.empty()) {  // one element
    std::memcpy(dst, src, item);
    return;
  }
  const Axis inner = axes.back();
  axes.pop_back();
  const size_t run = static_cast<size_t>(inner.n) * item;
  // An odometer over the outer axes, the last one fastest.
  std::vector<int64_t> at(axes.size(), 0);
  for (;;) {
    copy_axis(dst, src, inner, item);
    dst += run;
    size_t d = axes.size();
    while (d > 0) {
      --d;
      src += axes[d].stride;
      if (++at[d] < axes[d].n) break;
      src -= axes[d].stride * axes[d].n;
      at[d] = 0;
      if (d == 0) return;
    }
    if (axes.empty()) return;
  }
}

}  // namespace ztpy
