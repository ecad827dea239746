// Scale-grid transform (transform 6): dequantised weights, where every group
// of G = 2^log2g consecutive elements is dtype(fp32(q_i * s)) for small
// integers q_i and one fp32 scale s per group (GPTQ/AWQ/int8 exports). The
// chunk becomes a scale per group and one signed byte per element; elements
// the grid cannot reproduce are listed as exceptions. Layout in docs/codec.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "z4ai/codec.h"
#include "ztensor/status.h"

namespace z4ai::detail {

inline constexpr uint32_t kGridStreams = 5;  // header, scales, q, exception positions, exception values
inline constexpr size_t kGridHeaderBytes = 5;  // u8 log2 G, u32 exception count
// Group sizes the format allows (decoder) and the encoder tries.
inline constexpr uint8_t kGridMinLog2 = 5;
inline constexpr uint8_t kGridMaxLog2 = 16;
inline constexpr size_t kGridPositionBytes = 4;  // u32 gap to the previous exception

// fp32, bf16 and fp16: the dtypes whose decode is a product cast to the dtype.
bool grid_dtype(DType dtype);

// Cheap detector on a sample of a chunk or an input (a few microseconds): do
// small windows of it sit on a scale grid?
bool grid_plausible(const uint8_t* src, size_t n, DType dtype);

// Builds the five streams for n elements; false when the chunk is not a grid
// (too many exceptions) or the dtype does not apply.
bool grid_encode(const uint8_t* src, size_t n, DType dtype, std::vector<std::vector<uint8_t>>& streams);

// Raw stream lengths implied by the header stream and n, checked against
// `raw_lens` (what the frame declares) before anything is decoded.
zt::Status grid_check_lengths(const uint8_t* header, const uint32_t* raw_lens, size_t n, DType dtype);

// Decodes n elements into dst from the materialised streams (lengths checked
// by grid_check_lengths). Fails on an exception position out of range.
zt::Status grid_decode(const uint8_t* const* streams, size_t n, DType dtype, uint8_t* dst);

}  // namespace z4ai::detail
