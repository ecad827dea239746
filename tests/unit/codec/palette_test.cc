// Palette transform: quantised weights (<= 256 distinct values) code as a
// value table plus one index byte per element.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "codec/transform/palette.h"
#include "test_data.h"
#include "z4ai/codec.h"

namespace z4ai {
namespace {

// Transform byte of chunk `i` of a chunked-mode frame (after the 32-byte
// header and the u32 body-length table).
uint8_t chunk_transform(const std::vector<uint8_t>& frame, size_t i = 0) {
  EXPECT_EQ(frame[6], 0) << "frame should be in chunked mode";
  uint32_t n = 0;
  std::memcpy(&n, &frame[28], 4);
  size_t off = 32 + 4 * size_t(n);
  for (size_t k = 0; k < i; ++k) {
    uint32_t len = 0;
    std::memcpy(&len, &frame[32 + 4 * k], 4);
    off += len;
  }
  return frame[off];
}

std::vector<uint8_t> dequantised_fp32(size_t n, int levels, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n * 4);
  for (size_t i = 0; i < n; ++i) {
    float f = float(int(rng() % uint32_t(levels)) - levels / 2) * 0.01f;
    std::memcpy(&out[4 * i], &f, 4);
  }
  return out;
}

TEST(Palette, QuantisedWeightsUseThePaletteAndRoundTrip) {
  auto data = dequantised_fp32(300'000, 16, 1);  // int4-like: 4 bits of information
  CompressOptions o;
  o.dtype = "fp32";
  auto frame = compress(data, o);
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(chunk_transform(*frame), 3) << "chunk transform byte should be palette";
  EXPECT_LT(frame->size(), data.size() / 7);
  auto back = decompress(frame.value());
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back.value(), data);
}

TEST(Palette, OverflowFallsBackAndAutoOffSkipsIt) {
  auto data = dequantised_fp32(200'000, 16, 2);
  for (size_t i = 150'000; i < 200'000; ++i) {  // > 256 values past the sample start
    float f = float(i) * 1e-3f;
    std::memcpy(&data[4 * i], &f, 4);
  }
  CompressOptions o;
  o.dtype = "fp32";
  EXPECT_EQ(decompress(compress(data, o).value()).value(), data);
  o.auto_select = false;
  auto frame = compress(data, o).value();
  EXPECT_EQ(chunk_transform(frame), 2);  // field split
  EXPECT_EQ(decompress(frame).value(), data);
}

TEST(Palette, DecodeRejectsIndexOutsideThePalette) {
  std::vector<uint8_t> pal = {1, 0, 2, 0}, idx = {0, 1, 2}, out(6);
  EXPECT_FALSE(detail::palette_decode(pal.data(), 2, idx.data(), 3, 2, out.data()));
  idx[2] = 1;
  ASSERT_TRUE(detail::palette_decode(pal.data(), 2, idx.data(), 3, 2, out.data()));
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 0, 2, 0, 2, 0}));
}

TEST(Palette, EncodeRefusesMoreThan256Values) {
  auto bytes = testing::random_bytes(2 * 5000);
  std::vector<uint8_t> pal, idx;
  EXPECT_FALSE(detail::palette_encode(bytes.data(), 5000, 2, pal, idx));
  auto q = dequantised_fp32(5000, 200, 3);
  ASSERT_TRUE(detail::palette_encode(q.data(), 5000, 4, pal, idx));
  EXPECT_LE(pal.size(), 200u * 4);
}

}  // namespace
}  // namespace z4ai
