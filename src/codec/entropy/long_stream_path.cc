#include "codec/entropy/long_stream_path.h"

#include <algorithm>

#include "codec/entropy/rans14_adaptive.h"

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
