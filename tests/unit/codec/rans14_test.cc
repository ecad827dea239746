// The 14-bit order-0 rANS encoder (rans14.h) against the hardened decoder it
// shares with PyPI z4ai frames (decode_legacy_rans0), and through
// decode_stream as entropy Method rans0_14.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "codec/entropy.h"
#include "codec/legacy_format.h"
#include "codec/rans14.h"

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
