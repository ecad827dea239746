// Paired field split (transform 4, bf16 and fp32): the field split with the
// 8-bit exponent coded as 4-bit symbols, two per byte. Exponents of one
// chunk of weights span a few binades, so a 15-value window plus an escape
// covers >99.9 % of them; the rANS decoder then decodes half as many
// symbols, and a pair symbol carries the correlation of neighbours.
//   stream 0: base exponent (1 byte), then the escaped exponents in order
//   stream 1: ceil(n/2) nibble pairs (sym = exp - base; 15 = escape)
//   streams 2..: sign+mantissa streams exactly as in the field split
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "z4ai/codec.h"
#include "ztensor/status.h"

namespace z4ai::detail {

// Streams for dtype (0: the transform does not apply).
uint32_t paired_stream_count(DType dtype);

// The 15-value exponent window holding most of a sample of the chunk; false
// when more than kMaxEscapeShare of the sample falls outside it (the plain
// field split then codes the chunk better).
bool choose_pair_base(const uint8_t* src, size_t n, DType dtype, uint8_t& base);

// Writes streams 1.. and the escapes (after the base) of stream 0; returns
// the escape count. `escapes` needs room for n bytes.
size_t paired_split(DType dtype, const uint8_t* src, size_t n, uint8_t base, uint8_t* escapes,
                    uint8_t* const* streams);

// Checks the declared stream lengths against n, before anything is decoded
// (stream 0: the base plus at most n escapes).
zt::Status check_paired_lengths(DType dtype, const uint32_t* raw_lens, size_t n);
// Checks the escape count against the pairs, then merges into dst (n
// elements). The lengths must have passed check_paired_lengths.
zt::Status paired_merge(DType dtype, const uint8_t* const* streams, uint32_t escape_stream_len, size_t n,
                        uint8_t* dst);

// Byte length of stream `i` for n elements (stream 0 varies: not checked here).
inline size_t paired_stream_length(uint32_t i, size_t n) { return i == 1 ? (n + 1) / 2 : n; }

}  // namespace z4ai::detail
