// Z4AIMF01: exact layout, round trips, hostile frames.
#include <gtest/gtest.h>

#include <vector>

#include "test_data.h"
#include "z4ai/chunked.h"
#include "z4ai/codec.h"

namespace z4ai::chunked {
namespace {

TEST(ChunkedLayout, HandBuiltFrameMatchesTheSpecByteForByte) {
  std::vector<uint8_t> data = {1, 2, 3, 4, 5};
  std::vector<uint8_t> want = {'Z', '4', 'A', 'I', 'M', 'F', '0', '1', 0, 2, 1, 0, 0, 0,  // header
                               2, 0, 0, 0, 1, 5,                                         // elems, tail
                               0, 2, 0, 0, 0, 1, 3,                                      // plane 0 stored
                               0, 2, 0, 0, 0, 2, 4};                                     // plane 1 stored
  Options o;
  o.width = 2;
  auto frame = compress(data, o);
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(frame.value(), want);
  auto back = decompress(want);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back.value(), data);
  EXPECT_EQ(decoded_length(want).value(), 5u);
}

TEST(ChunkedRoundTrip, WidthsLengthsAndThreads) {
  for (uint32_t w : {1u, 2u, 4u, 8u, 3u}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{9}, size_t{70001}, size_t{5'000'001}}) {
      auto data = testing::gaussian_fp32(n / 4 + 1);
      data.resize(n);
      Options o;
      o.width = w;
      o.chunk_size = 1 << 20;
      o.threads = 1;
      auto f1 = compress(data, o);
      o.threads = 2;
      auto f2 = compress(data, o);
      ASSERT_TRUE(f1.ok() && f2.ok());
      EXPECT_EQ(f1.value(), f2.value());
      auto back = decompress(f1.value(), 2);
      ASSERT_TRUE(back.ok()) << back.status().to_string();
      EXPECT_EQ(back.value(), data) << "w=" << w << " n=" << n;
    }
  }
}

// compress_into writes compress's frame into a caller's buffer of
// compressed_bound bytes (the Python binding's bytes object), and refuses a
// smaller one instead of writing past it.
TEST(ChunkedInto, WritesCompresssFrameAndRefusesAShortBuffer) {
  auto data = testing::gaussian_fp32(300'001);
  data.resize(data.size() - 3);  // a tail
  Options o;
  o.width = 4;
  o.chunk_size = 100'000;
  auto want = compress(data, o);
  ASSERT_TRUE(want.ok());
  auto bound = compressed_bound(data.size(), o);
  ASSERT_TRUE(bound.ok());
  EXPECT_GE(bound.value(), data.size());
  std::vector<uint8_t> out(bound.value(), 0xEE);
  auto n = compress_into(data, o, out);
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  out.resize(n.value());
  EXPECT_EQ(out, want.value());
  std::vector<uint8_t> short_out(bound.value() - 1);
  auto bad = compress_into(data, o, short_out);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), zt::ErrorCode::invalid_argument);
  o.width = 0;
  EXPECT_EQ(compressed_bound(10, o).status().code(), zt::ErrorCode::invalid_argument);
}

TEST(ChunkedRoundTrip, CompressesFloatPlanes) {
  auto data = testing::gaussian_bf16(1'000'000);
  Options o;
  o.width = 2;
  auto f = compress(data, o);
  ASSERT_TRUE(f.ok());
  EXPECT_LT(f->size(), data.size() * 0.85);
  EXPECT_TRUE(is_chunked_frame(f.value()));
  EXPECT_TRUE(z4ai::is_z4ai_frame(f.value()));
  EXPECT_EQ(z4ai::peek(f.value())->kind, z4ai::FrameKind::chunked);
}

TEST(ChunkedMalformed, TruncationsFlipsAndBadFields) {
  auto data = testing::gaussian_bf16(30'000);
  Options o;
  o.width = 2;
  o.chunk_size = 16'384;
  auto frame = compress(data, o).value();
  for (size_t len = 0; len < frame.size(); len += 3)
    EXPECT_FALSE(decompress(std::span<const uint8_t>(frame.data(), len)).ok()) << len;
  auto bad = frame;
  bad[8] = 1;  // flags
  EXPECT_EQ(decompress(bad).status().code(), zt::ErrorCode::corrupt_stream);
  bad = frame;
  bad[9] = 0;  // width 0
  EXPECT_EQ(decompress(bad).status().code(), zt::ErrorCode::corrupt_stream);
  bad = frame;
  bad[10] = 0xFF, bad[11] = 0xFF, bad[12] = 0xFF, bad[13] = 0xFF;  // 4G chunks
  EXPECT_EQ(decompress(bad).status().code(), zt::ErrorCode::corrupt_stream);
  for (size_t i = 14; i < frame.size(); i += 5) {
    bad = frame;
    bad[i] ^= 0x40;
    auto r = decompress(bad);  // no checksum in this layout: must not crash
    (void)r;
  }
  bad = frame;
  bad.push_back(0);
  EXPECT_EQ(decompress(bad).status().code(), zt::ErrorCode::corrupt_stream);
}

}  // namespace
}  // namespace z4ai::chunked
