// Per-stream choice of entropy coder. The fast path estimates order-0/1
// sizes from byte histograms and probes zstd on a sample, then encodes only
// the promising coders; the exhaustive path (ZARA) encodes every candidate.
// Either way the smallest real encoding wins, never larger than stored.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

#include "codec/entropy/entropy.h"
#include "codec/entropy/histogram.h"
#include "codec/entropy/long_stream_path.h"
#include "codec/entropy/pypi_rans.h"
#include "codec/entropy/rans14.h"
#include "codec/entropy/repeat_path.h"

namespace z4ai::detail {
namespace {

constexpr size_t kMinCodedBytes = 64;          // smaller streams are stored
constexpr double kNoiseBitsPerByte = 7.9;      // above: treat as incompressible
constexpr double kOrder1ProbeBits = 7.5;       // below: order-1 context may pay
constexpr size_t kZstdSampleBytes = 128 * 1024;
// The fast path probes zstd on 1/8 of a stream (at least kZstdMinSampleBytes,
// at most kZstdSampleBytes), so small chunks do not pay a probe as big as the stream.
constexpr size_t kZstdMinSampleBytes = 32 * 1024;
constexpr size_t kPairSampleBytes = 256 * 1024;
// The lean path samples kLeanSampleRuns spread runs of kLeanRunBytes; a
// stream whose sample carries at least kLeanNoiseBits per byte is stored (an
// i.i.d. uniform 4 KiB sample measures ~7.95: the bias of a small sample).
constexpr size_t kLeanSampleRuns = 16;
constexpr size_t kLeanRunBytes = 256;
constexpr double kLeanNoiseBits = 7.9;
// A lean mantissa stream whose best coding keeps more than this share of its
// bytes is stored instead: the last few percent (dequantised bf16 mantissas
// at ~0.99) cost a blocked-rANS decode of the whole stream, 2-3x the time of
// the exponent stream's, for well under 1 % of the frame.
constexpr double kLeanMaxCodedShare = 0.97;
// The 14-bit order-0 coder (rans14.h, scalar, 4 lanes) decodes a gaussian
// bf16 frame 2.2x slower than htscodecs' SIMD order-0 (64 MiB at threads=1:
// 50-60 ms against 22-27 ms, bench/micro/decode_profile) for a frame 0.15 %
// smaller (its exponent stream 0.4-0.65 %: finer frequencies for a wide
// alphabet). A coding that decodes 1.5x slower must save 1 % of the chunk
// (docs/codec.md), so a lean exponent stream takes it only when it saves this
// share of the chunk (the other streams as a sample of each estimates
// them): i.i.d. gaussian and trained weights never do; hundreds of rare
// exponents beside a common one and cheap mantissas (tests/golden/codec:
// bf16_lean_rans14) do.
constexpr double kRans14MinSaving = 0.01;
// Whether to count the whole stream is decided on 4 KiB blocks, one in 8; a
// sample's entropy runs low, hence half the saving as the gate.
constexpr size_t kRans14GateBlock = 4096;
constexpr size_t kRans14GateStride = 8;
// A lean stream whose sample is noise but whose neighbouring bytes repeat
// more than kLeanRunShare of the time (noise: 1/256; nudenet's fp32 low
// mantissa bytes 6-12/256 in chunks holding runs of zeros) tries zstd on the
// whole stream and keeps it when it saves kLeanRunMinSaving (2-4 % there).
constexpr size_t kLeanRunMinBytes = 4096;
constexpr double kLeanRunShare = 2.0 / 256;
constexpr size_t kLeanRunStride = 8;
constexpr double kLeanRunMinSaving = 0.01;
// ZARA stores a noise-like stream (mantissa bytes) unless a coder saves
// this share of it: rANS on a 7.99-bit stream saved 0.02 % and cost a
// quarter of a bf16 frame's decode time.
constexpr double kNoisyMinSaving = 0.01;
// rANS order 1 decodes at about half the speed of order 0 (htscodecs'
// 32-way decoders; 46 % of an fp16 max frame's decode time): ZARA keeps it
// only when it saves this share over the best order-0 coding.
constexpr double kOrder1MinSaving = 0.005;
// Block sizes (log2 bytes) ZARA tries for blocked rANS with order-1 blocks:
// 256 KiB and 1 MiB, the scale of one tensor's exponents in the models
// measured (64 KiB blocks were no smaller and encoded at half the speed).
constexpr int kOrder1BlockLog2s[] = {18, 20};

// Effort fast chooses from estimates (pick_estimated): order 0 from the
// stream's histogram, order 1 from a 256 KiB mid-stream sample, blocked rANS
// from 16 KiB block histograms, zstd from coding 1/8 of the stream. Each
// margin below makes a coder that is costlier to decode, or whose estimate
// is less certain, win clearly before it is coded. The first encoder set
// them and no measurement of their own was kept; what they pick on real
// weights is measured end to end in docs/benchmarks-codec.md, and on every
// coding path by the golden frames (tests/golden/codec), which change if a
// margin moves.
// The sampled order-1 estimate runs low (few samples per context): order 1
// is chosen only when estimated 5 % under order 0 ...
constexpr double kOrder1EstimateMargin = 0.95;
// ... and order 0 is still coded beside it when estimated within 3 % of it.
constexpr double kOrder0Reach = 1.03;
// Blocked rANS (a table per block) must be estimated 0.5 % under one table
// and under the stored size: its block headers and tables are a fixed cost
// the estimate prices only roughly.
constexpr double kBlocksEstimateMargin = 0.995;
// A noise-like stream (kNoiseBitsPerByte) is coded at all only when its
// order-0 estimate is 0.5 % under stored: a stored stream decodes at memcpy
// speed.
constexpr double kNoisyEstimateMargin = 0.995;
// zstd is coded when its ratio on the probe sample beats the rANS estimate
// by 3 %: the sample is 1/8 of the stream, and zstd's ratio grows with the
// bytes it can match against.
constexpr double kZstdSampleMargin = 0.97;
// Table cost per distinct symbol in the rANS estimates (bytes): htscodecs
// writes a symbol and its frequency in one to two bytes.
constexpr double kTableBytesPerSymbol = 1.5;

struct Stats {
  double h0 = 8;              // order-0 bits per byte
  double est_rans0 = 0;       // bytes
  double est_rans1 = 0;       // bytes (0 = not estimated)
  BlockPlan blocks{0, 0};     // blocked rANS plan (log2 0 = none)
};

// Order-1 estimate from a sample in the middle of the stream, scaled to the
// full length; the context table cost is added unscaled. Only contexts seen in
// the stream's histogram `hist` can occur, so only their rows are scanned
// (exponent streams use a few dozen of the 256).
double estimate_order1(std::span<const uint8_t> in, const uint32_t* hist) {
  size_t sample = std::min(in.size(), kPairSampleBytes);
  std::span<const uint8_t> s = in.subspan((in.size() - sample) / 2, sample);
  // Two tables fed from the two halves of the sample: runs of one pair (common
  // in exponent streams) would otherwise serialise on one counter.
  thread_local std::vector<uint32_t> pairs(size_t{256} * 256, 0);   // all zero between calls
  thread_local std::vector<uint32_t> pairs2(size_t{256} * 256, 0);  // all zero between calls
  const size_t half = s.size() / 2;
  uint8_t prev = 0, prev2 = half ? s[half - 1] : 0;
  for (size_t i = 0; i < half; ++i) {
    uint8_t a = s[i], b = s[half + i];
    ++pairs[size_t(prev) << 8 | a];
    ++pairs2[size_t(prev2) << 8 | b];
    prev = a;
    prev2 = b;
  }
  for (size_t i = 2 * half; i < s.size(); ++i) {
    ++pairs2[size_t(prev2) << 8 | s[i]];
    prev2 = s[i];
  }
  double bits = 0, table = 0;
  for (size_t ctx = 0; ctx < 256; ++ctx) {
    if (hist[ctx] == 0 && ctx != 0) continue;  // never a context (0 is the initial one)
    uint32_t* row = &pairs[ctx << 8];
    uint32_t* row2 = &pairs2[ctx << 8];
    uint64_t total = 0;
    size_t used = 0;
    for (size_t i = 0; i < 256; ++i) {
      row[i] += row2[i];
      row2[i] = 0;
      total += row[i];
      used += row[i] != 0;
    }
    if (!total) continue;
    bits += double(total) * entropy_bits(row, 256, total);
    table += double(used) * kTableBytesPerSymbol + 2;
    std::fill(row, row + 256, 0u);
  }
  return bits / 8 * (double(in.size()) / double(sample)) + table + 16;
}

Stats stream_stats(std::span<const uint8_t> in) {
  Stats s;
  std::vector<uint32_t> blocks = block_histograms(in);
  uint32_t hist[256] = {0};
  for (size_t b = 0; b < blocks.size(); b += 256)
    for (int k = 0; k < 256; ++k) hist[k] += blocks[b + k];
  s.blocks = plan_blocks(blocks, in.size());
  s.h0 = entropy_bits(hist, 256, in.size());
  size_t distinct = 0;
  for (uint32_t c : hist) distinct += c != 0;
  s.est_rans0 = double(in.size()) * s.h0 / 8 + double(distinct) * kTableBytesPerSymbol + 16;
  if (s.h0 < kOrder1ProbeBits && in.size() >= 4096) s.est_rans1 = estimate_order1(in, hist);
  return s;
}

// Keeps the smaller of `best` and a fresh encoding.
struct Best {
  Method method = Method::stored;
  std::vector<uint8_t> payload;
  size_t size = 0;
};

// `margin` < 1 demands that a slower-decoding coder win by that factor.
template <class Fn>
void try_candidate(Best& best, Method m, Fn&& encode, double margin = 1.0) {
  std::vector<uint8_t> buf;
  if (!encode(buf)) return;
  if (double(buf.size()) < margin * double(best.size)) {
    best.method = m;
    best.size = buf.size();
    best.payload = std::move(buf);
  }
}

}  // namespace

double sampled_bits_per_byte(std::span<const uint8_t> in) {
  Histogram4 hist = {};
  size_t total = 0;
  auto count = [&](const uint8_t* p, size_t n) {
    count_bytes(hist, p, n);
    total += n;
  };
  if (in.size() <= kLeanSampleRuns * kLeanRunBytes * 2) {
    count(in.data(), in.size());
  } else {
    const size_t stride = (in.size() - kLeanRunBytes) / (kLeanSampleRuns - 1);
    for (size_t r = 0; r < kLeanSampleRuns; ++r) count(in.data() + r * stride, kLeanRunBytes);
  }
  uint32_t sum[256];
  sum_histogram(hist, sum);
  return entropy_bits(sum, 256, total);
}

namespace {

bool sample_looks_like_noise(std::span<const uint8_t> in) { return sampled_bits_per_byte(in) >= kLeanNoiseBits; }

// Whether more than kLeanRunShare of `in`'s bytes equal the one before (1/256
// in noise), on every kLeanRunStride-th byte: runs long enough to pay for
// zstd are seen all the same, at a fraction of a full pass (a full one cost
// resemblyzer's bf16 compress ~15 %).
bool has_runs(std::span<const uint8_t> in) {
  size_t same = 0, seen = 0;
  for (size_t i = 1; i < in.size(); i += kLeanRunStride, ++seen) same += in[i] == in[i - 1];
  return double(same) > kLeanRunShare * double(seen);
}

// `out` holds `in` coded with `m` from `base` on: replaced by the 14-bit
// order-0 coding when that saves kRans14MinSaving of the chunk (this coding
// and the other streams' estimated `other_bytes`; its exact cost from the
// normalised table decides whether to encode it at all).
Method finer_order0(std::span<const uint8_t> in, Method m, size_t base, size_t other_bytes,
                    std::vector<uint8_t>& out) {
  const size_t coded = out.size() - base;
  const double saving = kRans14MinSaving * double(coded + other_bytes);
  uint32_t counts[256];
  uint16_t freq[256];
  {
    // Gate on every kRans14GateStride-th block: trained weights, which never
    // take it, skip the full histogram (an eighth of the exponent pass).
    Histogram4 hist = {};
    size_t sampled = 0;
    for (size_t b = 0; b < in.size(); b += kRans14GateBlock * kRans14GateStride) {
      const size_t len = std::min(kRans14GateBlock, in.size() - b);
      count_bytes(hist, in.data() + b, len);
      sampled += len;
    }
    sum_histogram(hist, counts);
    rans14_normalize(counts, freq);
    const double header = double(kRans14HeaderBytes);
    const double scaled = (rans14_coded_size(counts, freq) - header) * double(in.size()) / double(sampled) + header;
    if (scaled > double(coded) - saving / 2) return m;
  }
  rans14_table(in, counts, freq);
  const double limit = double(coded) - saving;
  if (rans14_coded_size(counts, freq) > limit) return m;
  std::vector<uint8_t> alt;
  if (!encode_rans14(in, freq, alt) || double(alt.size()) > limit) return m;
  out.resize(base);
  out.insert(out.end(), alt.begin(), alt.end());
  return Method::rans0_14;
}

}  // namespace

Method encode_lean(std::span<const uint8_t> in, bool exponent, const EntropyPolicy& policy,
                   std::vector<uint8_t>& out, size_t other_bytes) {
  if (in.size() >= kMinCodedBytes && in.size() <= kMaxStreamBytes) {
    if (exponent) {
      const size_t base = out.size();
      std::vector<uint8_t> o1;
      const bool try1 = policy.lean_order1 && encode_rans(in, 1, o1) && o1.size() < in.size();
      if (encode_rans(in, 0, out) && out.size() - base < in.size()) {
        if (!try1 || out.size() - base <= o1.size()) return finer_order0(in, Method::rans0, base, other_bytes, out);
        out.resize(base);
        out.insert(out.end(), o1.begin(), o1.end());
        return finer_order0(in, Method::rans1, base, other_bytes, out);
      }
      out.resize(base);
      if (try1) {
        out.insert(out.end(), o1.begin(), o1.end());
        return finer_order0(in, Method::rans1, base, other_bytes, out);
      }
    } else {
      if (!sample_looks_like_noise(in)) {
        // Mantissa bytes with structure (quantised or repeated values): rare
        // enough to afford the full search, which also tries zstd.
        const size_t base = out.size();
        const Method m = encode_best(in, policy, out);
        if (m == Method::stored || double(out.size() - base) <= kLeanMaxCodedShare * double(in.size())) return m;
        out.resize(base);
      }
      if (in.size() >= kLeanRunMinBytes && has_runs(in)) {
        // Noise with runs (a stretch of exact zeros in one tensor): zstd
        // finds them and decodes the rest as literals, near memcpy speed.
        const size_t base = out.size();
        if (encode_zstd(in, policy.zstd_level, out) &&
            double(out.size() - base) <= (1 - kLeanRunMinSaving) * double(in.size()))
          return Method::zstd;
        out.resize(base);
      }
    }
  }
  out.insert(out.end(), in.begin(), in.end());
  return Method::stored;
}

double estimate_coded_size(std::span<const uint8_t> in) {
  if (in.size() < kMinCodedBytes) return double(in.size());
  Stats s = stream_stats(in);
  double est = std::min(double(in.size()), s.est_rans0);
  if (s.est_rans1 > 0) est = std::min(est, s.est_rans1);
  if (s.blocks.log2) est = std::min(est, s.blocks.estimate);
  return est;
}

namespace {

// ZARA: every candidate decodes at rANS or zstd speed (>= 1 GB/s). A stored
// noise-like stream decodes at memcpy speed: a coder must save
// kNoisyMinSaving of it to be worth its decode time.
void try_every_coder(std::span<const uint8_t> in, const EntropyPolicy& p, const Stats& s, Best& best) {
  const bool noisy = s.h0 >= kNoiseBitsPerByte;
  const BlockPlan bp = s.blocks;
  if (noisy) best.size = size_t(double(in.size()) * (1 - kNoisyMinSaving));
  try_candidate(best, Method::rans0, [&](std::vector<uint8_t>& b) { return encode_rans(in, 0, b); });
  if (bp.log2 && bp.estimate < double(in.size()))
    try_candidate(best, Method::rans_blocks, [&](std::vector<uint8_t>& b) { return encode_rans_blocks(in, bp.log2, b); });
  if (!noisy) {
    try_candidate(best, Method::rans_segments, [&](std::vector<uint8_t>& b) { return encode_rans_segments(in, b); });
    const double o1_margin = 1 - kOrder1MinSaving;
    try_candidate(best, Method::rans1, [&](std::vector<uint8_t>& b) { return encode_rans(in, 1, b); }, o1_margin);
    // Block tables follow local statistics (one tensor's exponents), order 1
    // their row-to-row correlation; the planner's order-0 estimate cannot
    // rank sizes for order-1 blocks, so try each.
    if (p.order1_blocks)
      for (int lg : kOrder1BlockLog2s)
        try_candidate(
            best, Method::rans_blocks, [&](std::vector<uint8_t>& b) { return encode_rans_blocks(in, lg, b, true); },
            o1_margin);
  }
  // LZ only pays on streams with matches, and zstd at a high level codes
  // ~1 MB/s: a sample at the level must beat the best rANS coding's ratio
  // before the whole stream is coded.
  bool lz_worthwhile = p.zstd_everywhere;
  if (!lz_worthwhile) {
    const size_t sample = std::min(in.size(), kZstdSampleBytes);
    std::vector<uint8_t> probe;
    lz_worthwhile = encode_zstd(in.subspan((in.size() - sample) / 2, sample), p.zstd_level, probe) &&
                    double(probe.size()) * double(in.size()) < double(best.size) * double(sample);
  }
  if (lz_worthwhile)
    try_candidate(best, Method::zstd, [&](std::vector<uint8_t>& b) { return encode_zstd(in, p.zstd_level, b); });
}

// Effort fast: only the coders the estimates promise. Where one candidate is
// left it is encoded straight into `out` (no candidate copy): then its
// method is returned; otherwise `best` holds the winner (or stays stored).
std::optional<Method> pick_estimated(std::span<const uint8_t> in, const EntropyPolicy& p, const Stats& s, Best& best,
                                     std::vector<uint8_t>& out) {
  const bool noisy = s.h0 >= kNoiseBitsPerByte;
  const BlockPlan bp = s.blocks;
  const bool use1 = s.est_rans1 > 0 && s.est_rans1 < kOrder1EstimateMargin * s.est_rans0;
  const double whole = use1 ? s.est_rans1 : s.est_rans0;
  const size_t base = out.size();
  if (bp.log2 && bp.estimate < kBlocksEstimateMargin * whole &&
      bp.estimate < kBlocksEstimateMargin * double(in.size())) {
    // Local statistics beat one table by a clear margin: blocked rANS,
    // falling back to stored.
    if (encode_rans_blocks(in, bp.log2, out) && out.size() - base < in.size()) return Method::rans_blocks;
    out.resize(base);
    return std::nullopt;
  }
  if (noisy && s.est_rans0 >= kNoisyEstimateMargin * double(in.size())) return std::nullopt;
  // zstd wins on runs and repeats the histograms cannot see: probe a sample.
  const size_t sample = std::min(in.size(), std::clamp(in.size() / 8, kZstdMinSampleBytes, kZstdSampleBytes));
  std::vector<uint8_t> probe;
  const bool try_zstd = encode_zstd(in.subspan((in.size() - sample) / 2, sample), p.zstd_level, probe) &&
                        double(probe.size()) / double(sample) < kZstdSampleMargin * whole / double(in.size());
  const bool try0 = !use1 || s.est_rans0 < kOrder0Reach * s.est_rans1;
  if (!try_zstd && use1 != try0) {
    // One candidate: encode straight into `out`, else stored.
    if (encode_rans(in, use1 ? 1 : 0, out) && out.size() - base < in.size()) return use1 ? Method::rans1 : Method::rans0;
    out.resize(base);
    return std::nullopt;
  }
  if (try_zstd) try_candidate(best, Method::zstd, [&](std::vector<uint8_t>& b) { return encode_zstd(in, p.zstd_level, b); });
  if (use1) try_candidate(best, Method::rans1, [&](std::vector<uint8_t>& b) { return encode_rans(in, 1, b); });
  if (try0) try_candidate(best, Method::rans0, [&](std::vector<uint8_t>& b) { return encode_rans(in, 0, b); });
  return std::nullopt;
}

}  // namespace

Method encode_best(std::span<const uint8_t> in, const EntropyPolicy& p, std::vector<uint8_t>& out) {
  if (p.long_repeats) return encode_repeat_stream(in, p, out);
  if (p.whole_stream_lz) return encode_long_stream(in, p, out);
  Best best;
  best.size = in.size();  // stored
  if (in.size() >= kMinCodedBytes && in.size() <= kMaxStreamBytes) {
    const Stats s = stream_stats(in);
    if (p.exhaustive || p.zstd_everywhere) {
      try_every_coder(in, p, s, best);
    } else if (const std::optional<Method> m = pick_estimated(in, p, s, best, out)) {
      return *m;
    }
  }
  if (best.method == Method::stored) {
    out.insert(out.end(), in.begin(), in.end());
  } else {
    out.insert(out.end(), best.payload.begin(), best.payload.end());
  }
  return best.method;
}

zt::Status check_stream_produces(uint8_t method, bool allow_context_coders, std::span<const uint8_t> in,
                                 uint64_t raw_len) {
  switch (static_cast<Method>(method)) {
    case Method::stored:
      if (in.size() != raw_len)
        return {zt::ErrorCode::length_mismatch, "z4ai: stored stream has " + std::to_string(in.size()) +
                                                    " bytes, expected " + std::to_string(raw_len)};
      return {};
    case Method::zstd: return check_zstd_produces(in, raw_len);
    case Method::rans0:
    case Method::rans1: return check_rans_declared(in, raw_len);
    case Method::rans_blocks: return check_rans_blocks(in, raw_len);
    case Method::rans0_14: return check_legacy_rans_declared(0, in, raw_len);
    case Method::rans0_14_adaptive: return check_legacy_rans_declared(1, in, raw_len);
    case Method::rans_segments:
      if (allow_context_coders) return check_rans_segments(in, raw_len);
      break;
    case Method::arith0:
    case Method::arith1:
      if (allow_context_coders) return check_arith_declared(in, raw_len);
      break;
    case Method::brotli:
      if (allow_context_coders) return {};
      break;
  }
  return {zt::ErrorCode::corrupt_stream,
          "z4ai: stream method " + std::to_string(method) + " is not valid in this frame type"};
}

zt::Status check_substream(const SubStream& part, const char* what) {
  if (part.method != uint8_t(Method::stored) && part.method != uint8_t(Method::rans0) &&
      part.method != uint8_t(Method::rans1))
    return {zt::ErrorCode::corrupt_stream, std::string("z4ai: ") + what + " has method " + std::to_string(part.method)};
  return check_stream_produces(part.method, false, part.payload, part.raw_len);
}

zt::Status decode_substreams(std::span<const SubStream> parts, std::span<uint8_t> out) {
  size_t off = 0;
  for (const SubStream& p : parts) {
    ZT_RETURN_IF_ERROR(decode_stream(p.method, false, p.payload, out.subspan(off, size_t(p.raw_len))));
    off += size_t(p.raw_len);
  }
  return {};
}

zt::Status decode_stream(uint8_t method, bool allow_context_coders, std::span<const uint8_t> in,
                         std::span<uint8_t> out) {
  switch (static_cast<Method>(method)) {
    case Method::stored:
      if (in.size() != out.size())
        return {zt::ErrorCode::length_mismatch, "z4ai: stored stream has " + std::to_string(in.size()) +
                                                    " bytes, expected " + std::to_string(out.size())};
      if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
      return {};
    case Method::zstd: return decode_zstd(in, out);
    case Method::rans0:
    case Method::rans1: return decode_rans(in, out);
    case Method::rans_blocks: return decode_rans_blocks(in, out);
    case Method::rans0_14: return decode_legacy_rans0(in, out);
    case Method::rans0_14_adaptive: return decode_legacy_rans_adaptive(in, out);
    case Method::rans_segments:
      if (allow_context_coders) return decode_rans_segments(in, out);
      break;
    case Method::brotli:
      if (allow_context_coders) return decode_brotli(in, out);
      break;
    case Method::arith0:
    case Method::arith1:
      if (allow_context_coders) return decode_arith(in, out);
      break;
  }
  return {zt::ErrorCode::corrupt_stream,
          "z4ai: stream method " + std::to_string(method) + " is not valid in this frame type"};
}

}  // namespace z4ai::detail
