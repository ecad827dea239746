// Z4DM (model-aware delta) frame layout, docs/codec.md:
//   "Z4DM" | u8 version (1) | 3 reserved bytes (0) | u64 hlen | hlen bytes
//   target JSON header | u64 data_len | u64 base data_len | u64 XXH3-64 of the
//   base data buffer | u32 n | n entries tiling [0, data_len) in order:
//     u16 name_len, name, u64 dest_begin, u64 dest_end, u8 kind,
//     COPY: u64 base_begin | DELTA: u64 base_begin, u64 base_end, u64 len,
//     Z4XD frame | FULL: u64 len, Z4AI/ZARA frame
//   | u64 XXH3-64 of every preceding byte of the frame.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ztensor/status.h"

namespace z4ai::detail {

inline constexpr uint8_t kMagicModelDelta[4] = {'Z', '4', 'D', 'M'};
inline constexpr uint8_t kModelDeltaVersion = 1;
inline constexpr size_t kModelDeltaTrailerBytes = 8;
// Smallest entry: u16 name_len + two u64 + u8 kind + u64 (COPY). Bounds the
// declared entry count by the bytes present before anything is reserved.
inline constexpr size_t kModelDeltaMinEntryBytes = 2 + 16 + 1 + 8;

enum class ModelDeltaKind : uint8_t { copy = 0, delta = 1, full = 2 };

struct ModelDeltaEntry {
  std::string name;  // "" for bytes between tensors
  uint64_t dest_begin = 0, dest_end = 0;
  ModelDeltaKind kind = ModelDeltaKind::full;
  uint64_t base_begin = 0, base_end = 0;  // COPY / DELTA
  std::span<const uint8_t> frame;         // DELTA / FULL
};

struct ModelDeltaLayout {
  std::span<const uint8_t> header;  // verbatim target JSON
  uint64_t data_len = 0, base_data_len = 0, base_digest = 0;
  std::vector<ModelDeltaEntry> entries;
  // Written by PyPI z4ai 0.x (decode only): entries name their base tensor
  // instead of base spans, base_data_len is 0 and base_digest holds the first
  // 8 bytes of a BLAKE2b of the base data, big-endian (no trailer digest).
  bool pypi_layout = false;
};

// Checks magic, version, trailer digest, every length and span and each inner
// frame's declared size; never allocates more than the frame's own size.
// Also reads the PyPI z4ai 0.x layout (pypi_layout).
zt::Result<ModelDeltaLayout> parse_model_delta(std::span<const uint8_t> frame);

}  // namespace z4ai::detail
