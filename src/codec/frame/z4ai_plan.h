// Planning a Z4AI/ZARA frame (z4ai_plan.cc): the chunk size and the chunk
// coder's options, decided from the effort, the dtype and samples of the
// input, never from the thread count, so a frame is the same for any.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/frame/chunk_codec.h"
#include "codec/frame/frame_format.h"
#include "z4ai/codec.h"
#include "ztensor/status.h"

namespace z4ai::detail {

struct Plan {
  bool zara = false;
  uint32_t chunk_bytes = kChunkBytesFast;
  ChunkEncodeOptions chunk;
  // rank_transforms of the whole input when prepare() already ran it (the
  // probe windows), so chunk_options does not sample the input again.
  std::vector<uint8_t> input_ranking;
};


// What compress_to decides before coding: the dtype, the chunk plan and
// whether long-range repeats steer it to the repeat path.
struct Prepared {
  DType dtype = DType::opaque;
  Plan plan;
  // The auto_select=false plan. Without repeats `plan` uses the same chunks
  // and every auto chunk also weighs the primary coding of that chunk
  // (encode_chunk), so the auto frame is never larger; with repeats the
  // chunking differs and compress_to builds this frame as a candidate.
  Plan primary;
  bool repeats = false;
  // Build the one-chunk long-stream candidate too (long_stream_path.h).
  bool long_streams = false;
  // zstd_window_ratio of the input, when prepare() measured it (0: not yet).
  double zstd_windows = 0;
};

// Checks the options and plans the frame for `data`. invalid_argument for a
// bad dtype or level, limit_exceeded over kMaxFrameOriginalBytes.
zt::Result<Prepared> prepare(std::span<const uint8_t> data, const CompressOptions& o);

// zstd's ratio at `level` on the probe windows of `data` (a few spread
// spans, z4ai_plan.cc; 0 when zstd fails).
double zstd_window_ratio(std::span<const uint8_t> data, int level);
// The chunk coder's ratio on the same windows, each coded as a chunk with
// the transforms ranked on the whole input (stored in *ranking_out if set).
double chunk_window_ratio(std::span<const uint8_t> data, DType dtype, ChunkEncodeOptions o,
                          std::vector<uint8_t>* ranking_out = nullptr);

}  // namespace z4ai::detail
