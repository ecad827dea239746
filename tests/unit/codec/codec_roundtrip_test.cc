// Z4AI / ZARA round trips: every dtype, empty and odd lengths, every effort,
// auto on and off, identical frames for any thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <cstring>
#include <string>
#include <vector>

#include "test_data.h"
#include "z4ai/codec.h"

namespace z4ai {
namespace {

using testing::gaussian_bf16;
using testing::gaussian_fp32;
using testing::random_bytes;

std::vector<uint8_t> must_compress(const std::vector<uint8_t>& data, CompressOptions o) {
  auto r = compress(data, o);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? r.value() : std::vector<uint8_t>{};
}

void expect_round_trip(const std::vector<uint8_t>& data, const CompressOptions& o) {
  auto frame = must_compress(data, o);
  auto back = decompress(frame, 2);
  ASSERT_TRUE(back.ok()) << back.status().to_string() << " dtype=" << o.dtype << " n=" << data.size();
  EXPECT_EQ(back.value(), data) << "dtype=" << o.dtype << " n=" << data.size();
}

const char* kAllDtypes[] = {"",     "bf16",  "fp16",  "fp32",   "fp64",  "f8_e4m3fn", "f8_e5m2", "f8_e4m3fnuz",
                            "f8_e5m2fnuz", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                            "uint64", "bool"};

TEST(Z4aiRoundTrip, EveryDtypeEmptyOddAndMultiChunkLengths) {
  for (const char* d : kAllDtypes) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{4099}, size_t{100003}}) {
      auto data = gaussian_fp32(n / 4 + 1);
      data.resize(n);
      CompressOptions o;
      o.dtype = d;
      expect_round_trip(data, o);
      o.auto_select = false;
      expect_round_trip(data, o);
    }
  }
}

TEST(Z4aiRoundTrip, LargerThanOneChunkAndThreadIndependent) {
  auto data = gaussian_bf16(5'000'003);  // 10 MB: many chunks, odd tail
  data.push_back(0x5A);
  CompressOptions o;
  o.dtype = "bf16";
  o.threads = 1;
  auto f1 = must_compress(data, o);
  o.threads = 2;
  auto f2 = must_compress(data, o);
  o.threads = 5;
  auto f5 = must_compress(data, o);
  EXPECT_EQ(f1, f2);
  EXPECT_EQ(f1, f5);
  EXPECT_LT(f1.size(), data.size() * 0.8);
  for (unsigned t : {1u, 2u, 0u}) {
    auto back = decompress(f1, t);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back.value(), data);
  }
}

TEST(Z4aiRoundTrip, MidSizedInputIsSplitIntoChunksAndThreadIndependent) {
  auto data = gaussian_bf16(2'500'000);  // 5 MB: several chunks, so two cores can share it (up to 4 MiB one chunk may win)
  CompressOptions o;
  o.dtype = "bf16";
  o.threads = 1;
  auto f1 = must_compress(data, o);
  o.threads = 2;
  auto f2 = must_compress(data, o);
  EXPECT_EQ(f1, f2);
  ASSERT_GE(f1.size(), 32u);
  uint32_t n_chunks = 0;
  std::memcpy(&n_chunks, &f1[28], 4);
  EXPECT_GE(n_chunks, 2u);
  for (unsigned t : {1u, 2u}) {
    auto back = decompress(f1, t);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back.value(), data);
  }
}

TEST(Z4aiRoundTrip, AutoCodesDequantisedRowsAsScaleGridChunks) {
  // int8-dequantised fp32 rows: each 1024-element row is q * scale. The scale
  // grid (transform 6) codes q, one byte per element: every chunk takes it
  // (before it, zstd won on the probe windows and every chunk was zstd-coded,
  // 2.9x larger), chunk-parallel, no whole-buffer frame.
  std::vector<uint8_t> data(4u << 20);
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  float scale = 0;
  for (size_t i = 0; i < data.size() / 4; ++i) {
    if (i % 1024 == 0) scale = std::fabs(normal(rng)) * 0.02f / 127 + 1e-4f;
    float q = std::clamp(std::rint(normal(rng) * 127 / 3), -128.0f, 127.0f);
    float f = q * scale;
    std::memcpy(&data[4 * i], &f, 4);
  }
  CompressOptions o;
  o.dtype = "fp32";
  auto best = must_compress(data, o);
  o.auto_select = false;
  auto primary = must_compress(data, o);
  EXPECT_LT(double(best.size()), 0.4 * double(primary.size()));
  ASSERT_EQ(best[6], 0) << "chunked frame (mode 0) expected";
  uint32_t n_chunks;
  std::memcpy(&n_chunks, &best[28], 4);
  ASSERT_GE(n_chunks, 2u);
  size_t off = 32 + 4 * size_t(n_chunks);
  for (uint32_t i = 0; i < n_chunks; ++i) {
    uint32_t len;
    std::memcpy(&len, &best[32 + 4 * size_t(i)], 4);
    EXPECT_EQ(best[off], 6) << "chunk " << i << ": scale grid";
    EXPECT_EQ(best[off + 2], 5) << "chunk " << i << ": five streams";
    off += len;
  }
  for (unsigned threads : {1u, 2u}) {
    o.auto_select = true;
    o.threads = threads;
    EXPECT_EQ(must_compress(data, o), best) << "threads " << threads;
    auto again = decompress(best, threads);
    ASSERT_TRUE(again.ok()) << again.status().to_string();
    EXPECT_EQ(again.value(), data);
  }
  auto back = decompress(best);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back.value(), data);
}

