// Decorrelating transforms applied to a chunk before entropy coding. Every
// transform turns n elements into a fixed number of streams of exactly n
// bytes each (or one stream of n*width bytes for `none`), so stream lengths
// follow from the element count and need no trust in the frame.
#pragma once

#include <cstddef>
#include <cstdint>

#include "z4ai/codec.h"

namespace z4ai::detail {

enum class Transform : uint8_t {
  none = 0,         // one stream: the bytes as they are
  byte_planes = 1,  // stream j = byte j of every element
  field_split = 2,  // floats: exponent stream(s) apart from sign+mantissa
  palette = 3,      // <= 256 distinct values: value table + index stream (palette.h)
  paired_field_split = 4,  // bf16/fp32: exponents as nibble pairs (paired_split.h)
  sign_split = 5,   // bf16/fp32: sign, exponent, mantissa streams apart (sign_split.cc)
  scale_grid = 6,   // fp32/bf16/fp16: q * scale per group + exceptions (scale_grid.h)
};
inline constexpr uint8_t kTransformCount = 7;
// Transform byte flag: an element bitmap of nonzeros precedes the streams and
// only nonzero elements are transformed (sparse_path.h).
inline constexpr uint8_t kSparseFlag = 0x80;

// Streams produced for n elements; 0 if the transform does not apply to dtype.
// The palette, paired and scale-grid transforms are handled by the chunk coder itself (chunk_encode.cc, chunk_decode.cc)
// (their stream lengths are not all n).
uint32_t stream_count(Transform t, DType dtype);
// Bytes in each stream for n elements.
inline size_t stream_length(Transform t, DType dtype, size_t n_elems) {
  return t == Transform::none ? n_elems * dtype_width(dtype) : n_elems;
}
// Bytes in stream i: as stream_length, except the sign split's stream 0,
// which packs one sign bit per element.
inline size_t stream_length_at(Transform t, DType dtype, size_t n_elems, uint32_t i) {
  return t == Transform::sign_split && i == 0 ? (n_elems + 7) / 8 : stream_length(t, dtype, n_elems);
}
// The dtype's primary transform (what auto_select=false uses).
Transform primary_transform(DType dtype);

void forward_transform(Transform t, DType dtype, const uint8_t* src, size_t n_elems, uint8_t* const* streams);
void inverse_transform(Transform t, DType dtype, const uint8_t* const* streams, size_t n_elems, uint8_t* dst);

// Field split for the float dtypes (float_split.cc); bit layouts in docs/codec.md.
uint32_t field_stream_count(DType dtype);
void field_split(DType dtype, const uint8_t* src, size_t n, uint8_t* const* streams);
void field_merge(DType dtype, const uint8_t* const* streams, size_t n, uint8_t* dst);

// Sign split for bf16 and fp32 (sign_split.cc); layout in docs/codec.md.
uint32_t sign_split_stream_count(DType dtype);
void sign_split(DType dtype, const uint8_t* src, size_t n, uint8_t* const* streams);
void sign_merge(DType dtype, const uint8_t* const* streams, size_t n, uint8_t* dst);

// Byte-plane transpose (byte_planes.cc).
void split_planes(const uint8_t* src, size_t n, uint32_t width, uint8_t* const* planes);
void join_planes(const uint8_t* const* planes, size_t n, uint32_t width, uint8_t* dst);

}  // namespace z4ai::detail
