// The 14-bit order-0 rANS decoder of methods 9 and 10 (pypi_rans.cc has the
// byte layout): four interleaved states per stream, read forward a byte at a
// time. Each state's steps form a chain of dependent loads and a multiply,
// so one stream keeps a core's units a quarter busy; the two-stream form
// decodes two independent streams (PyPI's slices, method 10's 64 KiB slices)
// in one loop, eight chains at once. Both give the same bytes and verdicts.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

#include "codec/entropy/pypi_rans.h"
#include "ztensor/status.h"

namespace z4ai::detail {

// Renormalisation of a byte-wise rANS state (PyPI's order-0 and order-1
// layouts) by its top set bit r, for a state in [2^7, 2^31): take[r] bytes
// (0, 1 or 2) bring it back to [2^23, 2^31), and shifting (x << 16 | next
// two bytes) right by shift[r] = 16 - 8 * take[r] takes them in, without a
// branch. Tables, not arithmetic on r: the step's longest chain stays short.
struct ByteRenorm {
  uint8_t take[32], shift[32];
};
inline constexpr ByteRenorm kByteRenorm = [] {
  ByteRenorm t{};
  for (int r = 0; r < 32; ++r) {
    t.take[r] = uint8_t(r >= 23 ? 0 : r >= 15 ? 1 : 2);
    t.shift[r] = uint8_t(16 - 8 * t.take[r]);
  }
  return t;
}();
// p[0] and p[1] must be readable; p advances by the bytes taken.
inline uint32_t renorm_bytewise(uint32_t x, const uint8_t*& p) {
  const unsigned r = 31 ^ unsigned(__builtin_clz(x));
  uint16_t next;  // big-endian: one load and a rotate, not two byte loads
  std::memcpy(&next, p, 2);
  const uint64_t wide = uint64_t(x) << 16 | __builtin_bswap16(next);
  p += kByteRenorm.take[r];
  return uint32_t(wide >> kByteRenorm.shift[r]);
}

// The same renormalisation with the bounds checked, for a stream's last
// symbols: reads forward a byte at a time; running past the end sets overrun
// (corruption) and returns 2^23.
struct StateReader {
  const uint8_t* p;
  const uint8_t* end;
  bool overrun = false;
  uint32_t renorm(uint32_t x) {
    while (x < kRans14Low) {
      if (p >= end) {
        overrun = true;
        return kRans14Low;
      }
      x = x << 8 | *p++;
    }
    return x;
  }
};

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
// [2^23, 2^31), the bytes run out, a state does not end at 2^23, or bytes
// are left after the last symbol.
zt::Status decode_rans14_stream(std::span<const uint8_t> in, const Rans14Model& m, std::span<uint8_t> out);
// Two streams at once, each as decode_rans14_stream (a and b may share a
// model; outputs must not overlap). The first failing stream's error.
zt::Status decode_rans14_streams2(std::span<const uint8_t> in_a, const Rans14Model& m_a, std::span<uint8_t> out_a,
                                  std::span<const uint8_t> in_b, const Rans14Model& m_b, std::span<uint8_t> out_b);

}  // namespace z4ai::detail
