#include "container/zstd_blob.h"

#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_findDecompressedSize (stable since 1.3), ZSTD_decompressBound (1.4)
#include <zstd.h>
#include <zstd_errors.h>

#include <memory>
#include <vector>

namespace zt {
namespace {

struct DCtxDeleter {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};
struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

// One context per thread: concurrent reads never share decoder state.
ZSTD_DCtx* thread_dctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> ctx(ZSTD_createDCtx());
  return ctx.get();
}

}  // namespace

Status zstd_decode_exact(std::span<const uint8_t> stored, std::span<uint8_t> out, const std::string& ctx) {
  // The destination is exactly the declared size, so zstd itself refuses
  // to write past it (dstSize_tooSmall) and nothing grows on a lie.
  size_t n = ZSTD_decompressDCtx(thread_dctx(), out.data(), out.size(), stored.data(), stored.size());
  if (ZSTD_isError(n)) {
    if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall)
      return Status(ErrorCode::length_mismatch,
                    ctx + ": zstd stream decodes to more than the declared " + std::to_string(out.size()) + " bytes");
    return Status(ErrorCode::corrupt_stream, ctx + ": zstd stream does not decode: " + ZSTD_getErrorName(n));
  }
  if (n != out.size())
    return Status(ErrorCode::length_mismatch, ctx + ": zstd stream decodes to " + std::to_string(n) +
                                                  " bytes, declared " + std::to_string(out.size()));
  return Status::Ok();
}

Status zstd_check_declared(std::span<const uint8_t> stored, uint64_t declared, const std::string& ctx) {
  // The frame headers state the content size (our writers always record it);
  // frames that do not state it still bound it by their block count.
  unsigned long long n = ZSTD_findDecompressedSize(stored.data(), stored.size());
  if (n == ZSTD_CONTENTSIZE_ERROR) return Status(ErrorCode::corrupt_stream, ctx + ": not a valid zstd stream");
  if (n != ZSTD_CONTENTSIZE_UNKNOWN) {
    if (n != declared)
      return Status(ErrorCode::length_mismatch, ctx + ": uncompressed_length " + std::to_string(declared) +
                                                    " differs from the zstd frame content size " + std::to_string(n));
    return Status::Ok();
  }
  unsigned long long bound = ZSTD_decompressBound(stored.data(), stored.size());
  if (bound == ZSTD_CONTENTSIZE_ERROR) return Status(ErrorCode::corrupt_stream, ctx + ": not a valid zstd stream");
  if (declared > bound)
    return Status(ErrorCode::length_mismatch, ctx + ": uncompressed_length " + std::to_string(declared) +
                                                  " is more than the " + std::to_string(stored.size()) +
                                                  " stored bytes can decode to (at most " + std::to_string(bound) + ")");
  return Status::Ok();
}

Result<uint64_t> zstd_decoded_size(std::span<const uint8_t> stored, uint64_t cap, const std::string& ctx) {
  unsigned long long n = ZSTD_findDecompressedSize(stored.data(), stored.size());
  if (n == ZSTD_CONTENTSIZE_ERROR)
    return Status(ErrorCode::corrupt_stream, ctx + ": not a valid zstd stream");
  if (n == ZSTD_CONTENTSIZE_UNKNOWN)
    return Status(ErrorCode::missing_field,
                  ctx + ": zstd stream does not state its size and uncompressed_length is absent");
  if (n > cap)
    return Status(ErrorCode::limit_exceeded, ctx + ": zstd stream claims " + std::to_string(n) +
                                                 " bytes, over the cap of " + std::to_string(cap));
  return static_cast<uint64_t>(n);
}

Status zstd_encode_stream(std::span<const uint8_t> data, int level,
                          const std::function<Status(std::span<const uint8_t>)>& sink, const std::string& ctx) {
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx(ZSTD_createCCtx());
  ZSTD_CCtx* c = cctx.get();
  ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
  // The frame's own XXH64 (4 bytes): a flipped byte in a component written
  // without a manifest digest is still caught when it is decoded.
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setPledgedSrcSize(c, data.size());  // records the size in the frame header
  std::vector<uint8_t> chunk(ZSTD_CStreamOutSize());
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  for (;;) {
    ZSTD_outBuffer out{chunk.data(), chunk.size(), 0};
    size_t remaining = ZSTD_compressStream2(c, &out, &in, ZSTD_e_end);
    if (ZSTD_isError(remaining))
      return Status(ErrorCode::io_error, ctx + ": zstd compression failed: " + ZSTD_getErrorName(remaining));
    if (out.pos) ZT_RETURN_IF_ERROR(sink({chunk.data(), out.pos}));
    if (remaining == 0) break;
  }
  return Status::Ok();
}

}  // namespace zt
