// zstd stage. Contexts are cached per thread: creating one costs more than
// coding a small stream.
// ZSTD_getFrameHeader is in the static-only part of zstd.h (exported by the
// shared library as well).
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "codec/common/coding_work.h"
#include "codec/entropy/entropy.h"

namespace z4ai::detail {
namespace {

// zstd's largest window on 64-bit targets (ZSTD_WINDOWLOG_MAX_64).
constexpr int kMaxWindowLog = 31;
// encode_zstd_long: the window covers the whole stream (chunks are <= 256 MiB,
// so 2^28 suffices; 2^30 keeps a margin), never below zstd's minimum.
constexpr int kMinWindowLog = 10;  // ZSTD_WINDOWLOG_MIN
constexpr int kMaxLongWindowLog = 30;
// literal_bias: zstd's smallest hash table (ZSTD_HASHLOG_MIN) and the longest
// minimum match of its fast strategy (ZSTD_MINMATCH_MAX), both from the
// static-only part of zstd.h.
constexpr int kLiteralBiasHashLog = 6;
constexpr int kLiteralBiasMinMatch = 7;
// ... on top of level 1: a level whose own strategy is fast with target
// length 0. From a slower level, the fast strategy would inherit a nonzero
// target length, which makes zstd store literals raw (its negative-level rule).
constexpr int kLiteralBiasLevel = 1;

struct CCtxDeleter { void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); } };
struct DCtxDeleter { void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); } };

ZSTD_CCtx* thread_cctx() {
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> ctx(ZSTD_createCCtx());
  return ctx.get();
}

ZSTD_DCtx* thread_dctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> ctx([] {
    ZSTD_DCtx* d = ZSTD_createDCtx();
    // Encoders use windows up to the stream size (LDM); allow the maximum.
    if (d) ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, kMaxWindowLog);
    return d;
  }());
  return ctx.get();
}

int ceil_log2(size_t n) {
  int l = 0;
  while ((size_t{1} << l) < n && l < 62) ++l;
  return l;
}

// Room past max_bytes for zstd to finish a frame that ends within it. With
// less, zstd fails a frame that ends a few bytes inside the buffer (its bit
// writers keep spare bytes) or stores raw a block it would have coded, so the
// kept frames would depend on the room. Each block's coding needs at most its
// raw worst case beyond what it finally writes; one such block is this much.
constexpr size_t kFinishRoom = ZSTD_COMPRESSBOUND(ZSTD_BLOCKSIZE_MAX);

// Runs the configured context over `in`, appending the frame to `out`; fails
// when the frame exceeds max_bytes (a caller that would store the stream
// instead passes its length: `out` then never grows more than kFinishRoom
// past it, and zstd still gives up early on a stream far over it).
bool compress_into(ZSTD_CCtx* c, std::span<const uint8_t> in, std::vector<uint8_t>& out,
                   size_t max_bytes = SIZE_MAX) {
  const size_t base = out.size(), bound = ZSTD_compressBound(in.size());
  out.resize(base + (max_bytes >= bound ? bound : std::min(bound, max_bytes + kFinishRoom)));
  size_t r = ZSTD_compress2(c, out.data() + base, out.size() - base, in.data(), in.size());
  if (ZSTD_isError(r) || r > max_bytes) {
    out.resize(base);
    return false;
  }
  out.resize(base + r);
  return true;
}

}  // namespace

bool encode_zstd(std::span<const uint8_t> in, int level, std::vector<uint8_t>& out) {
  ZSTD_CCtx* c = thread_cctx();
  if (!c) return false;
  ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
  if (in.size() >= kZstdLdmMinBytes) {
    int wlog = ceil_log2(in.size());
    if (wlog > 30) wlog = 30;
    ZSTD_CCtx_setParameter(c, ZSTD_c_enableLongDistanceMatching, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, wlog);
  }
  return compress_into(c, in, out);
}

size_t zstd_bound(size_t n) { return ZSTD_compressBound(n); }

size_t encode_zstd_plain_into(std::span<const uint8_t> in, int level, std::span<uint8_t> out) {
  ZSTD_CCtx* c = thread_cctx();
  if (!c || out.size() < ZSTD_compressBound(in.size())) return 0;
  ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
  size_t r = ZSTD_compress2(c, out.data(), out.size(), in.data(), in.size());
  return ZSTD_isError(r) ? 0 : r;
}

