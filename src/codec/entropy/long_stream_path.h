// The whole-input stream candidate of the default tier (docs/codec.md, "How
// the encoder chooses"): the input as one chunk in its primary transform,
// each stream also tried as one zstd frame with long-distance matching whose
// window spans the stream. It finds what chunked per-byte models cannot: a
// mantissa sequence or an exponent pattern repeated far apart (RNN gate
// tables, STFT bases, weights upcast from fp16), the redundancy PyPI z4ai
// 0.2.0's whole-buffer planes exploit. Plain Z4AI frames: nothing new to
// decode.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/entropy/entropy.h"
#include "z4ai/codec.h"

namespace z4ai::detail {

// Stream coder behind EntropyPolicy::whole_stream_lz: encode_best's choice,
// replaced by zstd with long-distance matching over the whole stream (at
// level 1 and at the policy level) when that is smaller.
Method encode_long_stream(std::span<const uint8_t> in, const EntropyPolicy& policy, std::vector<uint8_t>& out);

// Whether encode_long_stream tries its zstd frames on `in`: always on streams
// up to 128 KiB, else when 64-byte blocks recur far apart or zstd codes four
// spread windows below their order-0 entropy (matches paid). A heuristic
// gate on a candidate: the stream keeps encode_best's coding without them.
bool lz_may_pay(std::span<const uint8_t> in);

// Whether the one-chunk candidate is built for `data`: typed inputs up to
// 2 MiB (small models, where it is cheap).
bool long_stream_candidate_applies(std::span<const uint8_t> data, DType dtype);

}  // namespace z4ai::detail
