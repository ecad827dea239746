// The balanced and max tiers (ZARA frames): round trips for every dtype and
// thread count, only coders that decode at rANS/zstd speed, never larger
// than the default frame, and older ZARA frames (arithmetic, brotli) still
// decode.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "codec/common/byte_io.h"
#include "codec/common/digest.h"
#include "codec/entropy/entropy.h"
#include "codec/frame/frame_format.h"
#include "codec/transform/transforms.h"
#include "test_data.h"
#include "z4ai/codec.h"

namespace z4ai {
namespace {

using testing::gaussian_bf16;
using testing::gaussian_fp32;

std::vector<uint8_t> must_compress(const std::vector<uint8_t>& data, const CompressOptions& o) {
  auto r = compress(data, o);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? r.value() : std::vector<uint8_t>{};
}

// fp16 from a Gaussian: the same draws narrowed, so the exponent spans a few binades.
std::vector<uint8_t> gaussian_fp16(size_t n, uint32_t seed) {
  auto f = gaussian_fp32(n, seed);
  std::vector<uint8_t> out(n * 2);
  for (size_t i = 0; i < n; ++i) {
    float v;
    std::memcpy(&v, &f[4 * i], 4);
    _Float16 h = _Float16(v);
    std::memcpy(&out[2 * i], &h, 2);
  }
  return out;
}

// Tensors of different scale back to back (what real checkpoints look like):
// a block's exponents differ from its neighbours'.
std::vector<uint8_t> mixed_scale_bf16(size_t n, uint32_t seed) {
  auto unit = gaussian_fp32(n, seed, 1.0f);
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n * 2);
  float scale = 1;
  for (size_t i = 0; i < n; ++i) {
    if (i % 40'000 == 0) scale = std::ldexp(1.0f, -int(rng() % 12));
    float f;
    std::memcpy(&f, &unit[4 * i], 4);
    f *= scale;
    std::memcpy(&out[2 * i], reinterpret_cast<uint8_t*>(&f) + 2, 2);
  }
  return out;
}

struct Named {
  const char* dtype;
  std::vector<uint8_t> data;
};

std::vector<Named> seeded_floats() {
  std::vector<Named> v;
  for (uint32_t seed : {1u, 2u}) {
    v.push_back({"fp32", gaussian_fp32(300'000 + seed * 1'111, seed)});
    v.push_back({"bf16", gaussian_bf16(400'000 + seed * 777, seed)});
    v.push_back({"fp16", gaussian_fp16(400'000 + seed * 333, seed)});
    v.push_back({"bf16", mixed_scale_bf16(600'000, seed)});
  }
  v.push_back({"fp32", gaussian_fp32(3'000, 9)});  // tiny: whole-buffer candidates
  return v;
}

// Every stream method in a chunked frame (mode 0); empty for mode 1.
std::vector<uint8_t> stream_methods(const std::vector<uint8_t>& frame) {
  std::vector<uint8_t> methods;
  if (frame.size() < detail::kFrameHeaderBytes || frame[6] != 0) return methods;
  uint32_t n = 0;
  std::memcpy(&n, &frame[28], 4);
  size_t off = detail::kFrameHeaderBytes + 4 * size_t(n);
  for (uint32_t c = 0; c < n; ++c) {
    uint32_t len = 0;
    std::memcpy(&len, &frame[detail::kFrameHeaderBytes + 4 * c], 4);
    size_t p = off + 1;
    p += 1 + frame[p];  // tail length, tail
    const uint8_t streams = frame[p++];
    for (uint8_t s = 0; s < streams; ++s) methods.push_back(frame[p + 9 * s]);
    off += len;
  }
  return methods;
}

TEST(ZaraTier, RoundTripsEveryDtypeAndThreadCount) {
  const char* dtypes[] = {"",     "bf16",  "fp16",  "fp32",   "fp64",  "f8_e4m3fn", "f8_e5m2", "f8_e4m3fnuz",
                          "f8_e5m2fnuz", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                          "uint64", "bool"};
  for (Effort e : {Effort::balanced, Effort::max}) {
    for (const char* dt : dtypes) {
      for (size_t n : {size_t{0}, size_t{5}, size_t{70'001}, size_t{200'003}}) {
        auto data = std::string(dt) == "bool" ? testing::random_bytes(n, 3) : gaussian_bf16((n + 1) / 2, 4);
        data.resize(n);
        if (std::string(dt) == "bool")
          for (auto& b : data) b &= 1;
        CompressOptions o;
        o.dtype = dt;
        o.effort = e;
        o.threads = 1;
        auto one = must_compress(data, o);
        o.threads = 2;
        auto two = must_compress(data, o);
        EXPECT_EQ(one, two) << "dtype=" << dt << " n=" << n;
        for (unsigned threads : {1u, 2u}) {
          auto back = decompress(two, threads);
          ASSERT_TRUE(back.ok()) << back.status().to_string() << " dtype=" << dt << " n=" << n;
          EXPECT_EQ(back.value(), data) << "dtype=" << dt << " n=" << n;
        }
      }
    }
  }
}

// Arithmetic coding and brotli decoded at 30-130 MB/s: new ZARA frames use
// only stored, zstd, rANS order 0/1, blocked and segmented rANS, and the
// 14-bit rANS of the default frames they are a best-of over (fp16's high
// byte plane takes method 10 there).
TEST(ZaraTier, WritesOnlyFastDecodingMethods) {
  auto cases = seeded_floats();
  cases.push_back({"", testing::random_bytes(200'000, 5)});
  std::string text;
  while (text.size() < 300'000) text += "\"model.layers." + std::to_string(text.size() % 977) + ".weight\": [1, 2], ";
  cases.push_back({"", std::vector<uint8_t>(text.begin(), text.end())});
  for (Effort e : {Effort::balanced, Effort::max}) {
    for (const auto& c : cases) {
      CompressOptions o;
      o.dtype = c.dtype;
      o.effort = e;
      for (uint8_t m : stream_methods(must_compress(c.data, o)))
        EXPECT_TRUE(m == 0 || m == 1 || m == 2 || m == 3 || m == 7 || m == 8 || m == 9 || m == 10)
            << "method " << int(m) << " dtype=" << c.dtype << " n=" << c.data.size();
    }
  }
}

// max is a best-of over balanced's candidates and the default frame;
// balanced over the default frame: on seeded floats, max <= balanced <= default.
TEST(ZaraTier, MaxNotLargerThanBalancedNorBalancedThanDefault) {
  for (const auto& c : seeded_floats()) {
    CompressOptions o;
    o.dtype = c.dtype;
    const size_t fast = must_compress(c.data, o).size();
    o.effort = Effort::balanced;
    const size_t balanced = must_compress(c.data, o).size();
    o.effort = Effort::max;
    const size_t max = must_compress(c.data, o).size();
    EXPECT_LE(balanced, fast) << c.dtype << " n=" << c.data.size();
    EXPECT_LE(max, balanced) << c.dtype << " n=" << c.data.size();
  }
}

// Order-1 blocks pay where each block has its own symbol-to-symbol structure.
TEST(ZaraTier, Order1BlocksShrinkCorrelatedStreamsAndRoundTrip) {
  std::mt19937 rng(11);
  std::vector<uint8_t> in(size_t{1} << 20);
  uint8_t prev = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const uint8_t base = (i >> 18) * 40;  // each 256 KiB block its own alphabet
    prev = uint8_t(base + (prev - base + 1 + rng() % 3) % 16);  // next symbol depends on the last
    in[i] = prev;
  }
  std::vector<uint8_t> order0, order1;
  ASSERT_TRUE(detail::encode_rans_blocks(in, 18, order0, false));
  ASSERT_TRUE(detail::encode_rans_blocks(in, 18, order1, true));
  EXPECT_LT(double(order1.size()), 0.8 * double(order0.size()));
  std::vector<uint8_t> out(in.size());
  ASSERT_TRUE(detail::decode_rans_blocks(order1, out).ok());
  EXPECT_EQ(out, in);
}

// Tensors of 20-150 Ki elements at scales 2^-2..2^-8: the exponent stream's
// statistics change at each boundary, which fixed blocks cannot follow.
std::vector<uint8_t> tensor_exponents(uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<uint8_t> exps;
  while (exps.size() < 600'000) {
    const size_t k = 20'000 + rng() % 130'000;
    const float scale = std::ldexp(1.0f, -int(2 + rng() % 7));
    for (size_t i = 0; i < k; ++i) {
      float f = normal(rng) * scale;
      uint32_t u;
      std::memcpy(&u, &f, 4);
      exps.push_back(uint8_t(u >> 23));
    }
  }
  return exps;
}

TEST(ZaraTier, SegmentsFollowTensorBoundariesAndRoundTrip) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const auto in = tensor_exponents(seed);
    std::vector<uint8_t> segments;
    ASSERT_TRUE(detail::encode_rans_segments(in, segments));
    for (int lg = 14; lg <= 20; lg += 2) {
      std::vector<uint8_t> blocks;
      ASSERT_TRUE(detail::encode_rans_blocks(in, lg, blocks, true));
      EXPECT_LT(segments.size(), blocks.size()) << "seed " << seed << " block 2^" << lg;
    }
    std::vector<uint8_t> out(in.size());
    ASSERT_TRUE(detail::decode_stream(8, true, segments, out).ok());
    EXPECT_EQ(out, in);
    EXPECT_EQ(detail::decode_stream(8, false, segments, out).code(), zt::ErrorCode::corrupt_stream)
        << "segmented rANS is ZARA only";
  }
}

TEST(ZaraTier, MalformedSegmentsAreRefused) {
  const auto in = tensor_exponents(4);
  std::vector<uint8_t> good;
  ASSERT_TRUE(detail::encode_rans_segments(in, good));
  std::vector<uint8_t> out(in.size());
  auto refused = [&](std::vector<uint8_t> s, const char* what) {
    EXPECT_EQ(detail::decode_rans_segments(s, out).code(), zt::ErrorCode::corrupt_stream) << what;
  };
  auto with_u32 = [&](size_t at, uint32_t v) {
    auto s = good;
    std::memcpy(&s[at], &v, 4);
    return s;
  };
  refused(with_u32(0, 0), "empty segment");
  refused(with_u32(0, uint32_t(in.size() + 1)), "segment past the stream");
  refused(std::vector<uint8_t>(good.begin(), good.end() - 1), "truncated");
  auto trailing = good;
  trailing.push_back(0);
  refused(trailing, "trailing bytes");
  auto method = good;
  method[4] = 7;
  refused(method, "nested blocked rANS");
  std::vector<uint8_t> shorter(in.size() + 1);
  EXPECT_FALSE(detail::decode_rans_segments(good, shorter).ok()) << "segments must tile the output";
}

// A one-chunk ZARA frame of bf16 `data` as balanced/max wrote them before the
// coders were limited to fast-decoding ones: the field split's exponents
// coded with `exp_method` (4 brotli, 5/6 arithmetic order 0/1), the
// sign+mantissa stream with brotli.
std::vector<uint8_t> older_zara_frame(const std::vector<uint8_t>& data, uint8_t exp_method) {
  const size_t n = data.size() / 2;
  std::vector<uint8_t> exps(n), mants(n);
  uint8_t* planes[] = {exps.data(), mants.data()};
  detail::forward_transform(detail::Transform::field_split, DType::bf16, data.data(), n, planes);
  std::vector<uint8_t> coded_exp, coded_mant;
  const bool ok = exp_method == 4 ? detail::encode_brotli(exps, 11, 24, coded_exp)
                                  : detail::encode_arith(exps, exp_method - 5, coded_exp);
  EXPECT_TRUE(ok && detail::encode_brotli(mants, 9, 24, coded_mant));
  std::vector<uint8_t> body{uint8_t(detail::Transform::field_split), 0, 2};
  for (auto [m, coded] : {std::pair{exp_method, &coded_exp}, std::pair{uint8_t(4), &coded_mant}}) {
    detail::put_u8(body, m);
    detail::put_u32(body, uint32_t(n));
    detail::put_u32(body, uint32_t(coded->size()));
  }
  detail::put_bytes(body, coded_exp);
  detail::put_bytes(body, coded_mant);
  detail::FrameHeader h{true, DType::bf16, detail::FrameMode::chunked, data.size(), detail::xxh3_64(data),
                        detail::kChunkBytesMax, 1};
  std::vector<uint8_t> frame(detail::kFrameHeaderBytes);
  detail::write_frame_header(h, frame.data());
  detail::put_u32(frame, uint32_t(body.size()));
  detail::put_bytes(frame, body);
  return frame;
}

TEST(ZaraTier, OlderFramesWithArithmeticAndBrotliStreamsDecode) {
  const auto data = gaussian_bf16(50'000, 6);
  for (uint8_t exp_method : {5, 6, 4}) {
    auto back = decompress(older_zara_frame(data, exp_method), 1);
    ASSERT_TRUE(back.ok()) << back.status().to_string() << " method " << int(exp_method);
    EXPECT_EQ(back.value(), data);
  }
}

// Methods 4-6 are ZARA only: the same frame labelled Z4AI is refused.
TEST(ZaraTier, ContextCodersAreRejectedInZ4aiFrames) {
  const auto data = gaussian_bf16(50'000, 6);
  for (uint8_t exp_method : {5, 6, 4}) {
    auto frame = older_zara_frame(data, exp_method);
    std::memcpy(frame.data(), detail::kMagicZ4ai, 4);
    auto r = decompress(frame, 1);
    ASSERT_FALSE(r.ok()) << "method " << int(exp_method);
    EXPECT_EQ(r.status().code(), zt::ErrorCode::corrupt_stream);
  }
}

}  // namespace
}  // namespace z4ai
