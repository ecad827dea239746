#include "codec/entropy/long_stream_path.h"

#include <algorithm>

#include "codec/entropy/histogram.h"
#include "codec/entropy/rans14_adaptive.h"
#include "codec/entropy/repetition_probe.h"

namespace z4ai::detail {
namespace {

// Streams shorter than this keep encode_best's choice (zstd's frame and
// table overhead eats any match gain).
constexpr size_t kMinLongStreamBytes = 4096;
// PyPI z4ai 0.2.0 codes its planes at zstd level 1 with LDM: on entropy-dense
// planes level 1 often beats 3 (a measured 114 vs 123 KB on an RNN's fp32
// exponent plane, 281.8 vs 280.1 KB on its mantissa plane). The higher level
// is tried only when level 1 came within kHigherLevelReach of the best coding
// (the levels differed by under 1 % where the higher one won; noise streams,
// which level 1 cannot shrink, skip it).
constexpr int kFastLongLevel = 1;
constexpr double kHigherLevelReach = 1.03;
// Typed inputs up to this size build the candidate: on them the extra coding
// pass costs a few milliseconds (CPU: 9-20 ms on 0.2-2 MB). 4 MiB takes in a
// 2.8 MB fp16 RNN (resemblyzer), 0.22 % smaller with it. Larger inputs do
// not: a probe of zstd on four spread windows of the streams against their
// entropy estimate fired on no entry of the benchmark corpus (real CNN, RNN
// and detector weights up to 90 MB, dequantised, pruned, fp8) while every
// input up to 64 MiB paid for it; spread windows cannot see repeats far apart.
constexpr size_t kAlwaysBytes = size_t{4} << 20;
// Streams up to this size always try the zstd frames: the trial is cheap
// there, and the RNN-like inputs whose planes zstd codes to half of rANS's
// (tests/golden/z4ai-0.2.0/size_refs.json) have streams of 8-86 KB.
constexpr size_t kAlwaysTryLzBytes = size_t{128} << 10;
// Larger streams try them only on evidence that zstd's matches pay
// (lz_may_pay): kLzProbeWindows spread windows of kLzProbeWindowBytes, coded
// as one zstd frame at level 1. The trials cost 4-8x the rest of a
// long-stream frame, and on every plain float input measured (gaussian and
// real CNN/RNN/detector weights, 1-4 MiB) none won a stream: zstd's Huffman
// literals cannot beat rANS on a stream without matches.
constexpr size_t kLzProbeWindows = 4;
constexpr size_t kLzProbeWindowBytes = size_t{16} << 10;

EntropyPolicy without_long_streams(const EntropyPolicy& p) {
  EntropyPolicy q = p;
  q.whole_stream_lz = false;
  return q;
}

// The probe windows of lz_may_pay, back to back.
std::vector<uint8_t> probe_windows(std::span<const uint8_t> in) {
  std::vector<uint8_t> out;
  out.reserve(kLzProbeWindows * kLzProbeWindowBytes);
  const size_t segment = in.size() / kLzProbeWindows;
  for (size_t i = 0; i < kLzProbeWindows; ++i) {
    const uint8_t* p = in.data() + i * segment + (segment - kLzProbeWindowBytes) / 2;
    out.insert(out.end(), p, p + kLzProbeWindowBytes);
  }
  return out;
}

}  // namespace

bool lz_may_pay(std::span<const uint8_t> in) {
  if (in.size() <= kAlwaysTryLzBytes) return true;
  // Repeats far apart (a tensor and its negated copy share their exponent
  // and mantissa streams): 64-byte blocks that recur.
  if (has_long_range_repeats(in)) return true;
  // Matches within the windows: zstd without matches codes each literal with
  // a Huffman code, at least the windows' order-0 entropy, so a frame below
  // it proves that matches paid there.
  const std::vector<uint8_t> windows = probe_windows(in);
  Histogram4 hist = {};
  count_bytes(hist, windows.data(), windows.size());
  uint32_t counts[256];
  sum_histogram(hist, counts);
  const double literal_bytes = entropy_bits(counts, 256, windows.size()) * double(windows.size()) / 8;
  std::vector<uint8_t> lz;
  return encode_zstd(windows, kFastLongLevel, lz) && double(lz.size()) < literal_bytes;
}

Method encode_long_stream(std::span<const uint8_t> in, const EntropyPolicy& policy, std::vector<uint8_t>& out) {
  const size_t base = out.size();
  Method m = encode_best(in, without_long_streams(policy), out);
  if (in.size() < kMinLongStreamBytes || in.size() > kMaxStreamBytes) return m;
  size_t best = out.size() - base;
  std::vector<uint8_t> lz;
  const int levels[] = {kFastLongLevel, policy.zstd_level};
  const size_t lz_trials = !lz_may_pay(in) ? 0 : policy.zstd_level == kFastLongLevel ? 1 : 2;
  for (size_t i = 0; i < lz_trials; ++i) {
    lz.clear();
    // max_bytes: level 1 is abandoned beyond kHigherLevelReach of the best
    // coding (the higher level is then skipped), the higher level at the best.
    const size_t cap = i == 0 ? size_t(kHigherLevelReach * double(best)) : best - 1;
    if (!encode_zstd_long(in, levels[i], /*literal_bias=*/false, lz, cap)) break;
    if (lz.size() < best) {
      out.resize(base);
      out.insert(out.end(), lz.begin(), lz.end());
      best = lz.size();
      m = Method::zstd;
    }
  }
  // A table per 64 KiB slice: an fp16 high byte plane whose statistics drift
  // from tensor to tensor (PyPI z4ai's coding of it). Its exact cost from the
  // slice tables decides before any symbol is coded.
  lz.clear();
  if (policy.slice_tables && encode_rans14_adaptive(in, lz, best - 1)) {
    out.resize(base);
    out.insert(out.end(), lz.begin(), lz.end());
    m = Method::rans0_14_adaptive;
  }
  return m;
}

bool long_stream_candidate_applies(std::span<const uint8_t> data, DType dtype) {
  return dtype != DType::opaque && data.size() >= kMinLongStreamBytes && data.size() <= kAlwaysBytes;
}

}  // namespace z4ai::detail
