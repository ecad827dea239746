#include <algorithm>
#include <cstring>
#include <string>

#include "codec/common/byte_io.h"
#include "codec/frame/chunk_codec.h"
#include "codec/entropy/entropy.h"
#include "codec/frame/frame_format.h"

namespace z4ai::detail {

void write_frame_header(const FrameHeader& h, uint8_t* out) {
  std::memcpy(out, h.zara ? kMagicZara : kMagicZ4ai, 4);
  out[4] = kFrameVersion;
  out[5] = uint8_t(h.dtype);
  out[6] = uint8_t(h.mode);
  out[7] = 0;
  for (int i = 0; i < 8; ++i) out[8 + i] = uint8_t(h.original_length >> (8 * i));
  for (int i = 0; i < 8; ++i) out[16 + i] = uint8_t(h.digest >> (8 * i));
  store_u32(out + 24, h.chunk_bytes);
  store_u32(out + 28, h.n_chunks);
}

zt::Result<FrameHeader> read_frame_header(std::span<const uint8_t> f) {
  using zt::ErrorCode;
  if (f.size() < kFrameHeaderBytes) return {ErrorCode::corrupt_stream, "z4ai frame: shorter than its 32-byte header"};
  FrameHeader h;
  if (std::memcmp(f.data(), kMagicZara, 4) == 0) {
    h.zara = true;
  } else if (std::memcmp(f.data(), kMagicZ4ai, 4) != 0) {
    return {ErrorCode::bad_magic, "z4ai frame: magic is neither 'Z4AI' nor 'ZARA'"};
  }
  if (f[4] == 1)
    return {ErrorCode::unsupported, "z4ai frame: version 1 is the PyPI z4ai 0.x layout, which this codec does not read"};
  if (f[4] != kFrameVersion)
    return {ErrorCode::unsupported, "z4ai frame: version " + std::to_string(f[4]) + " is not supported (want 2)"};
  if (f[5] >= kDTypeCount) return {ErrorCode::corrupt_stream, "z4ai frame: unknown dtype code " + std::to_string(f[5])};
  if (f[6] > uint8_t(FrameMode::whole_zstd))
    return {ErrorCode::corrupt_stream, "z4ai frame: unknown mode " + std::to_string(f[6])};
  if (f[7] != 0) return {ErrorCode::corrupt_stream, "z4ai frame: reserved byte 7 must be 0"};
  h.dtype = static_cast<DType>(f[5]);
  h.mode = static_cast<FrameMode>(f[6]);
  h.original_length = load_u64(f.data() + 8);
  h.digest = load_u64(f.data() + 16);
  h.chunk_bytes = load_u32(f.data() + 24);
  h.n_chunks = load_u32(f.data() + 28);
  if (h.original_length > kMaxFrameOriginalBytes)
    return {ErrorCode::limit_exceeded, "z4ai frame: declared length " + std::to_string(h.original_length) +
                                           " is over the 1 TiB limit"};
  if (h.mode == FrameMode::whole_zstd) {
    if (h.chunk_bytes != 0 || h.n_chunks != 0)
      return {ErrorCode::corrupt_stream, "z4ai frame: whole-buffer mode must have no chunk table"};
    return h;
  }
  const uint32_t w = dtype_width(h.dtype);
  // Chunk sizes are powers of two (>= any width), so one flipped bit in the
  // field is always caught.
  if (h.chunk_bytes < w || (h.chunk_bytes & (h.chunk_bytes - 1)) != 0 || h.chunk_bytes > kMaxChunkBytes)
    return {ErrorCode::corrupt_stream, "z4ai frame: chunk size " + std::to_string(h.chunk_bytes) +
                                           " is not a power of two between the element width and 256 MiB"};
  const uint64_t want = (h.original_length + h.chunk_bytes - 1) / h.chunk_bytes;
  if (h.n_chunks != want)
    return {ErrorCode::length_mismatch, "z4ai frame: " + std::to_string(h.n_chunks) + " chunks cannot hold " +
                                            std::to_string(h.original_length) + " bytes (need " +
                                            std::to_string(want) + ")"};
  if (uint64_t(h.n_chunks) * 4 > f.size() - kFrameHeaderBytes)
    return {ErrorCode::corrupt_stream, "z4ai frame: chunk table runs past the end of the frame"};
  return h;
}

zt::Status check_chunk_table(std::span<const uint8_t> table, uint64_t body_bytes) {
  using zt::ErrorCode;
  uint64_t left = body_bytes;
  for (size_t i = 0; i < table.size() / 4; ++i) {
    const uint32_t len = load_u32(table.data() + 4 * i);
    if (len > left)
      return {ErrorCode::corrupt_stream, "z4ai frame: chunk " + std::to_string(i) + " declares " +
                                             std::to_string(len) + " coded bytes, only " + std::to_string(left) +
                                             " are left in the frame"};
    if (len < kMinChunkBodyBytes)
      return {ErrorCode::corrupt_stream, "z4ai frame: chunk " + std::to_string(i) + " has " + std::to_string(len) +
                                             " coded bytes, fewer than the " + std::to_string(kMinChunkBodyBytes) +
                                             " of the smallest chunk body"};
    left -= len;
  }
  if (left != 0)
    return {ErrorCode::corrupt_stream,
            "z4ai frame: " + std::to_string(left) + " bytes after the last chunk (chunk lengths must end the frame)"};
  return {};
}

zt::Status check_frame_body(std::span<const uint8_t> f, const FrameHeader& h) {
  if (h.mode == FrameMode::whole_zstd) {
    zt::Status s = check_zstd_produces(f.subspan(kFrameHeaderBytes), h.original_length);
    if (!s.ok()) return {s.code(), "z4ai frame (whole-buffer zstd): " + s.message()};
    return {};
  }
  const uint64_t table_bytes = 4 * uint64_t(h.n_chunks);  // read_frame_header bounds the table
  const std::span<const uint8_t> table = f.subspan(kFrameHeaderBytes, size_t(table_bytes));
  ZT_RETURN_IF_ERROR(check_chunk_table(table, f.size() - kFrameHeaderBytes - table_bytes));
  // Each chunk's stream table against its bytes, before the caller allocates
  // or touches any output: a chunk costs only what its stored bytes justify.
  size_t at = kFrameHeaderBytes + size_t(table_bytes);
  for (size_t i = 0; i < h.n_chunks; ++i) {
    const size_t len = load_u32(table.data() + 4 * i);
    const uint64_t begin = uint64_t(i) * h.chunk_bytes;
    const size_t out_bytes = size_t(std::min<uint64_t>(h.chunk_bytes, h.original_length - begin));
    zt::Status s = check_chunk(f.subspan(at, len), h.dtype, h.zara, out_bytes);
    if (!s.ok()) return {s.code(), "chunk " + std::to_string(i) + ": " + s.message()};
    at += len;
  }
  return {};
}

}  // namespace z4ai::detail
