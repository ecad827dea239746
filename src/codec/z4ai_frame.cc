// Z4AI / ZARA frames: chunk planning, best-of candidates, parallel coding.
#include <cstring>
#include <new>
#include <string>

#include "codec/byte_io.h"
#include "codec/chunk_codec.h"
#include "codec/digest.h"
#include "codec/frame_format.h"
#include "codec/repetition_probe.h"
#include "codec/thread_pool.h"
#include "z4ai/codec.h"

namespace z4ai {
namespace {

using detail::ChunkEncodeOptions;
using detail::FrameHeader;
using detail::FrameMode;

constexpr int kDefaultZstdLevel = 3;
// Inputs up to this size also try whole-buffer zstd: cheap, and it wins on
// small text-like buffers where chunk/stream overhead dominates.
constexpr size_t kSmallInputBytes = size_t{1} << 20;

struct Plan {
  bool zara = false;
  uint32_t chunk_bytes = detail::kChunkBytesFast;
  ChunkEncodeOptions chunk;
};

Plan make_plan(const CompressOptions& o, int level) {
  Plan p;
  p.chunk.auto_select = o.auto_select;
  p.chunk.policy.zstd_level = level;
  if (o.effort == Effort::fast) return p;
  p.zara = true;
  p.chunk.policy.exhaustive = true;
  p.chunk.policy.allow_context_coders = true;
  if (o.effort == Effort::balanced) {
    p.chunk_bytes = detail::kChunkBytesBalanced;
    p.chunk.policy.brotli_quality = 9;
    p.chunk.policy.brotli_lgwin = 24;
    p.chunk.policy.slow_decode_margin = 0.999;
    if (o.level < 0) p.chunk.policy.zstd_level = 9;
  } else {
    p.chunk_bytes = detail::kChunkBytesMax;
    p.chunk.policy.brotli_quality = 11;
    p.chunk.policy.brotli_lgwin = 26;
    if (o.level < 0) p.chunk.policy.zstd_level = 19;
  }
  return p;
}

std::vector<uint8_t> build_chunked(std::span<const uint8_t> data, DType dtype, const Plan& plan, unsigned threads,
                                   uint64_t digest) {
  const uint64_t cb = plan.chunk_bytes;
  const size_t n_chunks = size_t((data.size() + cb - 1) / cb);
  std::vector<std::vector<uint8_t>> bodies(n_chunks);
  detail::parallel_for(n_chunks, threads, [&](size_t i) {
    size_t off = size_t(i * cb);
    bodies[i] = detail::encode_chunk(data.subspan(off, std::min<size_t>(size_t(cb), data.size() - off)), dtype,
                                     plan.chunk);
  });
  FrameHeader h{plan.zara, dtype, FrameMode::chunked, data.size(), digest, plan.chunk_bytes, uint32_t(n_chunks)};
  size_t total = detail::kFrameHeaderBytes + 4 * n_chunks;
  for (const auto& b : bodies) total += b.size();
  std::vector<uint8_t> frame(total);
  detail::write_frame_header(h, frame.data());
  size_t pos = detail::kFrameHeaderBytes;
  for (const auto& b : bodies) {
    detail::store_u32(frame.data() + pos, uint32_t(b.size()));
    pos += 4;
  }
  for (const auto& b : bodies) {
    if (!b.empty()) std::memcpy(frame.data() + pos, b.data(), b.size());
    pos += b.size();
  }
  return frame;
}

bool build_whole_zstd(std::span<const uint8_t> data, DType dtype, bool zara, int level, uint64_t digest,
                      std::vector<uint8_t>& frame) {
  frame.assign(detail::kFrameHeaderBytes, 0);
  FrameHeader h{zara, dtype, FrameMode::whole_zstd, data.size(), digest, 0, 0};
  detail::write_frame_header(h, frame.data());
  return detail::encode_zstd(data, level, frame);
}

void keep_smaller(std::vector<uint8_t>& best, std::vector<uint8_t>&& cand) {
  if (cand.size() < best.size()) best = std::move(cand);
}

}  // namespace

zt::Result<std::vector<uint8_t>> compress(std::span<const uint8_t> data, const CompressOptions& o) {
  ZT_ASSIGN_OR_RETURN(DType dtype, parse_dtype(o.dtype));
  if (o.level != -1 && (o.level < 1 || o.level > 22))
    return zt::Result<std::vector<uint8_t>>(zt::ErrorCode::invalid_argument,
                                            "z4ai: level " + std::to_string(o.level) + " is outside 1..22");
  if (data.size() > kMaxFrameOriginalBytes)
    return zt::Result<std::vector<uint8_t>>(zt::ErrorCode::limit_exceeded, "z4ai: input is over the 1 TiB limit");
  const int level = o.level == -1 ? kDefaultZstdLevel : o.level;
  const uint64_t digest = detail::xxh3_64(data);
  Plan plan = make_plan(o, level);
  std::vector<uint8_t> best = build_chunked(data, dtype, plan, o.threads, digest);
  if (!o.auto_select || data.empty()) return best;

  const bool small = data.size() <= kSmallInputBytes;
  const bool repeats = !small && detail::has_long_range_repeats(data);
  if (small || repeats) {
    std::vector<uint8_t> whole;
    if (build_whole_zstd(data, dtype, plan.zara, plan.chunk.policy.zstd_level, digest, whole))
      keep_smaller(best, std::move(whole));
  }
  if (repeats && data.size() > plan.chunk_bytes) {
    // Repeats further apart than a chunk: one big chunk whose streams all try
    // zstd with long-distance matching over the whole stream.
    Plan big = plan;
    big.chunk_bytes = plan.chunk_bytes;
    while (big.chunk_bytes < data.size() && big.chunk_bytes < detail::kMaxChunkBytes) big.chunk_bytes *= 2;
    big.chunk.policy.zstd_everywhere = true;
    keep_smaller(best, build_chunked(data, dtype, big, o.threads, digest));
  }
  return best;
}

namespace {

zt::Status decode_frame(std::span<const uint8_t> frame, const FrameHeader& h, std::span<uint8_t> out,
                        unsigned threads) {
  using zt::ErrorCode;
  if (out.size() != h.original_length)
    return {ErrorCode::length_mismatch, "z4ai frame: output buffer has " + std::to_string(out.size()) +
                                            " bytes, frame decodes to " + std::to_string(h.original_length)};
  if (h.mode == FrameMode::whole_zstd) {
    ZT_RETURN_IF_ERROR(detail::decode_zstd(frame.subspan(detail::kFrameHeaderBytes), out));
  } else {
    const size_t n = h.n_chunks;
    const uint8_t* table = frame.data() + detail::kFrameHeaderBytes;
    std::vector<size_t> offsets(n + 1);
    offsets[0] = detail::kFrameHeaderBytes + 4 * n;
    for (size_t i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + detail::load_u32(table + 4 * i);
    if (offsets[n] != frame.size())
      return {ErrorCode::corrupt_stream, "z4ai frame: chunk lengths add up to " + std::to_string(offsets[n]) +
                                             " bytes, frame has " + std::to_string(frame.size())};
    std::vector<zt::Status> status(n);
    detail::parallel_for(n, threads, [&](size_t i) {
      uint64_t off = uint64_t(i) * h.chunk_bytes;
      size_t len = size_t(std::min<uint64_t>(h.chunk_bytes, h.original_length - off));
      status[i] = detail::decode_chunk(frame.subspan(offsets[i], offsets[i + 1] - offsets[i]), h.dtype, h.zara,
                                       out.subspan(size_t(off), len));
    });
    for (size_t i = 0; i < n; ++i)
      if (!status[i].ok())
        return {status[i].code(), "chunk " + std::to_string(i) + ": " + status[i].message()};
  }
  if (detail::xxh3_64(out) != h.digest)
    return {ErrorCode::digest_mismatch, "z4ai frame: decoded bytes do not match the stored XXH3-64 checksum"};
  return {};
}

}  // namespace

zt::Status decompress_into(std::span<const uint8_t> frame, std::span<uint8_t> out, unsigned threads) {
  ZT_ASSIGN_OR_RETURN(FrameHeader h, detail::read_frame_header(frame));
  return decode_frame(frame, h, out, threads);
}

zt::Result<std::vector<uint8_t>> decompress(std::span<const uint8_t> frame, unsigned threads) {
  ZT_ASSIGN_OR_RETURN(FrameHeader h, detail::read_frame_header(frame));
  std::vector<uint8_t> out;
  try {
    out.resize(size_t(h.original_length));
  } catch (const std::bad_alloc&) {
    return zt::Result<std::vector<uint8_t>>(zt::ErrorCode::limit_exceeded,
                                            "z4ai frame: cannot allocate " + std::to_string(h.original_length) +
                                                " bytes for the decoded data");
  }
  ZT_RETURN_IF_ERROR(decode_frame(frame, h, out, threads));
  return out;
}

}  // namespace z4ai
