// Our encoder for the 14-bit order-0 rANS layout that decode_legacy_rans0
// reads (pypi_rans.cc documents it): u64 n | 256 x u16 frequencies summing
// to 2^14 | 4 u32 final states | renormalisation bytes, symbol i on lane i % 4.
// 14-bit frequencies fit a wide, smooth alphabet (paired exponents) closer
// than htscodecs' 12-bit ones; the table is a fixed 512 bytes.
#include "codec/entropy/rans14.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <queue>

#include "codec/common/byte_io.h"
#include "codec/entropy/histogram.h"
#include "codec/entropy/pypi_rans.h"

namespace z4ai::detail {
namespace {

constexpr int kScaleBits = kRans14ScaleBits;
constexpr uint32_t kScale = 1u << kScaleBits;
constexpr uint32_t kRansLow = kRans14Low;  // the decoder's renormalisation bound and final state
constexpr size_t kLanes = kRans14Lanes;

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

namespace {

// A symbol's encode step: s / f as a multiply and shift (with l = ceil(log2 f)
// and m = ceil(2^(31+l) / f), floor(s * m / 2^(31+l)) = floor(s / f) for
// every s < 2^31: m * f exceeds 2^(31+l) by less than 2^l), and the largest
// state that still decodes back into [kRansLow, 2^31) after the step.
struct EncSym {
  uint64_t rcp = 0;
  uint32_t x_max = 0;  // 0 for an absent symbol: flags it
  uint16_t freq = 0;
  uint16_t cum = 0;
  uint32_t shift = 0;
};

// Renormalises then codes one symbol. A step emits at most two bytes (s <
// 2^31 and x_max >= 2^17), their count known from s alone, so both are
// stored unconditionally and the write pointer only moves by the count;
// p[-1] and p[-2] are always inside the buffer (it holds 2 bytes spare).
inline void enc_step(const EncSym& e, uint32_t& s, uint8_t*& p) {
  const uint32_t k = uint32_t(s >= e.x_max) + uint32_t(uint64_t(s) >= uint64_t(e.x_max) << 8);
  p[-1] = uint8_t(s);
  p[-2] = uint8_t(s >> 8);
  p -= k;
  s >>= 8 * k;
  const uint32_t q = uint32_t((uint64_t(s) * e.rcp) >> e.shift);
  s = (q << kScaleBits) + (s - q * e.freq) + e.cum;
}

}  // namespace

bool encode_rans14(std::span<const uint8_t> in, const uint16_t* freq, std::vector<uint8_t>& out) {
  if (in.size() > kMaxStreamBytes) return false;
  if (in.empty()) {  // the decoder reads no table for n = 0
    put_u64(out, 0);
    return true;
  }
  EncSym sym[256];
  uint32_t cum = 0;
  for (int c = 0; c < 256; ++c) {
    EncSym& e = sym[c];
    e.cum = uint16_t(cum);
    cum += freq[c];
    if (!freq[c]) continue;
    int l = 0;
    while ((1u << l) < freq[c]) ++l;
    e.shift = uint32_t(31 + l);
    e.rcp = ((uint64_t{1} << e.shift) + freq[c] - 1) / freq[c];
    e.freq = freq[c];
    e.x_max = ((kRansLow >> kScaleBits) << 8) * freq[c];
  }
  if (cum != kScale) return false;
  // Bytes are produced last symbol first, so they are written backwards into
  // a buffer holding the worst case (2 bytes a symbol) plus the spare write;
  // left uninitialised, only the pages written are ever touched.
  const size_t cap = in.size() * 2 + 16;
  std::unique_ptr<uint8_t[]> buf(new uint8_t[cap]);
  uint8_t* const top = buf.get() + cap;
  uint8_t* p = top;
  uint32_t x[kLanes] = {kRansLow, kRansLow, kRansLow, kRansLow};
  uint32_t absent = 0;  // a symbol the table cannot code makes the stream invalid
  size_t i = in.size();
  for (; i % kLanes; --i) {  // the last, partial group: symbol i - 1 on lane (i - 1) % 4
    const EncSym& e = sym[in[i - 1]];
    absent |= e.x_max == 0;
    enc_step(e, x[(i - 1) % kLanes], p);
  }
  {
    uint32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
    const uint8_t* d = in.data();
    for (; i; i -= kLanes) {
      const EncSym &e3 = sym[d[i - 1]], &e2 = sym[d[i - 2]], &e1 = sym[d[i - 3]], &e0 = sym[d[i - 4]];
      absent |= (e3.x_max == 0) | (e2.x_max == 0) | (e1.x_max == 0) | (e0.x_max == 0);
      enc_step(e3, x3, p);
      enc_step(e2, x2, p);
      enc_step(e1, x1, p);
      enc_step(e0, x0, p);
    }
    x[0] = x0, x[1] = x1, x[2] = x2, x[3] = x3;
  }
  if (absent) return false;
  put_u64(out, in.size());
  for (int s = 0; s < 256; ++s) put_u16(out, freq[s]);
  for (size_t l = 0; l < kLanes; ++l) put_u32(out, x[l]);
  out.insert(out.end(), p, top);
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