bool encode_zstd_long(std::span<const uint8_t> in, int level, bool literal_bias, std::vector<uint8_t>& out,
                      size_t max_bytes) {
  coding_work().zstd_long_input_bytes += in.size();
  ZSTD_CCtx* c = thread_cctx();
  if (!c) return false;
  ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, literal_bias ? kLiteralBiasLevel : level);
  ZSTD_CCtx_setParameter(c, ZSTD_c_enableLongDistanceMatching, 1);
  ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, std::clamp(ceil_log2(in.size()), kMinWindowLog, kMaxLongWindowLog));
  if (literal_bias) {
    // The smallest hash table zstd allows and its longest minimum match: the
    // short-range matcher finds almost nothing, so entropy-dense bytes stay
    // Huffman-coded literals (short matches cost more than they save there)
    // while LDM still turns long copies into matches.
    ZSTD_CCtx_setParameter(c, ZSTD_c_strategy, ZSTD_fast);
    ZSTD_CCtx_setParameter(c, ZSTD_c_hashLog, kLiteralBiasHashLog);
    ZSTD_CCtx_setParameter(c, ZSTD_c_minMatch, kLiteralBiasMinMatch);
  }
  return compress_into(c, in, out, max_bytes);
}

namespace {

// Upper bound on what a zstd stream (frames back to back) decodes to, from
// its frame and block headers alone: raw and RLE blocks state their decoded
// size, a compressed block makes at most its frame's block maximum. A frame's
// content size field is only a claim (ZSTD_decompressBound trusts it), so it
// can tighten the bound, never widen it. False if the headers are malformed.
bool zstd_output_bound(std::span<const uint8_t> in, uint64_t& bound) {
  constexpr size_t kBlockHeaderBytes = 3;  // zstd format: 1 bit last, 2 bits type, 21 bits size
  constexpr uint32_t kRle = 1, kCompressed = 2;  // block types; 0 is raw, 3 reserved
  bound = 0;
  size_t pos = 0;
  while (pos < in.size()) {
    ZSTD_frameHeader zfh;
    if (ZSTD_getFrameHeader(&zfh, in.data() + pos, in.size() - pos) != 0) return false;
    if (zfh.frameType == ZSTD_skippableFrame) {
      const size_t n = ZSTD_findFrameCompressedSize(in.data() + pos, in.size() - pos);
      if (ZSTD_isError(n)) return false;
      pos += n;
      continue;
    }
    pos += zfh.headerSize;
    uint64_t frame_bound = 0;
    for (bool last = false; !last;) {
      if (in.size() - pos < kBlockHeaderBytes) return false;
      const uint32_t h = uint32_t(in[pos]) | uint32_t(in[pos + 1]) << 8 | uint32_t(in[pos + 2]) << 16;
      pos += kBlockHeaderBytes;
      last = (h & 1) != 0;
      const uint32_t type = (h >> 1) & 3, size = h >> 3;
      const size_t stored = type == kRle ? 1 : size;
      if (type > kCompressed || in.size() - pos < stored) return false;
      pos += stored;
      frame_bound += type == kCompressed ? zfh.blockSizeMax : size;
    }
    if (zfh.checksumFlag) {
      if (in.size() - pos < 4) return false;
      pos += 4;
    }
    if (zfh.frameContentSize != ZSTD_CONTENTSIZE_UNKNOWN)
      frame_bound = std::min<uint64_t>(frame_bound, zfh.frameContentSize);
    bound += frame_bound;
  }
  return true;
}

}  // namespace

zt::Status check_zstd_produces(std::span<const uint8_t> in, uint64_t declared) {
  uint64_t bound = 0;
  if (!zstd_output_bound(in, bound))
    return {zt::ErrorCode::corrupt_stream, "z4ai: zstd stream of " + std::to_string(in.size()) +
                                               " bytes has malformed frame or block headers"};
  if (bound < declared)
    return {zt::ErrorCode::length_mismatch, "z4ai: zstd stream of " + std::to_string(in.size()) +
                                                " bytes decodes to at most " + std::to_string(bound) +
                                                " bytes, but " + std::to_string(declared) + " are declared"};
  return {};
}

zt::Status decode_zstd(std::span<const uint8_t> in, std::span<uint8_t> out) {
  ZSTD_DCtx* d = thread_dctx();
  if (!d) return {zt::ErrorCode::corrupt_stream, "z4ai: zstd stream: cannot create decoder"};
  size_t r = ZSTD_decompressDCtx(d, out.data(), out.size(), in.data(), in.size());
  if (ZSTD_isError(r))
    return {zt::ErrorCode::corrupt_stream, std::string("z4ai: zstd stream does not decode: ") + ZSTD_getErrorName(r)};
  if (r != out.size())
    return {zt::ErrorCode::length_mismatch, "z4ai: zstd stream decodes to " + std::to_string(r) +
                                                " bytes, expected " + std::to_string(out.size())};
  return {};
}

}  // namespace z4ai::detail
