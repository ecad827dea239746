// The Z4AIMF01 chunked codec: byte planes + zstd per fixed-size chunk,
// interoperable with the PyPI z4ai `z4ai.chunked` frames (layout in
// docs/codec.md and the z4ai API reference).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "z4ai/codec.h"
#include "ztensor/status.h"

namespace z4ai::chunked {

inline constexpr uint64_t kDefaultChunkSize = 2097152;  // "chunk_size=2097152"
inline constexpr int kDefaultLevel = 1;                 // zstd level of this path

struct Options {
  uint32_t width = 1;                     // element width for the transpose (1..255)
  int level = kDefaultLevel;              // zstd level
  unsigned threads = 0;                   // 0 = all cores
  uint64_t chunk_size = kDefaultChunkSize;  // bytes; rounded down to a multiple of width
};

// invalid_argument for width 0 or chunk_size 0.
zt::Result<std::vector<uint8_t>> compress(std::span<const uint8_t> data, const Options& options);

// The most bytes compress_into can need for `size` input bytes (every plane
// stored, plus headers): a little over `size`.
zt::Result<uint64_t> compressed_bound(uint64_t size, const Options& options);

// Writes the frame compress would return into `out` (at least
// compressed_bound bytes) and returns its length. Chunks are packed in order
// as they finish, so `out` is written only where the frame lands: an `out`
// from an untouched mapping (malloc of a large block) is paged in no further
// than the frame, and can be shrunk in place. Besides `out`, each thread
// holds one chunk of plane scratch and, past the first, one staging slot.
zt::Result<size_t> compress_into(std::span<const uint8_t> data, const Options& options, std::span<uint8_t> out);

// corrupt_stream / length_mismatch / limit_exceeded for malformed frames
// (every zstd plane's headers must be able to produce its declared elements,
// checked before the output is allocated); limit_exceeded for a decoded
// length over max_output.
zt::Result<std::vector<uint8_t>> decompress(std::span<const uint8_t> frame, unsigned threads = 0,
                                            uint64_t max_output = kNoOutputLimit);

// Same, into `out`, which must be exactly decoded_length(frame) bytes.
zt::Status decompress_into(std::span<const uint8_t> frame, std::span<uint8_t> out, unsigned threads = 0);

// Total decoded length, found by walking the chunk headers (no decoding).
zt::Result<uint64_t> decoded_length(std::span<const uint8_t> frame);

bool is_chunked_frame(std::span<const uint8_t> bytes);

}  // namespace z4ai::chunked
