// Named limits of the .zt reader and writer, each beside the spec sentence
// (ztensor-format-v1.2.md unless noted) or the threat it answers.
#pragma once

#include <cstdint>
#include <string_view>

namespace zt::limits {

// §4 "Magic Header (8 bytes) "ZTEN1000"" / v0.1 §3.1 ""ZTEN0001"".
inline constexpr std::string_view kMagicV1 = "ZTEN1000";
inline constexpr std::string_view kMagicV01 = "ZTEN0001";
inline constexpr uint64_t kMagicSize = 8;
// §4 "Manifest Size (8 bytes, uint64 LE)" + "Magic Footer (8 bytes)".
inline constexpr uint64_t kFooterSize = 16;
// v0.1 §3.3.2: the file ends with the u64 CBOR size, no footer magic.
inline constexpr uint64_t kFooterSizeV01 = 8;

// §4 "Every component blob starts at an offset divisible by 64."
inline constexpr uint64_t kAlignment = 64;

// §5 step 4 "If manifest_size > 1 GB, abort" (v1.1 names 1,073,741,824).
inline constexpr uint64_t kMaxManifestBytes = 1ull << 30;

// CBOR decoding limits: a manifest that nests 200,000 deep or claims 2^62
// items is an error, not a stack overflow or an unbounded allocation.
inline constexpr uint32_t kMaxCborDepth = 64;
// Decoded items in one manifest (~30 per dense object: ~500k objects).
inline constexpr uint64_t kMaxCborItems = 1ull << 24;
// One text or byte string (attributes may carry e.g. a tokenizer config).
inline constexpr uint64_t kMaxCborStringBytes = 256ull << 20;
// Dimensions of one shape.
inline constexpr uint64_t kMaxRank = 64;

// §5 "Decompression limits. When uncompressed_length is present, reject
// values exceeding a reasonable maximum before decompressing."
inline constexpr uint64_t kMaxUncompressedBytes = 1ull << 40;
// zstd's best case (RLE blocks) is ~2^15:1; a claim far past that from a
// tiny stream is a decompression bomb, refused before allocating.
inline constexpr uint64_t kMaxZstdExpansion = 1ull << 17;
inline constexpr uint64_t kZstdExpansionSlack = 1ull << 20;

}  // namespace zt::limits
