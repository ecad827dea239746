#include "codec/entropy/repeat_path.h"

#include <algorithm>

#include "codec/transform/transforms.h"

namespace z4ai::detail {
namespace {

// Streams shorter than this go to encode_best alone (it stores < 64 bytes).
constexpr size_t kMinLongBytes = 4096;
// The long-match encoding must come under this share of the entropy estimate
// to skip encode_best's candidates (the estimate runs a little low).
constexpr double kLongWinShare = 0.97;
// Short-range probe: zstd at the policy level must beat the literal-biased
// encoding by this factor on a mid-stream sample to be tried in full.
constexpr size_t kShortProbeBytes = size_t{128} << 10;
constexpr double kShortWinShare = 0.97;
// sampled_estimate: pieces of one blocked-rANS block each.
constexpr size_t kEstimatePieces = 32;
constexpr size_t kEstimatePieceBytes = size_t{16} << 10;
// whole_zstd_may_win: kWindows spread windows of kWindowBytes each.
constexpr size_t kWindows = 4;
constexpr size_t kWindowBytes = size_t{64} << 10;
constexpr double kWholeZstdMargin = 0.97;

// Entropy estimate (estimate_coded_size) of `in` from kEstimatePieces spread
// pieces, scaled to the whole: the full pass costs more than the zstd encode.
// Each piece fills one 16 KiB block of the blocked-rANS plan, so local
// statistics still count.
double sampled_estimate(std::span<const uint8_t> in) {
  if (in.size() <= kEstimatePieces * kEstimatePieceBytes * 2) return estimate_coded_size(in);
  const size_t stride = (in.size() - kEstimatePieceBytes) / (kEstimatePieces - 1);
  std::vector<uint8_t> sample;
  sample.reserve(kEstimatePieces * kEstimatePieceBytes);
  for (size_t i = 0; i < kEstimatePieces; ++i) {
    const uint8_t* p = in.data() + i * stride;
    sample.insert(sample.end(), p, p + kEstimatePieceBytes);
  }
  return estimate_coded_size(sample) * double(in.size()) / double(sample.size());
}

EntropyPolicy without_repeats(const EntropyPolicy& p) {
  EntropyPolicy q = p;
  q.long_repeats = false;
  return q;
}

}  // namespace

Method encode_repeat_stream(std::span<const uint8_t> in, const EntropyPolicy& policy, std::vector<uint8_t>& out) {
  const EntropyPolicy plain = without_repeats(policy);
  if (in.size() < kMinLongBytes || in.size() > kMaxStreamBytes) return encode_best(in, plain, out);
  // The long-match encoding goes straight into `out` (usually it wins; the
  // caller reserved room for the stored stream, which caps it).
  const size_t base = out.size();
  if (!encode_zstd_long(in, plain.zstd_level, /*literal_bias=*/true, out, in.size())) {
    out.resize(base);
    return encode_best(in, plain, out);
  }
  size_t lz = out.size() - base;
  bool run_regular = plain.exhaustive || double(lz) >= kLongWinShare * sampled_estimate(in);
  if (!run_regular) {
    // Short-range redundancy (runs, dequantised grids) is what the biased
    // matcher gives up: compare both matchers on a sample without long repeats.
    const size_t n = std::min(in.size(), kShortProbeBytes);
    std::span<const uint8_t> sample = in.subspan((in.size() - n) / 2, n);
    std::vector<uint8_t> biased, full;
    if (encode_zstd_long(sample, plain.zstd_level, true, biased, n) &&
        encode_zstd_long(sample, plain.zstd_level, false, full, n) &&
        double(full.size()) < kShortWinShare * double(biased.size())) {
      std::vector<uint8_t> alt;
      if (encode_zstd_long(in, plain.zstd_level, false, alt, lz) && alt.size() < lz) {
        out.resize(base);
        out.insert(out.end(), alt.begin(), alt.end());
        lz = alt.size();
      }
      // Matches that short may also lose to the entropy coders.
      run_regular = double(lz) >= kLongWinShare * sampled_estimate(in);
    }
  }
  if (!run_regular) return Method::zstd;
  std::vector<uint8_t> kept(out.begin() + std::ptrdiff_t(base), out.end());
  out.resize(base);
  const Method m = encode_best(in, plain, out);
  if (out.size() - base <= lz) return m;
  out.resize(base);
  out.insert(out.end(), kept.begin(), kept.end());
  return Method::zstd;
}

bool whole_zstd_may_win(std::span<const uint8_t> data, DType dtype, const EntropyPolicy& policy) {
  const uint32_t w = dtype_width(dtype);
  const Transform t = primary_transform(dtype);
  const size_t win = std::min(kWindowBytes, data.size() / kWindows) / w * w;
  if (win == 0) return true;
  const size_t stride = (data.size() - win) / (kWindows - 1) / w * w;
  const uint32_t k = stream_count(t, dtype);
  const size_t n = win / w;
  std::vector<std::vector<uint8_t>> streams(k, std::vector<uint8_t>(stream_length(t, dtype, n)));
  std::vector<uint8_t*> ptrs(k);
  for (uint32_t i = 0; i < k; ++i) ptrs[i] = streams[i].data();
  size_t raw = 0, split = 0;
  std::vector<uint8_t> buf;
  for (size_t i = 0; i < kWindows; ++i) {
    std::span<const uint8_t> window = data.subspan(i * stride, win);
    buf.clear();
    if (!encode_zstd(window, policy.zstd_level, buf)) return false;
    raw += buf.size();
    forward_transform(t, dtype, window.data(), n, ptrs.data());
    for (const auto& s : streams) {
      buf.clear();
      encode_repeat_stream(s, policy, buf);
      split += buf.size();
    }
  }
  return kWholeZstdMargin * double(raw) <= double(split);
}

}  // namespace z4ai::detail
