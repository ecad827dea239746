// zstd stage. Contexts are cached per thread: creating one costs more than
// coding a small stream.
#include <zstd.h>

#include <memory>
#include <string>

#include "codec/entropy.h"

namespace z4ai::detail {
namespace {

// zstd's largest window on 64-bit targets (ZSTD_WINDOWLOG_MAX_64).
constexpr int kMaxWindowLog = 31;

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
  size_t base = out.size();
  out.resize(base + ZSTD_compressBound(in.size()));
  size_t r = ZSTD_compress2(c, out.data() + base, out.size() - base, in.data(), in.size());
  if (ZSTD_isError(r)) {
    out.resize(base);
    return false;
  }
  out.resize(base + r);
  return true;
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
