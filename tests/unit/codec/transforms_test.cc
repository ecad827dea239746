// The field split and byte planes must be exact bijections for every bit
// pattern, including NaNs, infinities and subnormals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "codec/transform/sparse_path.h"
#include "codec/transform/transforms.h"
#include "test_data.h"

namespace z4ai::detail {
namespace {

std::vector<uint8_t> round_trip(Transform t, DType d, const std::vector<uint8_t>& src) {
  size_t n = src.size() / dtype_width(d);
  uint32_t k = stream_count(t, d);
  std::vector<std::vector<uint8_t>> s(k, std::vector<uint8_t>(stream_length(t, d, n)));
  std::vector<uint8_t*> w(k);
  std::vector<const uint8_t*> r(k);
  for (uint32_t i = 0; i < k; ++i) r[i] = w[i] = s[i].data();
  forward_transform(t, d, src.data(), n, w.data());
  std::vector<uint8_t> back(src.size());
  inverse_transform(t, d, r.data(), n, back.data());
  return back;
}

TEST(FieldSplit, EveryBf16AndFp16PatternRoundTrips) {
  std::vector<uint8_t> all(65536 * 2);
  for (uint32_t v = 0; v < 65536; ++v) {
    all[2 * v] = uint8_t(v);
    all[2 * v + 1] = uint8_t(v >> 8);
  }
  EXPECT_EQ(round_trip(Transform::field_split, DType::bf16, all), all);
  EXPECT_EQ(round_trip(Transform::field_split, DType::fp16, all), all);
}

TEST(FieldSplit, EveryFp8PatternRoundTrips) {
  std::vector<uint8_t> all(256);
  for (int v = 0; v < 256; ++v) all[v] = uint8_t(v);
  for (DType d : {DType::f8_e4m3fn, DType::f8_e5m2, DType::f8_e4m3fnuz, DType::f8_e5m2fnuz})
    EXPECT_EQ(round_trip(Transform::field_split, d, all), all) << dtype_name(d);
}

TEST(FieldSplit, RandomFp32AndFp64BitsRoundTrip) {
  auto bytes = z4ai::testing::random_bytes(8 * 10007);
  EXPECT_EQ(round_trip(Transform::field_split, DType::fp32, bytes), bytes);
  EXPECT_EQ(round_trip(Transform::field_split, DType::fp64, bytes), bytes);
}

TEST(FieldSplit, Bf16ExponentStreamHoldsTheExponent) {
  // 1.0f in bf16 is 0x3F80: exponent 127, sign 0, mantissa 0.
  std::vector<uint8_t> one = {0x80, 0x3F};
  uint8_t e = 0, sm = 0;
  uint8_t* s[2] = {&e, &sm};
  field_split(DType::bf16, one.data(), 1, s);
  EXPECT_EQ(e, 127);
  EXPECT_EQ(sm, 0);
}

// The sign split as docs/codec.md defines it, one element at a time: the
// block-wise kernels in sign_split.cc must match it byte for byte.
void reference_sign_split(DType d, const uint8_t* src, size_t n, std::vector<std::vector<uint8_t>>& s) {
  const bool bf = d == DType::bf16;
  s.assign(bf ? 3 : 5, std::vector<uint8_t>(n));
  s[0].assign((n + 7) / 8, 0);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t v = bf ? uint32_t(src[2 * i] | src[2 * i + 1] << 8) << 16
                          : uint32_t(src[4 * i]) | uint32_t(src[4 * i + 1]) << 8 | uint32_t(src[4 * i + 2]) << 16 |
                                uint32_t(src[4 * i + 3]) << 24;
    s[0][i / 8] |= uint8_t((v >> 31) << (i % 8));
    s[1][i] = uint8_t(v >> 23);
    s[2][i] = uint8_t((v >> 16) & 0x7F);
    if (!bf) {
      s[3][i] = uint8_t(v >> 8);
      s[4][i] = uint8_t(v);
    }
  }
}

TEST(SignSplit, MatchesTheElementwiseDefinitionAtEveryLength) {
  auto bytes = z4ai::testing::random_bytes(4 * 9000);
  for (DType d : {DType::bf16, DType::fp32}) {
    const uint32_t w = dtype_width(d);
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{63}, size_t{4095}, size_t{4096},
                     size_t{4097}, size_t{8999}}) {
      std::vector<std::vector<uint8_t>> want, got(stream_count(Transform::sign_split, d));
      reference_sign_split(d, bytes.data(), n, want);
      std::vector<uint8_t*> wp;
      for (uint32_t i = 0; i < got.size(); ++i) {
        got[i].assign(stream_length_at(Transform::sign_split, d, n, i), 0xA5);
        wp.push_back(got[i].data());
      }
      forward_transform(Transform::sign_split, d, bytes.data(), n, wp.data());
      ASSERT_EQ(got, want) << dtype_name(d) << " n=" << n;
      // Merge masks every field: stray mantissa top bits and sign bits past n change nothing.
      for (auto& b : got[2]) b |= 0x80;
      if (n % 8) got[0].back() |= uint8_t(0xFF << (n % 8));
      std::vector<const uint8_t*> rp;
      for (auto& g : got) rp.push_back(g.data());
      std::vector<uint8_t> back(n * w);
      inverse_transform(Transform::sign_split, d, rp.data(), n, back.data());
      ASSERT_TRUE(std::equal(back.begin(), back.end(), bytes.begin())) << dtype_name(d) << " n=" << n;
    }
  }
}

