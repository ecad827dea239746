// Entropy coders for one stream. Encoders append to `out` and return false
// when they cannot encode (the caller then stores the stream). Decoders must
// produce exactly out.size() bytes or return corrupt_stream.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "z4ai/codec.h"
#include "ztensor/status.h"

namespace z4ai::detail {

enum class Method : uint8_t {
  stored = 0,
  zstd = 1,
  rans0 = 2,   // htscodecs rANS 4x16 order-0
  rans1 = 3,   // htscodecs rANS 4x16 order-1
  brotli = 4,  // ZARA only
  arith0 = 5,  // htscodecs adaptive arithmetic order-0, ZARA only
  arith1 = 6,  // htscodecs adaptive arithmetic order-1, ZARA only
  rans_blocks = 7,  // per-block stored/rANS (entropy_blocks.cc)
  rans_segments = 8,  // per-segment stored/rANS, ZARA only (entropy_segments.cc)
  rans0_14 = 9,       // 4-way rANS order-0 with 14-bit frequencies (rans14.h)
  rans0_14_adaptive = 10,  // the same, one table per 64 KiB slice (rans14_adaptive.h)
};
inline constexpr uint8_t kMethodCount = 11;

// Streams at least this long get zstd long-distance matching and a window
// covering the whole stream ("zstd with long-distance matching, so repeats
// anywhere in a large buffer are found").
inline constexpr size_t kZstdLdmMinBytes = size_t{8} << 20;
// rANS/arith/brotli take 32-bit sizes; chunks are far below this.
inline constexpr size_t kMaxStreamBytes = size_t{1} << 30;

bool encode_zstd(std::span<const uint8_t> in, int level, std::vector<uint8_t>& out);
// zstd with long-distance matching and a window over all of `in`, whatever
// its size. literal_bias throttles the short-range matcher (see
// entropy_zstd.cc): for streams whose only redundancy is long copies.
// Returns false (and leaves `out` as it was) when the frame would exceed
// max_bytes.
bool encode_zstd_long(std::span<const uint8_t> in, int level, bool literal_bias, std::vector<uint8_t>& out,
                      size_t max_bytes = SIZE_MAX);
// zstd at `level` with nothing else set (what ZSTD_compress(level) writes),
// straight into `out`, which must hold zstd_bound(in.size()) bytes: returns
// the frame's length (0 only if zstd fails). For layouts that must match
// other writers byte for byte (Z4AIMF01). Less room is refused: zstd fails a
// frame that ends a few bytes inside a tight buffer, or stores a block raw
// that it would have coded, so the frame would differ from ZSTD_compress's.
size_t encode_zstd_plain_into(std::span<const uint8_t> in, int level, std::span<uint8_t> out);
// ZSTD_compressBound: the room zstd needs to finish any frame of n bytes.
size_t zstd_bound(size_t n);
// x32: 32-way interleaving even below 64 KiB (112 more bytes of state, but
// its SIMD decoder is several times faster than the 4-way one).
bool encode_rans(std::span<const uint8_t> in, int order, std::vector<uint8_t>& out, bool x32 = false);
bool encode_arith(std::span<const uint8_t> in, int order, std::vector<uint8_t>& out);
bool encode_brotli(std::span<const uint8_t> in, int quality, int lgwin, std::vector<uint8_t>& out);

// Best block size for blocked rANS and its estimated coded size (log2 = 0:
// the stream is too short to split).
struct BlockPlan {
  int log2;
  double estimate;
};
BlockPlan plan_blocks(std::span<const uint8_t> in);
// Histograms of consecutive 16 KiB blocks (256 counters each), and the plan
// from them; stream statistics reuse the same pass.
std::vector<uint32_t> block_histograms(std::span<const uint8_t> in);
BlockPlan plan_blocks(const std::vector<uint32_t>& block_hist, size_t size);
// try_order1: each block of 64 KiB or more also tries rANS order-1 (the
// format always allowed it) and keeps the smaller.
bool encode_rans_blocks(std::span<const uint8_t> in, int log2, std::vector<uint8_t>& out, bool try_order1 = false);
// Segments cut where the statistics change (one tensor's exponents), each
// rANS order 0 or 1 or stored.
bool encode_rans_segments(std::span<const uint8_t> in, std::vector<uint8_t>& out);

zt::Status decode_zstd(std::span<const uint8_t> in, std::span<uint8_t> out);
// Before allocating `declared` bytes for a zstd stream: length_mismatch when
// its frame and block headers show it cannot produce that many (a frame's
// declared size must be producible by the bytes it stores), corrupt_stream
// when those headers are malformed. Decodes nothing.
zt::Status check_zstd_produces(std::span<const uint8_t> in, uint64_t declared);
zt::Status decode_rans(std::span<const uint8_t> in, std::span<uint8_t> out);
// One part of a blocked or segmented rANS stream (its method: stored, rANS
// order 0 or order 1).
struct SubStream {
  uint8_t method = 0;
  uint64_t raw_len = 0;
  std::span<const uint8_t> payload;
};
// A part's method must be one of those three and its bytes able to produce
// its raw length (check_stream_produces); `what` names the part in errors.
zt::Status check_substream(const SubStream& part, const char* what);
// Decodes the parts in order into `out`, which they tile.
zt::Status decode_substreams(std::span<const SubStream> parts, std::span<uint8_t> out);
zt::Status decode_arith(std::span<const uint8_t> in, std::span<uint8_t> out);
zt::Status decode_brotli(std::span<const uint8_t> in, std::span<uint8_t> out);
zt::Status decode_rans_blocks(std::span<const uint8_t> in, std::span<uint8_t> out);
zt::Status decode_rans_segments(std::span<const uint8_t> in, std::span<uint8_t> out);

// Which coders the selector may try, and how hard.
struct EntropyPolicy {
  int zstd_level = 3;
  // Encode every candidate instead of estimating (ZARA): rANS order 0/1,
  // blocked rANS, and zstd when a sample at the level beats them. No arithmetic or brotli coding: those decoded at
  // 30-130 MB/s; their decoders stay for older ZARA frames.
  bool exhaustive = false;
  // exhaustive: also blocked rANS with order-1 blocks at two block sizes
  // (max; the slowest candidates to encode, 30-130 MB/s).
  bool order1_blocks = false;
  bool zstd_everywhere = false;  // also try zstd on noise-like streams (long repeats)
  // The input has long-range repeats: encode_best hands every stream to
  // encode_repeat_stream (repeat_path.h).
  bool long_repeats = false;
  // The default tier's one-chunk candidate: encode_best hands every stream
  // to encode_long_stream (long_stream_path.h).
  bool whole_stream_lz = false;
  // With whole_stream_lz: also method 10, a 14-bit table per 64 KiB slice
  // (set for fp16, whose high byte plane it fits; rans14_adaptive.h).
  bool slice_tables = false;
  // Lean path: the exponent stream also tries rANS order-1 (set per input by
  // lean_order1_pays, lean_order1.h).
  bool lean_order1 = false;
};

// Estimated coded size of `in` in bytes (order-0/1 entropy, capped at the
// stored size); used to rank transforms without encoding them.
double estimate_coded_size(std::span<const uint8_t> in);

// Order-0 bits per byte of `in` on a few spread runs (4 KiB in all): a cheap
// guess at which streams code largest, not a size estimate.
double sampled_bits_per_byte(std::span<const uint8_t> in);

// Encodes `in` with the smallest candidate (never larger than stored) and
// appends the payload to `out`; returns the method used.
Method encode_best(std::span<const uint8_t> in, const EntropyPolicy& policy, std::vector<uint8_t>& out);

// Effort fast on field-split floats. An exponent stream goes straight to
// rANS order-0; any other stream is stored when a sampled histogram says it
// is noise (the usual mantissa) and otherwise gets encode_best's search.
// other_bytes: the chunk's other streams' coded size as estimated from a
// sample (an exponent coding that decodes slower must save a share of the
// whole chunk, not just of its stream).
Method encode_lean(std::span<const uint8_t> in, bool exponent, const EntropyPolicy& policy,
                   std::vector<uint8_t>& out, size_t other_bytes = 0);

// Before a stream of `raw_len` bytes is decoded or any output touched: its
// bytes must be able to produce it (length_mismatch or corrupt_stream when
// not). Stored: exactly raw_len bytes; zstd: frame and block headers that
// can produce it; htscodecs rANS: the flags we write and the declared size;
// blocked and segmented rANS: block tables that tile it, each block checked
// the same way; 14-bit rANS (methods 9, 10): the declared size, and bytes
// enough for that many symbols of its table; arithmetic (methods 5, 6, ZARA
// only): as htscodecs rANS. Brotli (method 4, ZARA only, which no encoder
// writes any more) declares no size before its payload: it passes, and
// stream_checkable() says so. Decodes nothing.
zt::Status check_stream_produces(uint8_t method, bool allow_context_coders, std::span<const uint8_t> in,
                                 uint64_t raw_len);
// The parts of check_stream_produces per layout.
zt::Status check_rans_declared(std::span<const uint8_t> in, uint64_t n);
zt::Status check_arith_declared(std::span<const uint8_t> in, uint64_t n);
// False for the methods check_stream_produces cannot hold to their raw
// length from headers alone (brotli).
inline bool stream_checkable(uint8_t method) { return method != uint8_t(Method::brotli); }
zt::Status check_rans_blocks(std::span<const uint8_t> in, uint64_t n);
zt::Status check_rans_segments(std::span<const uint8_t> in, uint64_t n);

// Decodes a stream coded with `method` into exactly out.size() bytes.
// `allow_context_coders` is false for Z4AI frames (methods 4..6 and 8 are ZARA only).
zt::Status decode_stream(uint8_t method, bool allow_context_coders, std::span<const uint8_t> in,
                         std::span<uint8_t> out);

}  // namespace z4ai::detail
