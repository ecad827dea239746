// zstd for component blobs: bounded decoding and streaming encoding.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "ztensor/status.h"

namespace zt {

// Decodes `stored` into exactly `out.size()` bytes. Output that would pass
// that size, or stop short of it, is an error (length_mismatch); a stream
// that does not decode is corrupt_stream. `ctx` names the component.
Status zstd_decode_exact(std::span<const uint8_t> stored, std::span<uint8_t> out, const std::string& ctx);

// Checks a declared decoded size against what `stored` can produce, before
// anything is allocated: it must equal the frame content size where the
// frame headers state it, and not pass ZSTD_decompressBound otherwise
// (length_mismatch). A stream whose headers do not parse is corrupt_stream.
Status zstd_check_declared(std::span<const uint8_t> stored, uint64_t declared, const std::string& ctx);

// Size of the decoded stream when the frame headers state it, else 0 with
// ok=false. Used for v1.1/v0.1 blobs without uncompressed_length.
Result<uint64_t> zstd_decoded_size(std::span<const uint8_t> stored, uint64_t cap, const std::string& ctx);

// Compresses `in` at `level`, handing compressed pieces to `sink` as they
// are produced, so memory stays bounded by one output chunk.
Status zstd_encode_stream(std::span<const uint8_t> in, int level,
                          const std::function<Status(std::span<const uint8_t>)>& sink, const std::string& ctx);

}  // namespace zt
