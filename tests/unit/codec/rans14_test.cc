// The 14-bit order-0 rANS encoder (rans14.h) against the hardened decoder it
// shares with PyPI z4ai frames (decode_legacy_rans0), and through
// decode_stream as entropy Method rans0_14.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "codec/entropy/entropy.h"
#include "codec/entropy/pypi_rans.h"
#include "codec/entropy/rans14.h"

namespace z4ai::detail {
namespace {

void expect_round_trip(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> coded;
  ASSERT_TRUE(encode_rans14(in, coded));
  std::vector<uint8_t> back(in.size(), 0xA5);
  ASSERT_TRUE(decode_legacy_rans0(coded, back).ok()) << in.size() << " bytes";
  EXPECT_EQ(back, in);
  std::vector<uint8_t> via(in.size(), 0x5A);
  ASSERT_TRUE(decode_stream(uint8_t(Method::rans0_14), false, coded, via).ok());
  EXPECT_EQ(via, in);
}

std::vector<uint8_t> gaussian_bytes(size_t n, double sigma, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(128, sigma);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(std::clamp(std::lround(g(rng)), 0L, 255L));
  return v;
}

TEST(Rans14, RoundTripsSkewedUniformSingleSymbolAndTiny) {
  expect_round_trip(gaussian_bytes(200000, 3, 1));   // skewed
  expect_round_trip(gaussian_bytes(3, 3, 2));        // fewer symbols than lanes
  expect_round_trip({});                             // empty: header only
  expect_round_trip({7});
  expect_round_trip(std::vector<uint8_t>(100000, 42));  // one symbol: no bytes beyond the states
  std::mt19937 rng(3);
  std::vector<uint8_t> uniform(65537);
  for (auto& b : uniform) b = uint8_t(rng());
  expect_round_trip(uniform);
  // One very common symbol and 255 seen once: the rare ones keep a slot each.
  std::vector<uint8_t> rare(1 << 20, 0);
  for (int s = 1; s < 256; ++s) rare[size_t(s) * 4001] = uint8_t(s);
  expect_round_trip(rare);
}

TEST(Rans14, NormalisationSumsToScaleAndKeepsEveryPresentSymbol) {
  uint32_t counts[256] = {0};
  counts[0] = 4000000000u;  // dominant: every other symbol rounds to 0 before the floor
  for (int s = 1; s < 256; s += 2) counts[s] = 1;
  uint16_t freq[256];
  rans14_normalize(counts, freq);
  uint32_t sum = 0;
  for (int s = 0; s < 256; ++s) {
    sum += freq[s];
    EXPECT_EQ(freq[s] > 0, counts[s] > 0) << "symbol " << s;
  }
  EXPECT_EQ(sum, 1u << 14);
  uint32_t none[256] = {0};
  rans14_normalize(none, freq);
  for (int s = 0; s < 256; ++s) EXPECT_EQ(freq[s], 0);
}

TEST(Rans14, CodedSizeEstimateIsExactToTheStateFlush) {
  const auto in = gaussian_bytes(1 << 18, 6, 4);
  uint32_t counts[256] = {0};
  for (uint8_t b : in) ++counts[b];
  uint16_t freq[256];
  rans14_normalize(counts, freq);
  std::vector<uint8_t> coded;
  ASSERT_TRUE(encode_rans14(in, freq, coded));
  EXPECT_NEAR(double(coded.size()), rans14_coded_size(counts, freq), 16);
}

TEST(Rans14, RefusesATableThatCannotCodeTheInput) {
  uint16_t freq[256] = {0};
  freq[1] = 1 << 14;
  std::vector<uint8_t> out{9};
  const std::vector<uint8_t> in{1, 1, 2};
  EXPECT_FALSE(encode_rans14(in, freq, out));
  EXPECT_EQ(out, std::vector<uint8_t>{9}) << "out must be left as it was";
  freq[2] = 1;  // sums past 2^14
  EXPECT_FALSE(encode_rans14(in, freq, out));
}

// The layout coded the plain way (one division per symbol, a renormalisation
// loop): the fast encoder must write exactly these bytes.
std::vector<uint8_t> reference_encode(const std::vector<uint8_t>& in, const uint16_t* freq) {
  std::vector<uint8_t> out;
  for (int k = 0; k < 8; ++k) out.push_back(uint8_t(uint64_t(in.size()) >> (8 * k)));
  for (int s = 0; s < 256; ++s) out.push_back(uint8_t(freq[s])), out.push_back(uint8_t(freq[s] >> 8));
  uint32_t cum[256], acc = 0;
  for (int s = 0; s < 256; ++s) cum[s] = acc, acc += freq[s];
  uint32_t x[4] = {1u << 23, 1u << 23, 1u << 23, 1u << 23};
  std::vector<uint8_t> rev;
  for (size_t i = in.size(); i-- > 0;) {
    uint32_t& s = x[i % 4];
    const uint32_t f = freq[in[i]];
    while (s >= (f << 17)) rev.push_back(uint8_t(s)), s >>= 8;
    s = (s / f << 14) + s % f + cum[in[i]];
  }
  for (uint32_t s : x)
    for (int k = 0; k < 4; ++k) out.push_back(uint8_t(s >> (8 * k)));
  out.insert(out.end(), rev.rbegin(), rev.rend());
  return out;
}

TEST(Rans14, FastEncoderWritesTheReferenceBytesAtEveryLengthModFour) {
  for (size_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 31, 33, 66, 67, 1001, 70003}) {
    for (double sigma : {0.7, 3.0, 40.0}) {
      const auto in = gaussian_bytes(n, sigma, uint32_t(n));
      uint32_t counts[256];
      uint16_t freq[256];
      rans14_table(in, counts, freq);
      std::vector<uint8_t> coded;
      ASSERT_TRUE(encode_rans14(in, freq, coded));
      EXPECT_EQ(coded, reference_encode(in, freq)) << n << " bytes, sigma " << sigma;
      expect_round_trip(in);
    }
  }
}

// The decoder reads groups of 4 symbols unchecked while 8 bytes are left,
// then byte by byte: cutting any of the last bytes (the final renorms read
// them) or the whole payload must fail cleanly, never read past the end.
TEST(Rans14, DecoderRejectsEveryTruncationOfTheLastBytes) {
  const auto in = gaussian_bytes(4099, 30, 6);  // wide: several renorm bytes per group
  std::vector<uint8_t> coded;
  ASSERT_TRUE(encode_rans14(in, coded));
  ASSERT_GT(coded.size(), kRans14HeaderBytes + 16);
  for (size_t cut = 1; cut <= 16; ++cut) {
    std::vector<uint8_t> shorter(coded.begin(), coded.end() - cut);
    std::vector<uint8_t> back(in.size());
    const auto st = decode_legacy_rans0(shorter, back);
    EXPECT_FALSE(st.ok()) << "cut " << cut;
    EXPECT_EQ(st.code(), zt::ErrorCode::corrupt_stream) << "cut " << cut;
  }
}

TEST(Rans14, DecoderRejectsLengthsOtherThanTheStreamTable) {
  const auto in = gaussian_bytes(5000, 3, 5);
  std::vector<uint8_t> coded;
  ASSERT_TRUE(encode_rans14(in, coded));
  std::vector<uint8_t> shorter(in.size() - 1), longer(in.size() + 1);
  EXPECT_FALSE(decode_stream(uint8_t(Method::rans0_14), false, coded, shorter).ok());
  EXPECT_FALSE(decode_stream(uint8_t(Method::rans0_14), false, coded, longer).ok());
  coded.pop_back();
  std::vector<uint8_t> back(in.size());
  EXPECT_FALSE(decode_stream(uint8_t(Method::rans0_14), false, coded, back).ok());
}

}  // namespace
}  // namespace z4ai::detail
