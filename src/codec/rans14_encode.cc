// Our encoder for the 14-bit order-0 rANS layout that decode_legacy_rans0
// reads (legacy_rans.cc documents it): u64 n | 256 x u16 frequencies summing
// to 2^14 | 4 u32 final states | renormalisation bytes, symbol i on lane i % 4.
// 14-bit frequencies fit a wide, smooth alphabet (paired exponents) closer
// than htscodecs' 12-bit ones; the table is a fixed 512 bytes.
#include "codec/rans14.h"

#include <algorithm>
#include <cmath>
#include <queue>

#include "codec/byte_io.h"
#include "codec/histogram.h"

namespace z4ai::detail {
namespace {

constexpr int kScaleBits = 14;
constexpr uint32_t kScale = 1u << kScaleBits;
constexpr uint32_t kRansLow = 1u << 23;  // the decoder's renormalisation bound and final state
constexpr size_t kLanes = 4;

// Cost in bits of coding `count` symbols at frequency f instead of f + 1.
double step_cost(uint32_t count, uint32_t f) { return double(count) * std::log2(double(f + 1) / double(f)); }

}  // namespace

void rans14_normalize(const uint32_t* counts, uint16_t* freq) {
  uint64_t total = 0;
  for (int s = 0; s < 256; ++s) total += counts[s];
  std::fill(freq, freq + 256, uint16_t{0});
  if (total == 0) return;
  // Scaled and rounded down, every present symbol at least 1; then the
  // remaining slots go (or come back) one at a time where a slot changes the
  // coded size most (least), which is the optimum for this cost.
  int64_t sum = 0;
  for (int s = 0; s < 256; ++s) {
    if (!counts[s]) continue;
    freq[s] = uint16_t(std::max<uint64_t>(1, uint64_t(counts[s]) * kScale / total));
    sum += freq[s];
  }
  using Entry = std::pair<double, int>;
  if (sum < int64_t(kScale)) {
    std::priority_queue<Entry> gain;  // bits saved by one more slot
    for (int s = 0; s < 256; ++s)
      if (counts[s]) gain.push({step_cost(counts[s], freq[s]), s});
    for (; sum < int64_t(kScale); ++sum) {
      const int s = gain.top().second;
      gain.pop();
      ++freq[s];
      gain.push({step_cost(counts[s], freq[s]), s});
    }
  } else {
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> loss;  // bits lost by one slot fewer
    for (int s = 0; s < 256; ++s)
      if (freq[s] > 1) loss.push({step_cost(counts[s], freq[s] - 1), s});
    for (; sum > int64_t(kScale); --sum) {
      const int s = loss.top().second;
      loss.pop();
      --freq[s];
      if (freq[s] > 1) loss.push({step_cost(counts[s], freq[s] - 1), s});
    }
  }
}

double rans14_coded_size(const uint32_t* counts, const uint16_t* freq) {
  double bits = 0;
  for (int s = 0; s < 256; ++s)
    if (counts[s]) bits += double(counts[s]) * (kScaleBits - std::log2(double(freq[s])));
  return bits / 8 + double(kRans14HeaderBytes);
}

bool encode_rans14(std::span<const uint8_t> in, const uint16_t* freq, std::vector<uint8_t>& out) {
  if (in.size() > kMaxStreamBytes) return false;
  if (in.empty()) {  // the decoder reads no table for n = 0
    put_u64(out, 0);
    return true;
  }
  uint32_t cum[257] = {0};
  for (int s = 0; s < 256; ++s) cum[s + 1] = cum[s] + freq[s];
  if (cum[256] != kScale) return false;
  for (uint8_t b : in)
    if (!freq[b]) return false;  // a symbol the table cannot code
  put_u64(out, in.size());
  for (int s = 0; s < 256; ++s) put_u16(out, freq[s]);
  // Bytes are produced last symbol first, so they are written backwards
  // into a buffer that holds the worst case (4 bytes a symbol, the states).
  std::vector<uint8_t> buf(in.size() * 4 + 16);
  uint8_t* p = buf.data() + buf.size();
  uint32_t x[kLanes] = {kRansLow, kRansLow, kRansLow, kRansLow};
  // s / f as a multiply and shift: with l = ceil(log2 f) and
  // m = ceil(2^(31+l) / f), floor(s * m / 2^(31+l)) = floor(s / f) for every
  // s < 2^31 (m * f exceeds 2^(31+l) by less than 2^l).
  uint64_t rcp[256] = {0};
  uint8_t shift[256] = {0};
  for (int c = 0; c < 256; ++c) {
    if (!freq[c]) continue;
    int l = 0;
    while ((1u << l) < freq[c]) ++l;
    shift[c] = uint8_t(31 + l);
    rcp[c] = ((uint64_t{1} << shift[c]) + freq[c] - 1) / freq[c];
  }
  for (size_t i = in.size(); i-- > 0;) {
    uint32_t& s = x[i % kLanes];
    const uint8_t c = in[i];
    const uint32_t f = freq[c];
    // The largest state that still decodes back into [kRansLow, 2^31) after the step.
    const uint32_t x_max = ((kRansLow >> kScaleBits) << 8) * f;
    while (s >= x_max) {
      *--p = uint8_t(s);
      s >>= 8;
    }
    const uint32_t q = uint32_t((uint64_t(s) * rcp[c]) >> shift[c]);
    s = (q << kScaleBits) + (s - q * f) + cum[c];
  }
  for (size_t l = 0; l < kLanes; ++l) put_u32(out, x[l]);
  const size_t tail = size_t(buf.data() + buf.size() - p);
  out.insert(out.end(), p, p + tail);
  return true;
}

void rans14_table(std::span<const uint8_t> in, uint32_t* counts, uint16_t* freq) {
  Histogram4 hist = {};
  count_bytes(hist, in.data(), in.size());
  sum_histogram(hist, counts);
  rans14_normalize(counts, freq);
}

bool encode_rans14(std::span<const uint8_t> in, std::vector<uint8_t>& out) {
  uint32_t counts[256];
  uint16_t freq[256];
  rans14_table(in, counts, freq);
  return encode_rans14(in, freq, out);
}

}  // namespace z4ai::detail
