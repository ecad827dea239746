// 14-bit order-0 rANS (entropy Method rans0_14): our encoder for the layout
// decode_legacy_rans0 reads, the one PyPI z4ai writes (legacy_rans.cc).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/entropy/entropy.h"

namespace z4ai::detail {

// u64 n, 256 x u16 frequencies, 4 x u32 states.
inline constexpr size_t kRans14HeaderBytes = 8 + 2 * 256 + 4 * 4;

// Frequencies summing to 2^14 for byte counts `counts`, every present symbol
// at least 1 (all zero when the counts are).
void rans14_normalize(const uint32_t* counts, uint16_t* freq);
// The byte counts of `in` and their normalised frequencies.
void rans14_table(std::span<const uint8_t> in, uint32_t* counts, uint16_t* freq);
// Coded size in bytes of symbols with `counts` under `freq`, header included
// (exact to a few bytes of state flush).
double rans14_coded_size(const uint32_t* counts, const uint16_t* freq);
// Appends the stream; false (out unchanged) when `freq` is not a 2^14 table
// covering every byte of `in` or `in` is over kMaxStreamBytes.
bool encode_rans14(std::span<const uint8_t> in, const uint16_t* freq, std::vector<uint8_t>& out);
bool encode_rans14(std::span<const uint8_t> in, std::vector<uint8_t>& out);

}  // namespace z4ai::detail
