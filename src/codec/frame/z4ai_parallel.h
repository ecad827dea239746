// The chunk-parallel driver of Z4AI/ZARA frames (z4ai_parallel.cc): chunks
// coded and decoded on worker threads, the bytes the same for any count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "codec/frame/frame_format.h"
#include "codec/frame/z4ai_plan.h"
#include "z4ai/codec.h"
#include "ztensor/status.h"

namespace z4ai::detail {

// Workers for `bytes` of data: at most `threads` (0: every core), one per
// kMinBytesPerWorker.
unsigned workers_for(uint64_t bytes, unsigned threads);

// A candidate chunked frame built beside the one written (the primary frame
// beside a repeat frame, the long-stream frame): header + length table, then
// the bodies; put_frame copies it out when it is the smaller.
struct ChunkedFrame {
  std::vector<uint8_t> head;
  std::vector<std::vector<uint8_t>> bodies;
  size_t size = 0;
  void write(uint8_t* dst) const {
    std::memcpy(dst, head.data(), head.size());
    dst += head.size();
    for (const auto& b : bodies) {
      if (!b.empty()) std::memcpy(dst, b.data(), b.size());
      dst += b.size();
    }
  }
};

inline size_t chunk_count(size_t size, uint32_t chunk_bytes) { return size_t((size + chunk_bytes - 1) / chunk_bytes); }

// Chunk i of `data` in chunks of `chunk_bytes`.
inline std::span<const uint8_t> chunk_input(std::span<const uint8_t> data, uint32_t chunk_bytes, size_t i) {
  const size_t off = size_t(uint64_t(i) * chunk_bytes);
  return data.subspan(off, std::min<size_t>(chunk_bytes, data.size() - off));
}

// The chunk coder's options for `data` under `plan`; `ranking` holds the
// shared transform ranking the options point to.
ChunkEncodeOptions chunk_options(std::span<const uint8_t> data, DType dtype, const Plan& plan, unsigned threads,
                                 std::vector<uint8_t>& ranking);

// Every chunk of `data` coded under `plan` on up to `threads` workers; the
// header's digest is left 0 for the caller to patch in.
ChunkedFrame build_chunked(std::span<const uint8_t> data, DType dtype, const Plan& plan, unsigned threads);

// build_chunked's frame written into `out` (cleared first) as it is coded:
// the header and chunk table are reserved at the front and filled in last;
// the workers take chunks in order and each body is appended once the ones
// before it are, no worker running more than a few chunks ahead of the last
// placed one. Memory holds those few bodies, not the frame. The digest is
// left 0 for the caller to patch in (kFrameDigestOffset); false when `out`
// cannot take the bytes. The frame's bytes are build_chunked's.
bool write_chunked(std::span<const uint8_t> data, DType dtype, const Plan& plan, unsigned threads,
                   FrameBuffer& out);

// `frame` (a candidate built apart) replaces what `out` holds.
bool put_frame(const ChunkedFrame& frame, FrameBuffer& out);
bool put_frame(std::span<const uint8_t> frame, FrameBuffer& out);

// Decodes a mode 0 or 1 frame whose header and chunk table were checked
// (check_frame_body) into `out` (h.original_length bytes).
zt::Status decode_frame(std::span<const uint8_t> frame, const FrameHeader& h, std::span<uint8_t> out,
                        unsigned threads);

}  // namespace z4ai::detail
