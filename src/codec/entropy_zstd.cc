// zstd stage. Contexts are cached per thread: creating one costs more than
// coding a small stream.
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "codec/entropy.h"

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

// Runs the configured context over `in`, appending the frame to `out`; fails
// when the frame would exceed max_bytes (a caller that would store the stream
// instead passes its length: `out` then never grows past it).
bool compress_into(ZSTD_CCtx* c, std::span<const uint8_t> in, std::vector<uint8_t>& out,
                   size_t max_bytes = SIZE_MAX) {
  size_t base = out.size();
  out.resize(base + std::min(max_bytes, ZSTD_compressBound(in.size())));
  size_t r = ZSTD_compress2(c, out.data() + base, out.size() - base, in.data(), in.size());
  if (ZSTD_isError(r)) {
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

bool encode_zstd_long(std::span<const uint8_t> in, int level, bool literal_bias, std::vector<uint8_t>& out,
                      size_t max_bytes) {
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
