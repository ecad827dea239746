// One chunk of a Z4AI/ZARA frame: a transform id, the tail bytes that do not
// fill an element, and the entropy-coded streams (layout in docs/codec.md).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/entropy/entropy.h"
#include "codec/transform/transforms.h"
#include "z4ai/codec.h"
#include "ztensor/status.h"

namespace z4ai::detail {

struct ChunkEncodeOptions {
  EntropyPolicy policy;
  bool auto_select = true;  // also rank byte planes / none / sparse
  bool allow_sparse = true;
  // When set (from rank_transforms on the whole input), chunks skip their
  // own sampling and try these (transform | sparse flag) ids in order.
  const std::vector<uint8_t>* ranking = nullptr;
  // Effort fast on floats without palette or sparse structure: the lean
  // transform and encode_lean per stream, no ranking or coder search.
  bool lean = false;
  // Effort fast when zstd beat every transform on a sample of the input
  // (dequantised weights: values repeat within a row, which only a matcher
  // sees): each chunk is its bytes as one zstd stream (transform none), no
  // ranking. Chunk-parallel both ways, unlike the whole-buffer frame.
  bool zstd_chunks = false;
  // The chunk stands in for auto_select=false's chunk of the same bytes, so
  // it also weighs that primary coding (encode_chunk). Off for frames that
  // are extra candidates or chunked differently (long-stream, repeat frames).
  bool primary_fallback = true;
  // With zstd_chunks: the auto_select=false plan these chunks fall back to
  // codes them lean (else with the primary transform and coder search).
  bool primary_lean = false;
  // A frame of one chunk (the repeat path's big chunk) codes its streams on
  // up to this many threads; the body is the same for any value.
  unsigned stream_threads = 1;
};

// True when `data` (a float dtype) shows no sign of palette, sparse or
// quantised structure on a sample, so every chunk can take the lean path.
bool lean_applies(std::span<const uint8_t> data, DType dtype);

// Ranks the candidate transforms (ids | kSparseFlag) for `data` by estimated
// size on a sample, best first. Small chunks of one input share one ranking:
// sampling each would cost as much as coding it.
std::vector<uint8_t> rank_transforms(std::span<const uint8_t> data, DType dtype, const ChunkEncodeOptions& options);

// `data` is one chunk: whole elements followed by at most width-1 tail bytes.
std::vector<uint8_t> encode_chunk(std::span<const uint8_t> data, DType dtype, const ChunkEncodeOptions& options);

// Checks one chunk body against its bytes before anything is decoded or any
// of its `out_bytes` of output touched: header and stream table, every raw
// length its transform fixes, and each stream able to produce its raw length
// (check_stream_produces). corrupt_stream / length_mismatch otherwise.
zt::Status check_chunk(std::span<const uint8_t> body, DType dtype, bool allow_context_coders, size_t out_bytes);

// Decodes one chunk body into exactly out.size() bytes, after check_chunk's
// checks; its coded streams on up to `stream_threads` threads (a frame of
// one chunk leaves cores idle). `prefault`: fault the output's pages in by
// one call once the checks pass (page_advice.h), unless a stream the checks
// cannot hold to its length (brotli) would have to fill them.
zt::Status decode_chunk(std::span<const uint8_t> body, DType dtype, bool allow_context_coders,
                        std::span<uint8_t> out, unsigned stream_threads = 1, bool prefault = false);

}  // namespace z4ai::detail
