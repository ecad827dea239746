// Z4AI / ZARA frames: chunk planning, best-of candidates, parallel coding.
#include <algorithm>
#include <cstring>
#include <new>
#include <thread>
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
// Inputs up to this size always also try whole-buffer zstd: it is cheap there
// and wins on tiny or text-like buffers where stream headers dominate.
constexpr size_t kTinyInputBytes = size_t{64} << 10;
// Larger inputs probe zstd on a few spread windows first and encode the whole
// buffer only when the probe comes close to the chunked frame's ratio (it
// catches dequantised weights, where repeated values within a row give zstd
// 1.3-1.6x more than any per-byte model).
constexpr size_t kZstdProbeWindows = 4;
constexpr size_t kZstdProbeWindowBytes = size_t{16} << 10;
constexpr double kZstdProbeMargin = 0.97;
// Effort fast halves the chunk size until an input has at least this many
// chunks (never below kMinChunkBytes), so even a 1 MB tensor is shared out
// across cores. Depends only on the input size: frames stay identical for
// any thread count.
constexpr uint64_t kTargetChunks = 4;
constexpr uint32_t kMinChunkBytes = 128u << 10;
// Inputs from this size run the checksum beside the chunk coding.
constexpr size_t kOverlapMinBytes = size_t{1} << 20;

// A worker thread is only worth starting for this much data: below it the
// start-up and scheduling latency (worst on a loaded machine) eat the gain.
constexpr size_t kMinBytesPerWorker = size_t{512} << 10;

unsigned workers_for(uint64_t bytes, unsigned threads) {
  uint64_t by_size = std::max<uint64_t>(1, bytes / kMinBytesPerWorker);
  return unsigned(std::min<uint64_t>(detail::resolve_threads(threads), by_size));
}

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

uint32_t fast_chunk_bytes(size_t size) {
  uint32_t c = detail::kChunkBytesFast;
  while (c > kMinChunkBytes && uint64_t(size) < kTargetChunks * c) c >>= 1;
  return c;
}

std::vector<uint8_t> build_chunked(std::span<const uint8_t> data, DType dtype, const Plan& plan, unsigned threads,
                                   uint64_t digest) {
  const uint64_t cb = plan.chunk_bytes;
  const size_t n_chunks = size_t((data.size() + cb - 1) / cb);
  std::vector<std::vector<uint8_t>> bodies(n_chunks);
  ChunkEncodeOptions opts = plan.chunk;
  std::vector<uint8_t> ranking;
  if (opts.auto_select && n_chunks > 1 && plan.chunk_bytes < detail::kChunkBytesFast) {
    // Chunks shrunk to share a mid-sized input across cores: rank the
    // transforms once for the input instead of sampling every chunk.
    ranking = detail::rank_transforms(data, dtype, opts);
    opts.ranking = &ranking;
  }
  detail::parallel_for(n_chunks, workers_for(data.size(), threads), [&](size_t i) {
    size_t off = size_t(i * cb);
    bodies[i] = detail::encode_chunk(data.subspan(off, std::min<size_t>(size_t(cb), data.size() - off)), dtype, opts);
  });
  FrameHeader h{plan.zara, dtype, FrameMode::chunked, data.size(), digest, plan.chunk_bytes, uint32_t(n_chunks)};
  size_t total = detail::kFrameHeaderBytes + 4 * n_chunks;
  for (const auto& b : bodies) total += b.size();
  // Appends into reserved capacity: no zero-fill of the (large) frame.
  std::vector<uint8_t> frame(detail::kFrameHeaderBytes + 4 * n_chunks);
  frame.reserve(total);
  detail::write_frame_header(h, frame.data());
  size_t pos = detail::kFrameHeaderBytes;
  for (const auto& b : bodies) {
    detail::store_u32(frame.data() + pos, uint32_t(b.size()));
    pos += 4;
  }
  if (n_chunks == 1) {
    // One body: it already is most of the frame; prepend the header instead of copying.
    bodies[0].insert(bodies[0].begin(), frame.begin(), frame.end());
    return std::move(bodies[0]);
  }
  for (auto& b : bodies) {
    frame.insert(frame.end(), b.begin(), b.end());
    std::vector<uint8_t>().swap(b);  // release as we go: peak memory stays ~1x
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

// True when zstd on a few spread windows compresses nearly as well as the
// chunked frame did (`frame_bytes` for the whole input).
bool zstd_probe_close(std::span<const uint8_t> data, int level, size_t frame_bytes) {
  if (data.size() <= kTinyInputBytes) return true;
  const size_t win = std::min(kZstdProbeWindowBytes, data.size() / kZstdProbeWindows);
  const size_t stride = (data.size() - win) / (kZstdProbeWindows - 1);
  size_t in = 0, out = 0;
  std::vector<uint8_t> buf;
  for (size_t i = 0; i < kZstdProbeWindows; ++i) {
    buf.clear();
    if (!detail::encode_zstd(data.subspan(i * stride, win), level, buf)) return false;
    in += win;
    out += buf.size();
  }
  const double probe_ratio = double(in) / double(out);
  const double frame_ratio = double(data.size()) / double(frame_bytes);
  return probe_ratio >= kZstdProbeMargin * frame_ratio;
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
  Plan plan = make_plan(o, level);
  if (!plan.zara) plan.chunk_bytes = fast_chunk_bytes(data.size());
  // Long-range repeats (tied or copied weights) are found first: then the
  // 4 MiB-chunk frame cannot win (each chunk sees only itself), so it is not
  // built; one big chunk whose streams also try zstd with long-distance
  // matching over the whole stream is, beside whole-buffer zstd.
  const bool repeats = o.auto_select && detail::has_long_range_repeats(data);
  const bool big_chunk = repeats && data.size() > plan.chunk_bytes;
  if (big_chunk) {
    plan.chunk_bytes = plan.zara ? plan.chunk_bytes : detail::kChunkBytesFast;
    while (plan.chunk_bytes < data.size() && plan.chunk_bytes < detail::kMaxChunkBytes) plan.chunk_bytes *= 2;
    plan.chunk.policy.zstd_everywhere = true;
  }
  // The checksum is a serial pass over the input: with spare threads it runs
  // beside the chunk coding and is patched into the finished frame header.
  uint64_t digest = 0;
  std::vector<uint8_t> best;
  if (detail::resolve_threads(o.threads) > 1 && data.size() >= kOverlapMinBytes) {
    std::thread side([&] { digest = detail::xxh3_64(data); });
    best = build_chunked(data, dtype, plan, o.threads, 0);
    side.join();
  } else {
    digest = detail::xxh3_64(data);
    best = build_chunked(data, dtype, plan, o.threads, 0);
  }
  for (int i = 0; i < 8; ++i) best[16 + i] = uint8_t(digest >> (8 * i));
  if (!o.auto_select || data.empty()) return best;

  if (repeats || zstd_probe_close(data, plan.chunk.policy.zstd_level, best.size())) {
    std::vector<uint8_t> whole;
    if (build_whole_zstd(data, dtype, plan.zara, plan.chunk.policy.zstd_level, digest, whole))
      keep_smaller(best, std::move(whole));
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
    detail::parallel_for(n, workers_for(h.original_length, threads), [&](size_t i) {
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
