// Frame sniffing across all z4ai frame types.
#include <cstring>
#include <string>

#include "codec/delta/delta_format.h"
#include "codec/frame/frame_format.h"
#include "codec/pypi/legacy_format.h"
#include "z4ai/chunked.h"
#include "z4ai/codec.h"
#include "z4ai/delta.h"

namespace z4ai {

bool is_z4ai_frame(std::span<const uint8_t> b) {
  return (b.size() >= 4 && (std::memcmp(b.data(), detail::kMagicZ4ai, 4) == 0 ||
                            std::memcmp(b.data(), detail::kMagicZara, 4) == 0)) ||
         chunked::is_chunked_frame(b) || is_delta_frame(b) || detail::is_legacy_frame(b) ||
         detail::is_legacy_delta(b);
}

bool is_pypi_z4ai_frame(std::span<const uint8_t> b) { return detail::is_legacy_frame(b) || detail::is_legacy_delta(b); }

zt::Result<FrameInfo> peek(std::span<const uint8_t> frame) {
  if (chunked::is_chunked_frame(frame)) {
    ZT_ASSIGN_OR_RETURN(uint64_t n, chunked::decoded_length(frame));
    return FrameInfo{FrameKind::chunked, DType::opaque, n};
  }
  if (detail::is_legacy_delta(frame)) {
    ZT_ASSIGN_OR_RETURN(uint64_t n, detail::legacy_delta_length(frame));
    return FrameInfo{FrameKind::delta, DType::opaque, n, true};
  }
  if (is_delta_frame(frame)) {
    ZT_ASSIGN_OR_RETURN(detail::DeltaHeader h, detail::read_delta_header(frame));
    // The inner frame declares the same length and must hold it.
    ZT_ASSIGN_OR_RETURN(FrameInfo inner, peek(frame.subspan(detail::kDeltaHeaderBytes)));
    if (inner.original_length != h.original_length || inner.kind == FrameKind::delta ||
        inner.kind == FrameKind::chunked)
      return zt::Status(zt::ErrorCode::corrupt_stream, "z4ai delta frame: inner frame declares " +
                                                           std::to_string(inner.original_length) + " bytes, header " +
                                                           std::to_string(h.original_length));
    return FrameInfo{FrameKind::delta, DType::opaque, h.original_length};
  }
  if (detail::is_legacy_frame(frame)) {
    ZT_ASSIGN_OR_RETURN(uint64_t n, detail::legacy_decoded_length(frame));
    const bool zara = std::memcmp(frame.data(), detail::kMagicZara, 4) == 0;
    return FrameInfo{zara ? FrameKind::zara : FrameKind::z4ai, DType::opaque, n, true};
  }
  ZT_ASSIGN_OR_RETURN(detail::FrameHeader h, detail::read_frame_header(frame));
  ZT_RETURN_IF_ERROR(detail::check_frame_body(frame, h));
  return FrameInfo{h.zara ? FrameKind::zara : FrameKind::z4ai, h.dtype, h.original_length};
}

zt::Status check_max_output(std::string_view what, uint64_t declared, uint64_t max_output) {
  if (declared <= max_output) return {};
  return {zt::ErrorCode::limit_exceeded, std::string(what) + ": declares " + std::to_string(declared) +
                                             " decoded bytes, over max_output=" + std::to_string(max_output)};
}

}  // namespace z4ai
