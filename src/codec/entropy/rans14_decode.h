// The 14-bit order-0 rANS decoder of methods 9 and 10 (pypi_rans.cc has the
// byte layout): four interleaved states per stream, read forward a byte at a
// time. Each state's steps form a chain of dependent loads and a multiply,
// so one stream keeps a core's units a quarter busy; the two-stream form
// decodes two independent streams (PyPI's slices, method 10's 64 KiB slices)
// in one loop, eight chains at once. Both give the same bytes and verdicts.
#pragma once

#include <cstdint>
#include <span>

#include "ztensor/status.h"

namespace z4ai::detail {

// One frequency table: slot -> symbol for the 2^14 slots, each symbol's
// frequency and cumulative start. Inline arrays, so a decode loop needs one
// base register per table.
struct Rans14Model {
  uint16_t freq[256];
  uint16_t cum[256];
  uint8_t slot[1u << 14];
};

// From 256 little-endian u16 frequencies; corrupt_stream unless they sum to 2^14.
zt::Status build_rans14_model(const uint8_t* table, Rans14Model& m);

// Decodes exactly out.size() symbols of one stream (4 u32 states, then the
// renormalisation bytes). corrupt_stream when a state starts outside
// [2^23, 2^31), the bytes run out, or a state does not end at 2^23.
zt::Status decode_rans14_stream(std::span<const uint8_t> in, const Rans14Model& m, std::span<uint8_t> out);
// Two streams at once, each as decode_rans14_stream (a and b may share a
// model; outputs must not overlap). The first failing stream's error.
zt::Status decode_rans14_streams2(std::span<const uint8_t> in_a, const Rans14Model& m_a, std::span<uint8_t> out_a,
                                  std::span<const uint8_t> in_b, const Rans14Model& m_b, std::span<uint8_t> out_b);

}  // namespace z4ai::detail
