// PyPI z4ai 0.2.0's rANS stream layouts (docs/codec.md, methods 9 and 10;
// pypi_rans.cc has the byte layout). Our frames use its order-0 layouts as
// stream methods 9 and 10, so the decoders live with the other stream
// coders; the order-1 "R1" layout appears only in PyPI's own frames.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ztensor/status.h"

namespace z4ai::detail {

// Facts of PyPI z4ai's order-0 rANS layouts, shared by their decoder
// (pypi_rans.cc) and our encoders of them (rans14_encode.cc,
// rans14_adaptive.cc): 14-bit frequencies, 4 interleaved 32-bit states that
// renormalise a byte at a time below kRans14Low (also the start and final
// state), a u64 head whose bit 62 marks the adaptive layout, whose tables
// cover 64 KiB slices.
inline constexpr int kRans14ScaleBits = 14;
inline constexpr uint32_t kRans14Low = 1u << 23;
inline constexpr size_t kRans14Lanes = 4;
inline constexpr uint64_t kRans14AdaptiveFlag = uint64_t{1} << 62;
inline constexpr uint64_t kRans14AdaptiveSlice = uint64_t{1} << 16;

// PyPI z4ai's rANS coders (pypi_rans.cc): order-0 with one shared table
// (plain or split into parallel chunks), order-0 with a table per 64 KiB
// chunk (adaptive), and order-1 ("R1"). Each produces exactly out.size().
// Before allocating n bytes for an order-0 (kind 0) or adaptive (kind 1)
// stream: length_mismatch when its coded bytes cannot produce n symbols.
zt::Status check_legacy_rans_declared(uint8_t kind, std::span<const uint8_t> in, uint64_t n);
// The same for an order-1 ("R1") stream, from the largest model frequency.
zt::Status check_legacy_rans1_declared(std::span<const uint8_t> in, uint64_t n);
zt::Status decode_legacy_rans0(std::span<const uint8_t> in, std::span<uint8_t> out);
zt::Status decode_legacy_rans_adaptive(std::span<const uint8_t> in, std::span<uint8_t> out);
zt::Status decode_legacy_rans1(std::span<const uint8_t> in, std::span<uint8_t> out);

}  // namespace z4ai::detail