TEST(BytePlanes, OddWidthsRoundTrip) {
  auto bytes = z4ai::testing::random_bytes(3 * 8 * 101);
  for (DType d : {DType::int16, DType::int32, DType::int64, DType::uint8})
    EXPECT_EQ(round_trip(Transform::byte_planes, d, bytes), bytes);
  std::vector<uint8_t> planes_in = z4ai::testing::random_bytes(3 * 50);
  std::vector<std::vector<uint8_t>> p(3, std::vector<uint8_t>(50));
  uint8_t* w[3] = {p[0].data(), p[1].data(), p[2].data()};
  const uint8_t* r[3] = {p[0].data(), p[1].data(), p[2].data()};
  split_planes(planes_in.data(), 50, 3, w);
  EXPECT_EQ(p[1][0], planes_in[1]);
  std::vector<uint8_t> back(150);
  join_planes(r, 50, 3, back.data());
  EXPECT_EQ(back, planes_in);
}

TEST(SparsePath, PackUnpackRoundTripsAndRejectsStrayBits) {
  std::vector<uint8_t> src(4 * 13, 0);
  src[4 * 2] = 1;
  src[4 * 12 + 3] = 9;
  std::vector<uint8_t> bitmap(bitmap_bytes(13)), packed(src.size());
  EXPECT_EQ(sparse_pack(src.data(), 13, 4, bitmap.data(), packed.data()), 2u);
  size_t count = 0;
  ASSERT_TRUE(bitmap_popcount(bitmap.data(), 13, count));
  EXPECT_EQ(count, 2u);
  std::vector<uint8_t> back(src.size(), 0xAA);
  sparse_unpack(bitmap.data(), packed.data(), 13, 4, back.data());
  EXPECT_EQ(back, src);
  bitmap[1] |= 0x80;  // bit 15 is past element 12
  EXPECT_FALSE(bitmap_popcount(bitmap.data(), 13, count));
}

// The word loops copy every element and read packed values ahead of use:
// every width, density and length (partial last bitmap byte, fewer than 8
// nonzeros left) must still round-trip from a packed buffer of exactly the
// nonzero elements.
TEST(SparsePath, BranchFreeLoopsRoundTripEveryWidthAndDensity) {
  std::mt19937 rng(17);
  for (uint32_t w : {1u, 2u, 3u, 4u, 8u})
    for (double zeros : {0.0, 0.1, 0.5, 0.97, 1.0})
      for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{63}, size_t{1000}, size_t{4099}}) {
        std::vector<uint8_t> src(n * w, 0);
        size_t nonzero = 0;
        for (size_t i = 0; i < n; ++i) {
          if (std::uniform_real_distribution<double>(0, 1)(rng) < zeros) continue;
          src[i * w + rng() % w] = uint8_t(1 + rng() % 255);  // other bytes of the element stay 0
          ++nonzero;
        }
        std::vector<uint8_t> bitmap(bitmap_bytes(n) + 1, 0xEE), packed(n * w + 1);
        ASSERT_EQ(sparse_pack(src.data(), n, w, bitmap.data(), packed.data()), nonzero);
        bitmap.resize(bitmap_bytes(n));
        packed.resize(nonzero * w);  // exactly the packed elements: an over-read shows under ASan
        size_t count = 0;
        ASSERT_TRUE(bitmap_popcount(bitmap.data(), n, count));
        ASSERT_EQ(count, nonzero);
        std::vector<uint8_t> back(n * w, 0xAA);
        sparse_unpack(bitmap.data(), packed.data(), n, w, back.data());
        ASSERT_EQ(back, src) << "width " << w << ", zeros " << zeros << ", n " << n;
      }
}

}  // namespace
}  // namespace z4ai::detail
