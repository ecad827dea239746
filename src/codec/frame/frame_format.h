// Z4AI / ZARA frame header (docs/codec.md). Both frames share one layout;
// ZARA additionally allows the context coders (brotli, arithmetic).
//
//   0  "Z4AI" | "ZARA"      4 bytes
//   4  u8  version (2)
//   5  u8  dtype code (z4ai::DType)
//   6  u8  mode: 0 = chunked streams, 1 = whole-buffer zstd
//   7  u8  reserved (0)
//   8  u64 original length
//  16  u64 XXH3-64 of the decoded bytes
//  24  u32 chunk bytes (mode 0: a power of two; 0 in mode 1)
//  28  u32 chunk count (mode 0; 0 in mode 1)
//  32  mode 0: u32 body length per chunk, then the bodies back to back
//      mode 1: one zstd frame up to the end of the frame
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "z4ai/codec.h"
#include "ztensor/status.h"

namespace z4ai::detail {

inline constexpr uint8_t kMagicZ4ai[4] = {'Z', '4', 'A', 'I'};
inline constexpr uint8_t kMagicZara[4] = {'Z', 'A', 'R', 'A'};
// Version 1 is the PyPI z4ai 0.x frame, which shares the "Z4AI" magic but
// not the layout; ours starts at 2 so such frames fail with a clear message.
inline constexpr uint8_t kFrameVersion = 2;
inline constexpr size_t kFrameHeaderBytes = 32;
// Where the XXH3-64 sits in the header (patched in after the coding).
inline constexpr size_t kFrameDigestOffset = 16;

enum class FrameMode : uint8_t { chunked = 0, whole_zstd = 1 };

// "chunk size ... fixed": at most 4 MiB of data per chunk for effort fast
// (the lean float path uses 256 Ki elements, z4ai_plan.cc), larger for the
// context coders, which learn better on more data.
inline constexpr uint32_t kChunkBytesFast = 4u << 20;
inline constexpr uint32_t kChunkBytesBalanced = 8u << 20;
inline constexpr uint32_t kChunkBytesMax = 8u << 20;
// Decoders reject chunks over 256 MiB: bounds per-chunk scratch memory.
inline constexpr uint32_t kMaxChunkBytes = 256u << 20;

// The smallest body a non-empty chunk can have: transform id, tail length,
// stream count and one 9-byte stream table entry (u8 method, u32 raw length,
// u32 coded length; docs/codec.md).
inline constexpr uint32_t kMinChunkBodyBytes = 3 + 9;

struct FrameHeader {
  bool zara = false;
  DType dtype = DType::opaque;
  FrameMode mode = FrameMode::chunked;
  uint64_t original_length = 0;
  uint64_t digest = 0;
  uint32_t chunk_bytes = 0;
  uint32_t n_chunks = 0;
};

void write_frame_header(const FrameHeader& h, uint8_t* out);
// Validates magic, version, dtype, mode, reserved byte and the size limits.
zt::Result<FrameHeader> read_frame_header(std::span<const uint8_t> frame);
// "Frames declare, the decoder checks", before any output is allocated: in
// mode 0 every chunk's coded length fits in the bytes left, each is at least
// kMinChunkBodyBytes and together they end exactly at the frame's end, and
// every chunk passes check_chunk (its stream table against its bytes); in
// mode 1 the zstd frame's own headers must be able to produce the declared
// length. What is left (the coded content itself) is found chunk by chunk.
zt::Status check_frame_body(std::span<const uint8_t> frame, const FrameHeader& h);
// The mode 0 part of it for a reader holding only the chunk length table:
// the lengths must tile `body_bytes` (the frame after header and table).
zt::Status check_chunk_table(std::span<const uint8_t> table, uint64_t body_bytes);

// compress() of a large input handed to `sink` in pieces, holding a group of
// chunk bodies instead of the frame: the chunks are coded twice (once for
// the lengths the table needs, once to emit), so it costs twice the coding
// time and is meant for inputs too large to hold. The bytes are exactly
// compress()'s. false (nothing written) when the frame would have a single
// chunk or the input is small enough to build the long-stream candidate
// (long_stream_path.h); a winning whole-buffer zstd frame is emitted whole.
zt::Result<bool> compress_streamed(std::span<const uint8_t> data, const CompressOptions& options,
                                   const std::function<zt::Status(std::span<const uint8_t>)>& sink);

}  // namespace z4ai::detail
