// Adaptive 14-bit order-0 rANS (entropy Method rans0_14_adaptive): our encoder
// for the layout decode_legacy_rans_adaptive reads, one frequency table per
// 64 KiB slice (pypi_rans.cc documents it).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace z4ai::detail {

// Appends `in` in the adaptive layout; false (out unchanged) when `in` is
// over kMaxStreamBytes or its coding would exceed max_bytes (judged from the
// slices' exact table costs before any symbol is coded).
bool encode_rans14_adaptive(std::span<const uint8_t> in, std::vector<uint8_t>& out, size_t max_bytes = SIZE_MAX);

}  // namespace z4ai::detail
