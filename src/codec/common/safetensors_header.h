// Parses a .safetensors buffer's JSON header into its tensor list (name,
// dtype, shape, data span), sorted by data offset with ties in header order.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ztensor/status.h"

namespace z4ai::detail {

struct SafetensorsTensor {
  std::string name;
  std::string dtype;             // as declared ("BF16"); "U8" when absent
  std::vector<uint64_t> shape;
  uint64_t begin = 0, end = 0;   // span in the data buffer
};

struct SafetensorsLayout {
  uint64_t header_len = 0;             // JSON bytes after the u64 prefix
  std::span<const uint8_t> header;     // the JSON, verbatim
  std::span<const uint8_t> data;       // the data buffer (after the header)
  std::vector<SafetensorsTensor> tensors;
};

// invalid_argument naming the broken rule when `st` is not a safetensors buffer.
zt::Result<SafetensorsLayout> parse_safetensors(std::span<const uint8_t> st);

// Only the u64 prefix: splits `st` into header and data without parsing JSON.
zt::Result<SafetensorsLayout> split_safetensors(std::span<const uint8_t> st);

}  // namespace z4ai::detail
