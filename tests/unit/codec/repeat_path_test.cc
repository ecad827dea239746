// Inputs with long-range repeats (repeat_path.h): a copy costs almost
// nothing, frames stay identical for any thread count and plain Z4AI/ZARA,
// and the stream coder never loses to the coders it replaces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "codec/entropy/entropy.h"
#include "codec/entropy/repeat_path.h"
#include "codec/entropy/repetition_probe.h"
#include "codec/transform/transforms.h"
#include "test_data.h"
#include "z4ai/codec.h"

namespace z4ai {
namespace {

using testing::gaussian_bf16;
using testing::gaussian_fp32;

std::vector<uint8_t> cat(std::initializer_list<const std::vector<uint8_t>*> parts) {
  std::vector<uint8_t> out;
  for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

std::vector<uint8_t> must_compress(const std::vector<uint8_t>& data, const CompressOptions& o) {
  auto r = compress(data, o);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? r.value() : std::vector<uint8_t>{};
}

void expect_round_trip(const std::vector<uint8_t>& frame, const std::vector<uint8_t>& data) {
  auto back = decompress(frame, 1);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back.value(), data);
}

// A 1.2 MB bf16 "embedding", a 0.6 MB "layer" and the embedding again (tied by copy).
struct Tied {
  std::vector<uint8_t> emb = gaussian_bf16(600'000, 3);
  std::vector<uint8_t> layer = gaussian_bf16(300'000, 4);
  std::vector<uint8_t> once = cat({&emb, &layer});
  std::vector<uint8_t> tied = cat({&emb, &layer, &emb});
};

TEST(RepeatPath, TiedCopyCostsAlmostNothing) {
  Tied t;
  ASSERT_TRUE(detail::has_long_range_repeats(t.tied));
  CompressOptions o;
  o.dtype = "bf16";
  auto frame = must_compress(t.tied, o);
  expect_round_trip(frame, t.tied);
  // The copy adds long matches only: within 1 % of the input without it
  // (coded by the regular rANS path).
  EXPECT_LT(double(frame.size()), 1.01 * double(must_compress(t.once, o).size()));
}

TEST(RepeatPath, FramesIdenticalForAnyThreadCount) {
  Tied t;
  for (Effort e : {Effort::fast, Effort::balanced}) {
    CompressOptions o;
    o.dtype = "bf16";
    o.effort = e;
    o.threads = 1;
    auto one = must_compress(t.tied, o);
    for (unsigned th : {2u, 4u}) {
      if (e != Effort::fast && th == 2) continue;  // ZARA is slow: one other count
      o.threads = th;
      EXPECT_EQ(must_compress(t.tied, o), one) << "threads=" << th;
    }
    expect_round_trip(one, t.tied);
  }
}

// A frame of one chunk decodes its streams on the threads (decode_chunk's
// stream_threads): the same bytes for any count, and a damaged stream is an
// error on every count, wherever it lies.
TEST(RepeatPath, OneChunkFrameDecodesOnAnyThreadCount) {
  Tied t;
  CompressOptions o;
  o.dtype = "bf16";
  auto frame = must_compress(t.tied, o);
  ASSERT_EQ(frame[6], 0);  // chunked
  uint32_t n_chunks = 0;
  std::memcpy(&n_chunks, &frame[28], 4);
  ASSERT_EQ(n_chunks, 1u);
  for (unsigned th : {1u, 2u, 4u}) {
    auto back = decompress(frame, th);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back.value(), t.tied) << "threads=" << th;
  }
  for (size_t at : {frame.size() / 3, frame.size() / 2, frame.size() - 100}) {
    auto bad = frame;
    bad[at] ^= 0x5A;
    for (unsigned th : {1u, 2u, 4u}) EXPECT_FALSE(decompress(bad, th).ok()) << "byte " << at << " threads=" << th;
  }
}

TEST(RepeatPath, ZaraIsNoWorseThanFast) {
  Tied t;
  CompressOptions fast, zara;
  fast.dtype = zara.dtype = "bf16";
  zara.effort = Effort::balanced;
  auto z = must_compress(t.tied, zara);
  expect_round_trip(z, t.tied);
  EXPECT_LE(z.size(), must_compress(t.tied, fast).size());
}

TEST(RepeatPath, RepeatsOfEveryShapeRoundTrip) {
  // Sparse, dequantised (short-range matches pay) and opaque copies, odd
  // tails, and a copy 16 elements after the end of the original (the probe
  // samples 64-byte aligned blocks).
  auto g = gaussian_fp32(600'000, 5);
  auto sparse = g;
  for (size_t i = 0; i < sparse.size() / 4; i += 2) std::fill_n(&sparse[i * 4], 4, uint8_t{0});
  std::vector<uint8_t> deq(g.size());
  for (size_t i = 0; i < g.size() / 4; ++i) {
    float v = float(int(i * 2654435761u >> 29) - 4) * 0.01f;
    std::memcpy(&deq[i * 4], &v, 4);
  }
  std::vector<uint8_t> gap(64, 0x3c);
  std::vector<uint8_t> tail(3, 0x7f);
  struct Case { std::vector<uint8_t> data; const char* dtype; };
  Case cases[] = {{cat({&sparse, &sparse}), "fp32"},
                  {cat({&deq, &g, &deq}), "fp32"},
                  {cat({&g, &g, &tail}), ""},
                  {cat({&g, &gap, &g, &tail}), "fp32"},
                  {cat({&g, &g, &tail}), "bf16"}};
  for (const auto& c : cases) {
    CompressOptions o;
    o.dtype = c.dtype;
    auto frame = must_compress(c.data, o);
    expect_round_trip(frame, c.data);
    EXPECT_LT(frame.size(), c.data.size() * 0.7) << "dtype=" << c.dtype;
  }
}

TEST(RepeatPath, StreamCoderNeverLosesToItsCandidates) {
  // Exponent stream without repeats (the entropy coders should win), the same
  // with a copy (long matches should win), and a stream of short runs (full
  // zstd should win).
  auto g = gaussian_bf16(1'500'000, 6);
  const size_t n = g.size() / 2;
  std::vector<uint8_t> exp(n), man(n);
  uint8_t* ptrs[2] = {exp.data(), man.data()};
  detail::field_split(DType::bf16, g.data(), n, ptrs);
  std::vector<uint8_t> runs(n);
  for (size_t i = 0; i < n; ++i) runs[i] = uint8_t((i / 37) * 2654435761u >> 28);
  detail::EntropyPolicy p;
  p.long_repeats = true;
  detail::EntropyPolicy plain;
  for (const auto& s : {exp, cat({&exp, &exp}), runs, cat({&runs, &runs})}) {
    std::vector<uint8_t> ours, best, lz_biased, lz_full;
    detail::encode_repeat_stream(s, p, ours);
    detail::encode_best(s, plain, best);
    ASSERT_TRUE(detail::encode_zstd_long(s, p.zstd_level, true, lz_biased));
    ASSERT_TRUE(detail::encode_zstd_long(s, p.zstd_level, false, lz_full));
    const size_t floor = std::min({best.size(), lz_biased.size(), lz_full.size()});
    EXPECT_LE(double(ours.size()), 1.01 * double(floor)) << "stream of " << s.size() << " bytes";
  }
}

}  // namespace
}  // namespace z4ai
