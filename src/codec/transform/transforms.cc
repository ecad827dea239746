// Dispatch from a transform id to its implementation.
#include "codec/transform/transforms.h"

#include <cstring>

#include "codec/transform/paired_split.h"
#include "codec/transform/scale_grid.h"

namespace z4ai::detail {

uint32_t stream_count(Transform t, DType dtype) {
  switch (t) {
    case Transform::none: return 1;
    case Transform::byte_planes: return dtype_width(dtype);
    case Transform::field_split: return field_stream_count(dtype);
    case Transform::palette: return dtype_width(dtype) >= 2 ? 2 : 0;
    case Transform::paired_field_split: return paired_stream_count(dtype);
    case Transform::sign_split: return sign_split_stream_count(dtype);
    case Transform::scale_grid: return grid_dtype(dtype) ? kGridStreams : 0;
  }
  return 0;
}

Transform primary_transform(DType dtype) {
  if (field_stream_count(dtype) != 0) return Transform::field_split;
  return dtype_width(dtype) > 1 ? Transform::byte_planes : Transform::none;
}

void forward_transform(Transform t, DType dtype, const uint8_t* src, size_t n, uint8_t* const* streams) {
  switch (t) {
    case Transform::none:
      if (n) std::memcpy(streams[0], src, n * dtype_width(dtype));
      return;
    case Transform::byte_planes: return split_planes(src, n, dtype_width(dtype), streams);
    case Transform::field_split: return field_split(dtype, src, n, streams);
    case Transform::sign_split: return sign_split(dtype, src, n, streams);
    case Transform::palette:
    case Transform::paired_field_split:
    case Transform::scale_grid: return;  // chunk_encode.cc / chunk_decode.cc
  }
}

void inverse_transform(Transform t, DType dtype, const uint8_t* const* streams, size_t n, uint8_t* dst) {
  switch (t) {
    case Transform::none:
      if (n) std::memcpy(dst, streams[0], n * dtype_width(dtype));
      return;
    case Transform::byte_planes: return join_planes(streams, n, dtype_width(dtype), dst);
    case Transform::field_split: return field_merge(dtype, streams, n, dst);
    case Transform::sign_split: return sign_merge(dtype, streams, n, dst);
    case Transform::palette:
    case Transform::paired_field_split:
    case Transform::scale_grid: return;  // chunk_encode.cc / chunk_decode.cc
  }
}

}  // namespace z4ai::detail
