// The safetensors files the codec is handed (ZSTN, Z4DM and their bases),
// parsed by the one safetensors parser (ztensor/safetensors_header.h) in
// verbatim order: by data offset, ties in header order, the order the frames
// store their tensors in.
#pragma once

#include <cstdint>
#include <span>

#include "ztensor/safetensors_header.h"
#include "ztensor/status.h"

namespace z4ai::detail {

// ZSTN and Z4DM store a name's length in a u16.
inline constexpr uint64_t kMaxFrameNameBytes = UINT16_MAX;

// The buffer parsed and checked (tensors tile the data buffer unless
// `require_tiling` is off, names fit kMaxFrameNameBytes). The buffer is the
// caller's argument, so a refusal is invalid_argument; the message names the
// parser's code and rule.
zt::Result<zt::SafetensorsLayout> parse_safetensors_input(std::span<const uint8_t> st, bool require_tiling = true);

// Only the u64 prefix: splits `st` into header and data without parsing JSON.
// Errors as parse_safetensors_input.
zt::Result<zt::SafetensorsLayout> split_safetensors_input(std::span<const uint8_t> st);

}  // namespace z4ai::detail
