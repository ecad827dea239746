#include "codec/long_stream_path.h"

#include <algorithm>

#include "codec/transforms.h"

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
// Typed inputs up to this size always build the candidate: on them a second
// coding pass costs a few milliseconds, and the spread windows below are too
// few to see repeats that lie anywhere in the buffer.
constexpr size_t kAlwaysBytes = size_t{2} << 20;
// Larger inputs: kProbeWindows spread windows of up to kProbeWindowElems
// elements, transformed; the candidate is built when zstd at level 1 on some
// stream of the windows comes under kProbeShare of that stream's entropy
// estimate (estimate_coded_size: order-0/1 and blocked statistics).
constexpr size_t kProbeWindows = 4;
constexpr size_t kProbeWindowElems = size_t{16} << 10;
constexpr double kProbeShare = 0.95;

EntropyPolicy without_long_streams(const EntropyPolicy& p) {
  EntropyPolicy q = p;
  q.whole_stream_lz = false;
  return q;
}

}  // namespace

Method encode_long_stream(std::span<const uint8_t> in, const EntropyPolicy& policy, std::vector<uint8_t>& out) {
  const size_t base = out.size();
  Method m = encode_best(in, without_long_streams(policy), out);
  if (in.size() < kMinLongStreamBytes || in.size() > kMaxStreamBytes) return m;
  size_t best = out.size() - base;
  std::vector<uint8_t> lz;
  const int levels[] = {kFastLongLevel, policy.zstd_level};
  for (size_t i = 0; i < (policy.zstd_level == kFastLongLevel ? 1u : 2u); ++i) {
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
  return m;
}

bool long_stream_candidate_applies(std::span<const uint8_t> data, DType dtype, bool repeats) {
  const uint32_t w = dtype_width(dtype);
  if (dtype == DType::opaque || data.size() < kMinLongStreamBytes) return false;
  if (data.size() <= kAlwaysBytes) return true;
  // Larger inputs with long-range repeats: the repeat frame holds the copies
  // (on tied and copied weights it beat this candidate by 2-3 %).
  if (repeats) return false;
  const Transform t = primary_transform(dtype);
  const size_t elems = data.size() / w;
  const size_t n = std::min(kProbeWindowElems, elems / kProbeWindows);
  const size_t stride = (elems - n) / (kProbeWindows - 1);
  const uint32_t k = stream_count(t, dtype);
  const size_t len = stream_length(t, dtype, n);
  std::vector<std::vector<uint8_t>> streams(k, std::vector<uint8_t>(len * kProbeWindows));
  std::vector<uint8_t*> ptrs(k);
  for (size_t i = 0; i < kProbeWindows; ++i) {
    for (uint32_t s = 0; s < k; ++s) ptrs[s] = streams[s].data() + i * len;
    forward_transform(t, dtype, data.data() + i * stride * w, n, ptrs.data());
  }
  std::vector<uint8_t> buf;
  for (const auto& s : streams) {
    buf.clear();
    if (encode_zstd(s, kFastLongLevel, buf) && double(buf.size()) < kProbeShare * estimate_coded_size(s)) return true;
  }
  return false;
}

}  // namespace z4ai::detail
