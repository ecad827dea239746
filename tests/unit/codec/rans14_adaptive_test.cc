// The adaptive 14-bit order-0 rANS encoder (rans14_adaptive.h) against the
// hardened decoder it shares with PyPI z4ai frames
// (decode_legacy_rans_adaptive), and through decode_stream as entropy Method
// rans0_14_adaptive.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "codec/common/byte_io.h"
#include "codec/entropy/entropy.h"
#include "codec/entropy/pypi_rans.h"
#include "codec/entropy/rans14.h"
#include "codec/entropy/rans14_adaptive.h"

namespace z4ai::detail {
namespace {

std::vector<uint8_t> coded_of(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> coded;
  EXPECT_TRUE(encode_rans14_adaptive(in, coded));
  return coded;
}

void expect_round_trip(const std::vector<uint8_t>& in) {
  const auto coded = coded_of(in);
  std::vector<uint8_t> back(in.size(), 0xA5);
  ASSERT_TRUE(decode_legacy_rans_adaptive(coded, back).ok()) << in.size() << " bytes";
  EXPECT_EQ(back, in);
  std::vector<uint8_t> via(in.size(), 0x5A);
  ASSERT_TRUE(decode_stream(uint8_t(Method::rans0_14_adaptive), false, coded, via).ok());
  EXPECT_EQ(via, in);
}

std::vector<uint8_t> gaussian_bytes(size_t n, double sigma, uint32_t seed, double mean = 128) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(mean, sigma);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(std::clamp(std::lround(g(rng)), 0L, 255L));
  return v;
}

TEST(Rans14Adaptive, RoundTripsEmptyTinyOneSliceManySlicesAndSkewed) {
  expect_round_trip({});
  expect_round_trip({7});
  expect_round_trip(gaussian_bytes(3, 3, 1));
  expect_round_trip(gaussian_bytes(65536, 3, 2));           // exactly one slice
  expect_round_trip(gaussian_bytes(65537, 3, 3));           // two uneven slices
  expect_round_trip(std::vector<uint8_t>(300000, 42));       // one symbol everywhere
  std::mt19937 rng(4);
  std::vector<uint8_t> uniform(200001);
  for (auto& b : uniform) b = uint8_t(rng());
  expect_round_trip(uniform);
  // Statistics that drift from slice to slice: each stretch its own table.
  std::vector<uint8_t> drift;
  for (int t = 0; t < 9; ++t) {
    const auto part = gaussian_bytes(50000 + 7919 * t, 1 + t, 10 + t, 40 + 20 * t);
    drift.insert(drift.end(), part.begin(), part.end());
  }
  expect_round_trip(drift);
}

TEST(Rans14Adaptive, DriftingStatisticsCodeSmallerThanOneTable) {
  std::vector<uint8_t> drift;
  for (int t = 0; t < 8; ++t) {
    const auto part = gaussian_bytes(1 << 17, 2, 20 + t, 60 + 16 * t);
    drift.insert(drift.end(), part.begin(), part.end());
  }
  std::vector<uint8_t> one;
  ASSERT_TRUE(encode_rans14(drift, one));
  EXPECT_LT(double(coded_of(drift).size()), 0.8 * double(one.size()));
}

TEST(Rans14Adaptive, HeaderDeclaresFlagSlicesAndLengths) {
  const auto in = gaussian_bytes(3 * 65536 + 5, 4, 30);
  const auto coded = coded_of(in);
  EXPECT_EQ(load_u64(coded.data()), in.size() | uint64_t{1} << 62);
  EXPECT_EQ(load_u32(coded.data() + 8), 4u);
}

TEST(Rans14Adaptive, RefusesBeyondMaxBytesAndLeavesOutAlone) {
  const auto in = gaussian_bytes(1 << 18, 3, 40);
  const size_t size = coded_of(in).size();
  std::vector<uint8_t> out{9};
  EXPECT_FALSE(encode_rans14_adaptive(in, out, size - 1));
  EXPECT_EQ(out, std::vector<uint8_t>{9});
  // The refusal before coding uses the entropy estimate, a few bytes either
  // side of the coded size: room a little over it always codes.
  EXPECT_TRUE(encode_rans14_adaptive(in, out, size + 64));
  EXPECT_EQ(out.size(), size + 1);
}

TEST(Rans14Adaptive, DecoderRejectsLengthsOtherThanTheStreamTable) {
  const auto in = gaussian_bytes(70000, 3, 50);
  auto coded = coded_of(in);
  std::vector<uint8_t> shorter(in.size() - 1), longer(in.size() + 1);
  const uint8_t m = uint8_t(Method::rans0_14_adaptive);
  EXPECT_FALSE(decode_stream(m, false, coded, shorter).ok());
  EXPECT_FALSE(decode_stream(m, false, coded, longer).ok());
  coded.pop_back();
  std::vector<uint8_t> back(in.size());
  EXPECT_FALSE(decode_stream(m, false, coded, back).ok());
}

}  // namespace
}  // namespace z4ai::detail
