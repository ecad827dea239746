// Z4AI / ZARA compression: the best of the candidate frames for an input
// (the planned chunked frame, the primary frame beside a repeat frame, the
// one-chunk long-stream frame, whole-buffer zstd, for ZARA the fast frame),
// and its streamed form for inputs too large to hold whole.
#include <cstring>
#include <new>
#include <string>
#include <thread>

#include "codec/common/byte_io.h"
#include "codec/common/coding_work.h"
#include "codec/common/digest.h"
#include "codec/common/thread_pool.h"
#include "codec/entropy/repeat_path.h"
#include "codec/frame/z4ai_parallel.h"
#include "codec/frame/z4ai_plan.h"
#include "codec/transform/transforms.h"
#include "z4ai/codec.h"

namespace z4ai {
namespace {

using detail::FrameHeader;
using detail::FrameMode;
using detail::ChunkEncodeOptions;
using detail::Plan;
using detail::Prepared;
using detail::VectorFrameBuffer;
using detail::build_chunked;
using detail::chunk_window_ratio;
using detail::prepare;
using detail::zstd_window_ratio;

// Inputs up to this size always also try whole-buffer zstd at the requested
// level, with the same parameters as a plain ZSTD_compress at that level: the
// frame is then never larger than that zstd frame plus the 32-byte header
// (docs/codec.md). It is cheap there and wins on tiny or text-like buffers
// where stream headers dominate.
constexpr size_t kTinyInputBytes = size_t{64} << 10;
// Opaque inputs (no dtype: metadata, text) up to this size always try it too
// (see whole_if_smaller). The cap keeps the whole frame out of memory for the
// tensors ZSTN files stream (over 64 MiB, zstn_writer.cc), so streamed and
// in-memory containers stay byte-identical.
constexpr size_t kOpaqueWholeMaxBytes = size_t{64} << 20;
// Inputs under kWindowDecisionMinBytes (z4ai_plan.cc) build the whole-buffer
// frame when zstd on the probe windows reaches this share of the chunked
// frame's ratio (the windows undersell zstd: matches reach further in the
// whole buffer).
constexpr double kZstdProbeMargin = 0.97;
// A repeat frame whose ratio is this many times the primary coding's ratio
// on the probe windows is kept without building the primary frame (a second
// full pass): tied copies roughly double the ratio, while inputs whose
// repeats barely pay stay within a few percent and still get both built.
constexpr double kRepeatClearWin = 1.25;
// The long-stream frame also codes the primary transform up to this size
// (build_long_stream_frame): 0.01-0.03 % smaller per-tensor frames of the
// corpus's RNN and CNN models, for a second coding of a small input.
constexpr size_t kLongStreamPrimaryBytes = size_t{256} << 10;
// Inputs from this size run the checksum beside the chunk coding.
constexpr size_t kOverlapMinBytes = size_t{1} << 20;

bool build_whole_zstd(std::span<const uint8_t> data, DType dtype, bool zara, int level, bool long_window,
                      uint64_t digest, std::vector<uint8_t>& frame) {
  frame.assign(detail::kFrameHeaderBytes, 0);
  FrameHeader h{zara, dtype, FrameMode::whole_zstd, data.size(), digest, 0, 0};
  detail::write_frame_header(h, frame.data());
  return long_window ? detail::encode_zstd_long(data, level, /*literal_bias=*/false, frame)
                     : detail::encode_zstd(data, level, frame);
}



// The long-stream frame, from the primary plan: the input as one chunk,
// every stream to encode_long_stream, in the sign split for bf16 and fp32
// (on an RNN's weights it keeps the longest runs of equal mantissa bytes:
// 2.5-4 % smaller than the field split, 1-2 % smaller than byte planes, and
// smaller on every bf16/fp32 entry of the corpus), else the primary transform
// (on fp16 the field split beat byte planes).
std::vector<uint8_t> build_long_stream_frame(std::span<const uint8_t> data, DType dtype, const Plan& primary,
                                             unsigned threads) {
  static const std::vector<uint8_t> signs{uint8_t(detail::Transform::sign_split)};
  static const std::vector<uint8_t> planes{uint8_t(detail::Transform::byte_planes)};
  const bool sign_split = detail::sign_split_stream_count(dtype) != 0;
  const bool fp16 = dtype == DType::fp16;
  Plan q = primary;
  q.chunk.lean = false;
  q.chunk.auto_select = sign_split || fp16;
  q.chunk.ranking = sign_split ? &signs : fp16 ? &planes : nullptr;
  q.chunk.policy.whole_stream_lz = true;
  // Only fp16 tries method 10: there it closed resemblyzer's RNN; on bf16 and
  // fp32 it won by < 0.05 % and turned mixed-scale inputs into one chunk
  // decoded at the scalar coder's speed.
  q.chunk.policy.slice_tables = fp16;
  // A candidate beside the chunked frame, so it needs no fallback; on small
  // inputs the primary transform's coding is cheap and sometimes smaller.
  // fp16 codes both its byte planes (the high plane with a table per slice)
  // and the field split, which won on some inputs before that coder.
  q.chunk.primary_fallback = fp16 || data.size() <= kLongStreamPrimaryBytes;
  q.chunk_bytes = detail::kChunkBytesFast;
  while (q.chunk_bytes < data.size() && q.chunk_bytes < detail::kMaxChunkBytes) q.chunk_bytes *= 2;
  return build_chunked(data, dtype, q, threads);
}

// True when zstd on the probe windows compresses nearly as well as the
// chunked frame did (`frame_bytes` for the whole input).
bool zstd_probe_close(std::span<const uint8_t> data, int level, size_t frame_bytes) {
  if (data.size() <= kTinyInputBytes) return true;
  const double frame_ratio = double(data.size()) / double(frame_bytes);
  return zstd_window_ratio(data, level) >= kZstdProbeMargin * frame_ratio;
}

// Whole-buffer zstd replaces a chunked frame of `chunked_size` bytes only
// when it is smaller. Tiny and opaque inputs always try it, as plain zstd at
// the level.
// Above that, with repeats the frame's ratio includes them, so the window
// probe compares like with like instead (repeat_path.h) and the candidate
// also uses LDM. Empty when the chunked frame stays.
std::vector<uint8_t> whole_if_smaller(std::span<const uint8_t> data, const CompressOptions& o, const Prepared& p,
                                      uint64_t digest, size_t chunked_size) {
  std::vector<uint8_t> whole;
  if (!o.auto_select || data.empty()) return whole;
  const auto& policy = p.plan.chunk.policy;
  // Opaque bytes (no dtype: metadata, text) up to kOpaqueWholeMaxBytes try it
  // too: plain zstd at the level is what such a buffer is held against, and
  // the window probe misses text whose matches reach far back.
  const bool always =
      data.size() <= kTinyInputBytes || (p.dtype == DType::opaque && data.size() <= kOpaqueWholeMaxBytes);
  const bool long_window = p.repeats && !always;
  // prepare() already weighed zstd against the chunk coder on the probe
  // windows and coded the chunks with the winner: a whole-buffer frame would
  // differ from zstd chunks by a fraction of a percent for a second full pass.
  if (p.zstd_windows > 0 && !always) return whole;
  if (always || (p.repeats ? detail::whole_zstd_may_win(data, p.dtype, policy)
                         : zstd_probe_close(data, policy.zstd_level, chunked_size))) {
    const bool built = build_whole_zstd(data, p.dtype, p.plan.zara, policy.zstd_level, long_window, digest, whole);
    if (!built || whole.size() >= chunked_size) whole.clear();
  }
  return whole;
}

// The frame effort fast writes for `data` with the same options (empty if
// it cannot be built).
std::vector<uint8_t> default_frame(std::span<const uint8_t> data, const CompressOptions& o) {
  CompressOptions fo = o;
  fo.effort = Effort::fast;
  zt::Result<std::vector<uint8_t>> r = compress(data, fo);
  return r.ok() ? std::move(r).value() : std::vector<uint8_t>{};
}


}  // namespace

zt::Status compress_to(std::span<const uint8_t> data, const CompressOptions& o, FrameBuffer& out) {
  ZT_ASSIGN_OR_RETURN(Prepared prepared, prepare(data, o));
  detail::coding_work().frame_input_bytes += data.size();
  const DType dtype = prepared.dtype;
  const Plan& plan = prepared.plan;
  const zt::Status no_room(zt::ErrorCode::limit_exceeded, "z4ai: cannot allocate memory for a frame of " +
                                                              std::to_string(data.size()) + " input bytes");
  // The planned frame goes straight to `out`; a smaller candidate built
  // beside it replaces it. The checksum is a serial pass over the input:
  // with spare threads it runs beside the chunk coding and is patched into
  // the finished frame's header.
  uint64_t digest = 0;
  bool written = false;
  if (detail::resolve_threads(o.threads) > 1 && data.size() >= kOverlapMinBytes) {
    std::thread side([&] { digest = detail::xxh3_64(data); });
    written = detail::write_chunked(data, dtype, plan, o.threads, out);
    side.join();
  } else {
    digest = detail::xxh3_64(data);
    written = detail::write_chunked(data, dtype, plan, o.threads, out);
  }
  if (!written) return no_room;
  // False when memory ran out for the candidate or for copying it.
  auto replace_if_smaller = [&](std::vector<uint8_t>&& candidate) {
    if (candidate.empty()) return false;
    if (candidate.size() >= out.size()) return true;
    detail::store_u64(candidate.data() + detail::kFrameDigestOffset, digest);
    return detail::put_frame(candidate, out);
  };
  if (prepared.repeats && double(data.size()) < kRepeatClearWin * double(out.size()) *
                                                   chunk_window_ratio(data, dtype, prepared.primary.chunk)) {
    // The repeat frame's one big chunk is not comparable chunk by chunk with
    // the primary frame: build that too and keep the smaller, unless the
    // primary coding of the probe windows shows it far behind.
    if (!replace_if_smaller(build_chunked(data, dtype, prepared.primary, o.threads))) return no_room;
  }
  if (prepared.long_streams &&
      !replace_if_smaller(build_long_stream_frame(data, dtype, prepared.primary, o.threads)))
    return no_room;
  // Patched before any whole-buffer frame is weighed: those carry their own.
  detail::store_u64(out.data() + detail::kFrameDigestOffset, digest);

  std::vector<uint8_t> whole = whole_if_smaller(data, o, prepared, digest, out.size());
  if (!whole.empty() && !detail::put_frame(whole, out)) return no_room;
  if (plan.zara) {
    // balanced/max are a best-of over the default frame too: never larger
    // than it (its 256 Ki-element chunks can beat 8 MiB ones), and as fast to
    // decode. ZARA allows every Z4AI method, so only the magic changes.
    std::vector<uint8_t> fast = default_frame(data, o);
    if (!fast.empty() && fast.size() < out.size()) {
      std::memcpy(fast.data(), detail::kMagicZara, 4);
      if (!detail::put_frame(fast, out)) return no_room;
    }
  }
  return {};
}

zt::Result<std::vector<uint8_t>> compress(std::span<const uint8_t> data, const CompressOptions& o) {
  std::vector<uint8_t> frame;
  VectorFrameBuffer out(frame);
  ZT_RETURN_IF_ERROR(compress_to(data, o, out));
  return frame;
}

namespace detail {

zt::Result<bool> compress_streamed(std::span<const uint8_t> data, const CompressOptions& o,
                                   const std::function<zt::Status(std::span<const uint8_t>)>& sink) {
  ZT_ASSIGN_OR_RETURN(Prepared p, prepare(data, o));
  const uint32_t cb = p.plan.chunk_bytes;
  const size_t n = chunk_count(data.size(), cb);
  // One chunk (the repeat path): nothing to stream. Inputs that build the
  // long-stream candidate may end up one chunk too: compress() decides.
  if (n < 2 || p.long_streams) return false;
  std::vector<uint8_t> ranking;
  const ChunkEncodeOptions opts = chunk_options(data, p.dtype, p.plan, o.threads, ranking);
  const unsigned workers = workers_for(data.size(), o.threads);
  // Pass 1: the chunk lengths the table needs; the bodies are dropped.
  std::vector<uint32_t> lengths(n);
  parallel_for(n, workers, [&](size_t i) {
    lengths[i] = uint32_t(encode_chunk(chunk_input(data, cb, i), p.dtype, opts).size());
  });
  FrameHeader h{p.plan.zara, p.dtype, FrameMode::chunked, data.size(), xxh3_64(data), cb, uint32_t(n)};
  std::vector<uint8_t> head(kFrameHeaderBytes + 4 * n);
  write_frame_header(h, head.data());
  size_t size = head.size();
  for (size_t i = 0; i < n; ++i) {
    store_u32(head.data() + kFrameHeaderBytes + 4 * i, lengths[i]);
    size += lengths[i];
  }
  const std::vector<uint8_t> whole = whole_if_smaller(data, o, p, h.digest, size);
  if (!whole.empty()) {
    ZT_RETURN_IF_ERROR(sink(whole));
    return true;
  }
  ZT_RETURN_IF_ERROR(sink(head));
  // Pass 2: the same bodies again (coding is deterministic), a group at a time.
  const size_t group = std::max<size_t>(1, 2 * workers);
  for (size_t first = 0; first < n; first += group) {
    std::vector<std::vector<uint8_t>> bodies(std::min(group, n - first));
    parallel_for(bodies.size(), workers, [&](size_t k) {
      bodies[k] = encode_chunk(chunk_input(data, cb, first + k), p.dtype, opts);
    });
    for (size_t k = 0; k < bodies.size(); ++k) {
      if (bodies[k].size() != lengths[first + k])
        return zt::Status(zt::ErrorCode::corrupt_stream, "z4ai: chunk " + std::to_string(first + k) +
                                                             " coded to a different length on the second pass");
      ZT_RETURN_IF_ERROR(sink(bodies[k]));
    }
  }
  return true;
}

}  // namespace detail

}  // namespace z4ai
