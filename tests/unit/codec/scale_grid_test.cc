// Scale-grid transform (6): dequantised weights q * scale per group code as
// one byte per element plus a scale per group and exceptions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "codec/common/byte_io.h"
#include "codec/frame/chunk_codec.h"
#include "codec/transform/scale_grid.h"
#include "codec/transform/transforms.h"
#include "test_data.h"
#include "z4ai/codec.h"

namespace z4ai {
namespace {

using detail::Transform;

// The test's own casts (independent of the codec's): bf16 and fp16 round to
// nearest even, like numpy / ml_dtypes.
uint16_t ref_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
uint16_t ref_fp16(float f) {
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const float a = std::abs(f);
  if (std::isnan(f)) return sign | 0x7E00;
  if (a >= 65520.0f) return sign | 0x7C00;  // rounds to inf
  if (a == 0) return sign;
  int e = 0;
  std::frexp(a, &e);
  const int exp = std::max(e - 1, -14);  // subnormals share 2^-14's step
  // 11-bit significand (implicit bit included), rounded to nearest even.
  const int m = int(std::nearbyint(std::ldexp(double(a), 10 - exp)));
  if (m < 1024) return uint16_t(sign | m);  // subnormal
  return m == 2048 ? uint16_t(sign | (exp + 16) << 10) : uint16_t(sign | (exp + 15) << 10 | (m - 1024));
}

void put(std::vector<uint8_t>& out, size_t i, float v, DType dt) {
  if (dt == DType::fp32) {
    std::memcpy(&out[4 * i], &v, 4);
  } else {
    const uint16_t h = dt == DType::bf16 ? ref_bf16(v) : ref_fp16(v);
    std::memcpy(&out[2 * i], &h, 2);
  }
}

// n elements of scale[group] * q, q ~ N(0, qmax / 3) clipped (the corpus's
// generator), the product in fp32 then cast to dt.
std::vector<uint8_t> grid_data(size_t n, DType dt, int bits, size_t group, uint32_t seed, bool negative = false) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> norm(0.0f, 1.0f);
  const int qmax = (1 << (bits - 1)) - 1;
  std::vector<uint8_t> out(n * dtype_width(dt));
  float s = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i % group == 0) s = (std::abs(norm(rng)) * 0.02f / float(qmax) + 1e-4f) * (negative ? -1.0f : 1.0f);
    const float q = std::clamp(std::rint(norm(rng) * float(qmax) / 3), float(-qmax - 1), float(qmax));
    put(out, i, q * s, dt);
  }
  return out;
}

// Chunk body of transform 6 through the chunk coder's own framing.
std::vector<uint8_t> grid_body(const std::vector<uint8_t>& data, DType dt) {
  static const std::vector<uint8_t> only{uint8_t(Transform::scale_grid)};
  detail::ChunkEncodeOptions o;
  o.ranking = &only;
  return detail::encode_chunk(data, dt, o);
}

zt::Status decode(const std::vector<uint8_t>& body, DType dt, std::vector<uint8_t>& out) {
  return detail::decode_chunk(body, dt, false, out);
}

constexpr DType kDTypes[] = {DType::fp32, DType::bf16, DType::fp16};

TEST(ScaleGrid, RoundTripsGridsOfEveryGroupSizeAndWidth) {
  for (DType dt : kDTypes) {
    for (int bits : {8, 4}) {
      for (size_t group : {32, 128, 1024}) {
        const auto data = grid_data(64 * 1024, dt, bits, group, uint32_t(group + bits));
        const auto body = grid_body(data, dt);
        SCOPED_TRACE(std::string(dtype_name(dt)) + " int" + std::to_string(bits) + " G=" + std::to_string(group));
        ASSERT_EQ(body[0], uint8_t(Transform::scale_grid));
        // q at its entropy (~7.4 bits for int8, ~3.3 for int4) plus 4 bytes per group.
        const double per_elem = (bits == 8 ? 0.95 : 0.45) + 4.0 / double(group);
        EXPECT_LT(double(body.size()), per_elem * double(64 * 1024)) << body.size();
        std::vector<uint8_t> back(data.size());
        ASSERT_TRUE(decode(body, dt, back).ok());
        EXPECT_EQ(back, data);
      }
    }
  }
}

TEST(ScaleGrid, NegativeScalesRoundTrip) {
  for (DType dt : kDTypes) {
    const auto data = grid_data(8192, dt, 8, 256, 3, /*negative=*/true);
    const auto body = grid_body(data, dt);
    ASSERT_EQ(body[0], uint8_t(Transform::scale_grid)) << dtype_name(dt);
    std::vector<uint8_t> back(data.size());
    ASSERT_TRUE(decode(body, dt, back).ok());
    EXPECT_EQ(back, data);
  }
}

