// XOR-delta frame header (docs/codec.md):
//   0 "Z4XD" | 4 u8 version (1) | 5 u8 mode (0 = inner frame is current ^
//   reference, 1 = inner frame is current itself) | 6 u16 reserved (0) |
//   8 u64 reference length | 16 u64 XXH3-64 of the reference |
//   24 u64 original length | 32 inner Z4AI or ZARA frame to the end.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "z4ai/codec.h"
#include "ztensor/status.h"

namespace z4ai::detail {

inline constexpr uint8_t kMagicDelta[4] = {'Z', '4', 'X', 'D'};
inline constexpr uint8_t kDeltaVersion = 1;
inline constexpr size_t kDeltaHeaderBytes = 32;

struct DeltaHeader {
  uint8_t mode = 0;
  uint64_t reference_length = 0;
  uint64_t reference_digest = 0;
  uint64_t original_length = 0;
};

zt::Result<DeltaHeader> read_delta_header(std::span<const uint8_t> frame);

// compress_delta with the standalone frame already made (`full_frame`, what
// compress(current, options) returns): the Z4DM encoder weighs that frame
// as its FULL entry too, so it is coded once per tensor, not twice.
zt::Result<std::vector<uint8_t>> compress_delta_given_full(std::span<const uint8_t> current,
                                                           std::span<const uint8_t> reference,
                                                           const CompressOptions& options,
                                                           std::span<const uint8_t> full_frame);

}  // namespace z4ai::detail
