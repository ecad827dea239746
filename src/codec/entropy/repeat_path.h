// Coding of inputs with long-range repeats (tied or copied weights, found by
// has_long_range_repeats): the input is one big chunk, so a copy and its
// original share the chunk's streams, and each stream goes to zstd with
// long-distance matching over the whole stream. Plain Z4AI/ZARA frames: the
// decoder needs nothing new.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/entropy/entropy.h"
#include "z4ai/codec.h"

namespace z4ai::detail {

// Stream coder behind EntropyPolicy::long_repeats. Field-split streams of
// weights are entropy-dense apart from the copies, so the main candidate is
// zstd with long-distance matching and a throttled short-range matcher
// (literals stay Huffman-coded, copies become a few long matches); zstd at
// the policy level joins when a sample shows short-range matches paying, and
// encode_best's own candidates when the long matches do not beat the entropy
// estimate (and always for ZARA). Smallest wins, never larger than stored.
Method encode_repeat_stream(std::span<const uint8_t> in, const EntropyPolicy& policy, std::vector<uint8_t>& out);

// Whether whole-buffer zstd (frame mode 1) may beat the repeat frame: on a
// few spread windows, where neither sees a long repeat, zstd on the raw bytes
// comes within kWholeZstdMargin of the dtype's primary transform with its
// streams coded by encode_repeat_stream.
bool whole_zstd_may_win(std::span<const uint8_t> data, DType dtype, const EntropyPolicy& policy);

}  // namespace z4ai::detail