TEST(ScaleGrid, OutliersBecomeExceptions) {
  for (DType dt : kDTypes) {
    auto data = grid_data(16384, dt, 8, 1024, 5);
    const uint32_t w = dtype_width(dt);
    const float specials[] = {-0.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(), 1.2345e-2f, 3.0e4f};
    for (size_t k = 0; k < 60; ++k) put(data, 97 + 263 * k, specials[k % 6], dt);
    const auto body = grid_body(data, dt);
    ASSERT_EQ(body[0], uint8_t(Transform::scale_grid)) << dtype_name(dt);
    std::vector<uint8_t> back(data.size());
    ASSERT_TRUE(decode(body, dt, back).ok());
    EXPECT_EQ(back, data) << dtype_name(dt);
    // The last element too (the final exception gap).
    put(data, 16383, std::numeric_limits<float>::quiet_NaN(), dt);
    const auto body2 = grid_body(data, dt);
    ASSERT_EQ(body2[0], uint8_t(Transform::scale_grid));
    ASSERT_TRUE(decode(body2, dt, back).ok());
    EXPECT_EQ(back, data);
    (void)w;
  }
}

TEST(ScaleGrid, TinyAndRaggedChunksRoundTrip) {
  for (DType dt : kDTypes) {
    for (size_t n : {1, 7, 31, 33, 1000, 1025, 5000}) {
      auto data = grid_data(n, dt, 4, 1024, uint32_t(n));
      data.push_back(0x5A);  // a tail byte that does not fill an element
      const auto body = grid_body(data, dt);
      std::vector<uint8_t> back(data.size());
      ASSERT_TRUE(decode(body, dt, back).ok()) << dtype_name(dt) << " n=" << n;
      EXPECT_EQ(back, data) << dtype_name(dt) << " n=" << n;
    }
  }
}

TEST(ScaleGrid, TrainedWeightsAreNotAGrid) {
  const auto f32 = testing::gaussian_fp32(1 << 16);
  const auto b16 = testing::gaussian_bf16(1 << 16);
  EXPECT_FALSE(detail::grid_plausible(f32.data(), 1 << 16, DType::fp32));
  EXPECT_FALSE(detail::grid_plausible(b16.data(), 1 << 16, DType::bf16));
  std::vector<std::vector<uint8_t>> streams;
  EXPECT_FALSE(detail::grid_encode(f32.data(), 1 << 16, DType::fp32, streams));
  EXPECT_FALSE(detail::grid_encode(b16.data(), 1 << 16, DType::bf16, streams));
  // The chunk coder falls back to the next candidate.
  const auto body = grid_body(f32, DType::fp32);
  EXPECT_NE(body[0], uint8_t(Transform::scale_grid));
  std::vector<uint8_t> back(f32.size());
  ASSERT_TRUE(decode(body, DType::fp32, back).ok());
  EXPECT_EQ(back, f32);
}

TEST(ScaleGrid, DetectorSeesGrids) {
  for (DType dt : kDTypes)
    for (int bits : {8, 4}) {
      const auto data = grid_data(1 << 16, dt, bits, 1024, 9);
      EXPECT_TRUE(detail::grid_plausible(data.data(), 1 << 16, dt)) << dtype_name(dt) << " int" << bits;
    }
}

TEST(ScaleGrid, AutoPicksTheGridOnDequantisedInputs) {
  for (DType dt : kDTypes) {
    const auto data = grid_data(1 << 20, dt, 8, 1024, 11);
    auto frame = compress(data, {.dtype = dtype_name(dt)});
    ASSERT_TRUE(frame.ok());
    auto noauto = compress(data, {.dtype = dtype_name(dt), .auto_select = false});
    ASSERT_TRUE(noauto.ok());
    EXPECT_LT(double(frame.value().size()), 0.75 * double(noauto.value().size())) << dtype_name(dt);
    auto back = decompress(frame.value());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back.value(), data);
  }
}

// Corrupt bodies: a valid grid body with one field changed.
struct Layout {
  size_t table;  // offset of the stream table
  size_t payload[detail::kGridStreams];
};
Layout layout(const std::vector<uint8_t>& body) {
  Layout l{};
  l.table = 3 + body[1];
  size_t off = l.table + detail::kGridStreams * 9;
  for (size_t i = 0; i < detail::kGridStreams; ++i) {
    l.payload[i] = off;
    off += detail::load_u32(&body[l.table + 9 * i + 5]);
  }
  return l;
}

class ScaleGridCorrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    auto data = grid_data(4096, DType::bf16, 8, 256, 21);
    put(data, 100, std::numeric_limits<float>::infinity(), DType::bf16);
    put(data, 200, -0.0f, DType::bf16);
    data_ = data;
    body_ = grid_body(data, DType::bf16);
    ASSERT_EQ(body_[0], uint8_t(Transform::scale_grid));
    l_ = layout(body_);
    // The header stream is 5 bytes: stored.
    ASSERT_EQ(body_[l_.table], 0);
  }
  zt::Status run(const std::vector<uint8_t>& body) {
    std::vector<uint8_t> out(data_.size());
    return decode(body, DType::bf16, out);
  }
  void expect(const std::vector<uint8_t>& body, zt::ErrorCode code, const std::string& text) {
    const auto s = run(body);
    EXPECT_EQ(s.code(), code) << s.message();
    EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
  }
  std::vector<uint8_t> data_, body_;
  Layout l_;
};

TEST_F(ScaleGridCorrupt, ValidBodyDecodes) {
  std::vector<uint8_t> out(data_.size());
  ASSERT_TRUE(decode(body_, DType::bf16, out).ok());
  EXPECT_EQ(out, data_);
}

TEST_F(ScaleGridCorrupt, BadGroupSize) {
  for (uint8_t log2 : {0, 4, 17, 255}) {
    auto b = body_;
    b[l_.payload[0]] = log2;
    expect(b, zt::ErrorCode::corrupt_stream, "group size log2 " + std::to_string(log2) + " is outside 5..16");
  }
}

TEST_F(ScaleGridCorrupt, ExceptionCounts) {
  auto b = body_;
  detail::store_u32(&b[l_.payload[0] + 1], 4097);
  expect(b, zt::ErrorCode::corrupt_stream, "4097 exceptions in a chunk of 4096");
  // A count the streams do not carry.
  detail::store_u32(&b[l_.payload[0] + 1], detail::load_u32(&body_[l_.payload[0] + 1]) + 1);
  expect(b, zt::ErrorCode::length_mismatch, "stream 3 raw length");
}

TEST_F(ScaleGridCorrupt, StreamLengths) {
  auto b = body_;
  detail::store_u32(&b[l_.table + 1], 4);  // header stream
  expect(b, zt::ErrorCode::length_mismatch, "header stream raw length 4, expected 5");
  b = body_;
  detail::store_u32(&b[l_.table + 9 + 1], detail::load_u32(&b[l_.table + 9 + 1]) + 4);  // scales
  expect(b, zt::ErrorCode::length_mismatch, "stream 1 raw length");
}

TEST_F(ScaleGridCorrupt, ExceptionPositionPastTheChunk) {
  // Stream 3 holds the gaps between exception positions; replace it by a
  // stored one whose last gap reaches past element 4095.
  const uint32_t count = detail::load_u32(&body_[l_.payload[0] + 1]);
  ASSERT_GE(count, 2u);
  std::vector<uint8_t> b(body_.begin(), body_.begin() + long(l_.payload[3]));
  b[l_.table + 27] = 0;  // stored
  detail::store_u32(&b[l_.table + 27 + 5], 4 * count);
  for (uint32_t e = 0; e + 1 < count; ++e) detail::put_u32(b, 0);
  detail::put_u32(b, 4096 - (count - 1));  // position 4096
  b.insert(b.end(), body_.begin() + long(l_.payload[4]), body_.end());
  expect(b, zt::ErrorCode::corrupt_stream, "at element 4096 is past the chunk");
  // One less is the last element: decodes.
  detail::store_u32(&b[b.size() - (body_.size() - l_.payload[4]) - 4], 4095 - (count - 1));
  EXPECT_TRUE(run(b).ok());
}

TEST_F(ScaleGridCorrupt, TruncatedStreams) {
  for (size_t cut : {size_t{1}, size_t{4}, body_.size() - l_.payload[2] - 1}) {
    std::vector<uint8_t> b(body_.begin(), body_.end() - long(cut));
    const auto s = run(b);
    EXPECT_EQ(s.code(), zt::ErrorCode::corrupt_stream) << cut;
  }
}

TEST_F(ScaleGridCorrupt, SparseGridIsRejected) {
  auto b = body_;
  b[0] |= detail::kSparseFlag;
  expect(b, zt::ErrorCode::corrupt_stream, "chunks cannot be sparse");
}

TEST(ScaleGridCorruptDType, OtherDTypesAreRejected) {
  std::vector<uint8_t> body{uint8_t(Transform::scale_grid), 0, 5};
  std::vector<uint8_t> out(64);
  const auto s = detail::decode_chunk(body, DType::int8, false, out);
  EXPECT_EQ(s.code(), zt::ErrorCode::corrupt_stream);
  EXPECT_NE(s.message().find("does not apply"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace z4ai