TEST(Z4aiRoundTrip, EffortsProduceTheirFrameKind) {
  auto data = gaussian_bf16(300'000);
  for (Effort e : {Effort::fast, Effort::balanced, Effort::max}) {
    CompressOptions o;
    o.dtype = "bf16";
    o.effort = e;
    auto frame = must_compress(data, o);
    auto info = peek(frame);
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->kind, e == Effort::fast ? FrameKind::z4ai : FrameKind::zara);
    EXPECT_EQ(info->dtype, DType::bf16);
    EXPECT_EQ(info->original_length, data.size());
    auto back = decompress(frame);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back.value(), data);
  }
}

// Real weights mix tensors of different scale; ZARA's adaptive coders follow
// the drift that static tables average away.
// Over 4 MiB, so the default tier codes chunks (up to 4 MiB its one-chunk
// candidate, long_stream_path.h, is already one stream per field).
TEST(Z4aiRoundTrip, ZaraIsSmallerThanDefaultOnMixedScaleWeights) {
  auto unit = testing::gaussian_fp32(2'500'000, 5, 1.0f);
  std::vector<uint8_t> data(unit.size() / 2);
  for (size_t i = 0; i < unit.size() / 4; ++i) {
    float f;
    std::memcpy(&f, &unit[4 * i], 4);
    f *= 0.01f * std::exp(2.0f * std::sin(float(i) / 3000.0f));  // scale drifts smoothly
    std::memcpy(&data[2 * i], reinterpret_cast<uint8_t*>(&f) + 2, 2);
  }
  CompressOptions fast, zara;
  fast.dtype = zara.dtype = "bf16";
  for (Effort e : {Effort::balanced, Effort::max}) {
    zara.effort = e;
    EXPECT_LT(must_compress(data, zara).size(), must_compress(data, fast).size());
  }
}

TEST(Z4aiRoundTrip, FieldSplitBeatsPlainBytesOnFloats) {
  auto data = gaussian_fp32(500'000);
  CompressOptions typed, opaque;
  typed.dtype = "fp32";
  EXPECT_LT(must_compress(data, typed).size(), must_compress(data, opaque).size());
}

TEST(Z4aiRoundTrip, SparseAndRepeatedDataShrink) {
  auto data = gaussian_fp32(1'000'000);
  for (size_t i = 0; i < data.size() / 4; i += 2) std::memset(&data[i * 4], 0, 4);  // 50 % zeros
  CompressOptions o;
  o.dtype = "fp32";
  auto sparse = must_compress(data, o);
  expect_round_trip(data, o);
  EXPECT_LT(sparse.size(), data.size() * 0.6);

  auto block = gaussian_fp32(1'500'000, 9);  // 6 MB block repeated: only LDM can see it
  std::vector<uint8_t> rep = block;
  rep.insert(rep.end(), block.begin(), block.end());
  auto frame = must_compress(rep, o);
  EXPECT_LT(frame.size(), rep.size() * 0.55);
  expect_round_trip(rep, o);
}

TEST(Z4aiRoundTrip, DecompressIntoWritesCallerBuffer) {
  auto data = gaussian_bf16(70'001);
  CompressOptions o;
  o.dtype = "bf16";
  auto frame = must_compress(data, o);
  std::vector<uint8_t> out(data.size(), 0xEE);
  ASSERT_TRUE(decompress_into(frame, out).ok());
  EXPECT_EQ(out, data);
  std::vector<uint8_t> small(data.size() - 1);
  EXPECT_EQ(decompress_into(frame, small).code(), zt::ErrorCode::length_mismatch);
}

TEST(Z4aiApi, DtypeNamesAndWidths) {
  EXPECT_EQ(dtype_width("bf16").value(), 2u);
  EXPECT_EQ(dtype_width("float32").value(), 4u);
  EXPECT_EQ(dtype_width("f32").value(), 4u);
  EXPECT_EQ(dtype_width("fp8_e4m3").value(), 1u);
  EXPECT_EQ(dtype_width("").value(), 1u);
  EXPECT_EQ(dtype_width("uint64").value(), 8u);
  EXPECT_EQ(dtype_width("complex7").status().code(), zt::ErrorCode::invalid_argument);
  CompressOptions o;
  o.dtype = "nope";
  EXPECT_EQ(compress(random_bytes(10), o).status().code(), zt::ErrorCode::invalid_argument);
  o.dtype = "";
  o.level = 40;
  EXPECT_EQ(compress(random_bytes(10), o).status().code(), zt::ErrorCode::invalid_argument);
}

TEST(Z4aiApi, IsFrameRecognisesMagic) {
  auto frame = must_compress(random_bytes(100), {});
  EXPECT_TRUE(is_z4ai_frame(frame));
  EXPECT_FALSE(is_z4ai_frame(random_bytes(100)));
  EXPECT_FALSE(is_z4ai_frame({}));
}

TEST(Z4aiApi, IncompressibleDataGrowsOnlyByOverhead) {
  auto data = random_bytes(1 << 20);
  auto frame = must_compress(data, {});
  EXPECT_LE(frame.size(), data.size() + 128);
}

}  // namespace
}  // namespace z4ai
