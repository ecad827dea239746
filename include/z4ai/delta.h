// XOR deltas between checkpoints: the frame stores (current ^ reference)
// compressed with the dtype-aware codec, or `current` itself when that is
// smaller, plus an XXH3-64 of the reference so decoding against the wrong
// reference fails with digest_mismatch instead of returning wrong weights.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "z4ai/codec.h"
#include "ztensor/status.h"

namespace z4ai {

// The reference may be shorter or longer than `current`; bytes past its end
// are XORed with zero.
zt::Result<std::vector<uint8_t>> compress_delta(std::span<const uint8_t> current,
                                                std::span<const uint8_t> reference,
                                                const CompressOptions& options);

// digest_mismatch if `reference` is not the one the frame was made against;
// limit_exceeded, before allocating, for a declared length over max_output.
zt::Result<std::vector<uint8_t>> decompress_delta(std::span<const uint8_t> frame,
                                                  std::span<const uint8_t> reference, unsigned threads = 0,
                                                  uint64_t max_output = kNoOutputLimit);

zt::Status decompress_delta_into(std::span<const uint8_t> frame, std::span<const uint8_t> reference,
                                 std::span<uint8_t> out, unsigned threads = 0);

bool is_delta_frame(std::span<const uint8_t> bytes);

}  // namespace z4ai
