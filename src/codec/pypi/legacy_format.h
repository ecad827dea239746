// Frames written by PyPI z4ai 0.2.0 (docs/codec.md, "Reading PyPI z4ai
// frames"): decode only, never written. Layouts, all little-endian:
//
// Z4AI v1 (z4ai.compress, default effort):
//   "Z4AI" u8 1 | u8 flags | u8 transform (0 opaque, 1 byte planes, 2 field
//   split) | u8 width | u8 n_streams | u8 len + numpy dtype | u8 len + field
//   spec name | u8 ndim + ndim u64 shape | u32 tail_len + tail | streams
// ZARA v1 (effort balanced/max): as Z4AI v1 but the spec name comes before a
//   u64 element count and the numpy dtype after it; transform 3 is the field
//   split with the mantissa bit-packed.
//   stream: u8 method | u64 decoded length | u64 coded length | payload
// ZSP1 (sparse): "ZSP1" u8 1 | u8 width | u8 flags | pad | u64 count | u64 nnz
//   | u32 tail_len | u8 dtype_len | u8 ndim | dtype | shape | tail | u64
//   bitmap_len + zstd(packbits(value != 0)) | ZRT1 frame of the nonzero values
// ZRT1: "ZRT1" u8 2 | u8 width | u64 length | u8 transform (0 one stream,
//   1 byte planes) | u8 n_streams | streams (methods store/zstd only)
// ZPL1 (palette): "ZPL1" u8 1 | u8 width | u8 flags | u8 index width | u64
//   count | u32 k | u32 tail_len | u8 dtype_len | u8 ndim | dtype | shape |
//   tail | u32 codebook_len + zstd(k values) | zstd(count indices)
// None carries a checksum: a damaged frame that still parses decodes to
// wrong bytes, as it does in PyPI z4ai.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/delta/model_delta_format.h"
#include "ztensor/status.h"

namespace z4ai::detail {

// The version byte PyPI z4ai 0.x writes after "Z4AI"/"ZARA" (ours is 2).
inline constexpr uint8_t kLegacyFrameVersion = 1;
inline constexpr uint8_t kMagicSparse[4] = {'Z', 'S', 'P', '1'};
inline constexpr uint8_t kMagicPalette[4] = {'Z', 'P', 'L', '1'};
inline constexpr uint8_t kMagicTurbo[4] = {'Z', 'R', 'T', '1'};
inline constexpr uint8_t kTurboVersion = 2;
inline constexpr uint8_t kSparseVersion = 1;
inline constexpr uint8_t kPaletteVersion = 1;

// True for the PyPI z4ai 0.x frames above (not Z4AIMF01, which is shared).
bool is_legacy_frame(std::span<const uint8_t> bytes);
// "PyPI z4ai 0.x Z4AI v1" etc., for messages and `zt info`.
const char* legacy_layout_name(std::span<const uint8_t> frame);

// Parses the whole frame and checks every declared length against the bytes
// stored (a stored stream holds exactly its length, a zstd stream's headers
// can produce it) without decoding; returns the decoded length.
zt::Result<uint64_t> legacy_decoded_length(std::span<const uint8_t> frame);
// Decodes into `out`, which must be exactly legacy_decoded_length() bytes.
zt::Status decode_legacy_into(std::span<const uint8_t> frame, std::span<uint8_t> out);

// A parsed frame (legacy_parse.cc): every length below is checked against
// the bytes stored; decode_legacy_into (legacy_decode.cc) trusts it.
enum class LegacyKind : uint8_t { z4ai, zara, sparse, palette };
// Stream coders per family. Z4AI v1: 0 store, 1 zstd, 2 zstd blocks, 3 rANS
// order-0, 4 rANS adaptive, 5 rANS order-1. ZARA v1: 0 store, 1 zstd,
// 2 brotli, 3 rANS order-0, 4 brotli blocks. ZRT1: 0 store, 1 zstd.
struct LegacyStream {
  uint8_t method = 0;
  uint64_t length = 0;  // decoded
  std::span<const uint8_t> payload;
};
// IEEE-like layout of a field-split float ("float32", "float16", "bfloat16").
struct LegacyFloat {
  uint32_t total_bits = 0, exp_bits = 0, mantissa_bits = 0;
};
inline constexpr uint8_t kLegacyOpaque = 0, kLegacyPlanes = 1, kLegacyFields = 2, kLegacyPackedFields = 3;
struct LegacyFrame {
  LegacyKind kind = LegacyKind::z4ai;
  uint8_t transform = kLegacyOpaque;
  uint32_t width = 1;        // element width (byte planes, sparse, palette)
  LegacyFloat spec;          // field transforms
  uint64_t count = 0;        // elements (fields, sparse, palette)
  std::span<const uint8_t> tail;
  std::vector<LegacyStream> streams;
  // sparse: streams[0] is the zstd bitmap, the rest the ZRT1 value streams.
  uint64_t nnz = 0;
  uint8_t turbo_transform = kLegacyOpaque;
  // palette: streams[0] the zstd codebook (k values), streams[1] the indices.
  uint32_t k = 0;
  uint8_t index_width = 1;
  uint64_t decoded_length = 0;
};
zt::Result<LegacyFrame> parse_legacy(std::span<const uint8_t> frame);

// Z4DL (z4ai.compress_delta): "Z4DL" u8 2 | u8 flags | u16 reserved | u64
// reference length | 16-byte BLAKE2b of the reference | inner Z4AI v1/ZSP1/
// ZPL1 frame of current XOR reference (legacy_delta.cc).
inline constexpr uint8_t kMagicLegacyDelta[4] = {'Z', '4', 'D', 'L'};
inline constexpr uint8_t kLegacyDeltaVersion = 2;
inline constexpr size_t kLegacyDeltaHeaderBytes = 32;
bool is_legacy_delta(std::span<const uint8_t> bytes);
// Checks the header and that the inner frame decodes to the reference length.
zt::Result<uint64_t> legacy_delta_length(std::span<const uint8_t> frame);
zt::Status decode_legacy_delta_into(std::span<const uint8_t> frame, std::span<const uint8_t> reference,
                                    std::span<uint8_t> out);

// Z4DM v1 as PyPI writes it: "Z4DM" u8 1 | u64 hlen | target JSON | u64
// data_len | 8-byte BLAKE2b of the base data buffer | u32 n | n entries:
// u16 name_len, name, u64 begin, u64 end, u8 kind (0 full: u64 len + Z4AI
// v1 frame, 1 delta: u64 len + Z4DL frame against the base tensor of the same
// name, 2 copy of that base tensor). Ours puts 3 zero bytes after the version:
// here they are the low bytes of hlen, nonzero for any header under 16 MiB.
bool is_legacy_model_delta(std::span<const uint8_t> bytes);
// The frame as a ModelDeltaLayout (pypi_layout set), after checking every
// entry and inner frame.
zt::Result<ModelDeltaLayout> legacy_model_delta_layout(std::span<const uint8_t> frame);
zt::Status decode_legacy_model_delta_into(std::span<const uint8_t> frame, std::span<const uint8_t> base_st,
                                          std::span<uint8_t> out);

}  // namespace z4ai::detail
