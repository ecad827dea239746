// The speed paths of compress skip or reuse passes without changing a
// frame's bytes (the golden frames pin those): these tests pin that the
// passes stay skipped (coding_work.h counts them), and that the evidence
// gating a skipped pass still lets its wins through.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "codec/common/coding_work.h"
#include "codec/entropy/entropy.h"
#include "codec/entropy/long_stream_path.h"
#include "codec/entropy/repetition_probe.h"
#include "test_data.h"
#include "z4ai/codec.h"
#include "z4ai/model_delta.h"

namespace z4ai {
namespace {

using detail::coding_work;

constexpr size_t kStreamBytes = size_t{512} << 10;  // over the size that always tries zstd

// Mantissa-like bytes: 7-bit values, low ones a little more frequent.
std::vector<uint8_t> mantissa_like(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n);
  for (auto& b : out) b = uint8_t(std::min(rng() & 0x7f, rng() & 0x7f) | (rng() & 0x40));
  return out;
}

// Back-to-back 13-byte words from a vocabulary of 512: zstd finds the words
// again within any window, while 64-byte aligned blocks rarely recur.
std::vector<uint8_t> words(size_t n, uint32_t seed) {
  const std::vector<uint8_t> vocab = testing::random_bytes(512 * 13, seed);
  std::mt19937 rng(seed + 1);
  std::vector<uint8_t> out;
  while (out.size() < n) {
    const size_t w = rng() % 512;
    out.insert(out.end(), vocab.begin() + w * 13, vocab.begin() + w * 13 + 13);
  }
  out.resize(n);
  return out;
}

struct Coded {
  detail::Method method;
  size_t bytes;
};

Coded long_stream(const std::vector<uint8_t>& in) {
  detail::EntropyPolicy p;
  p.whole_stream_lz = true;
  std::vector<uint8_t> out;
  const detail::Method m = detail::encode_best(in, p, out);
  return {m, out.size()};
}

size_t best_without_lz(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> out;
  detail::encode_best(in, detail::EntropyPolicy{}, out);
  return out.size();
}

size_t zstd_long_level1(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> out;
  EXPECT_TRUE(detail::encode_zstd_long(in, 1, false, out));
  return out.size();
}

// Trained-like weights of 4 MiB: the long-stream frame is built and wins, but
// no stream of it (256 KiB to 2 MiB) shows a match, so none is also coded as
// a whole-stream zstd frame. Each was before, at level 1 and at 3 (4-8x the
// instructions of the rest of the frame).
TEST(SpeedPath, PlainFloatsRunNoWholeStreamZstdTrial) {
  const auto data = testing::gaussian_bf16(size_t{2} << 20);
  CompressOptions o;
  o.dtype = "bf16";
  o.threads = 1;
  const uint64_t before = coding_work().zstd_long_input_bytes;
  const auto frame = compress(data, o).value();
  EXPECT_EQ(coding_work().zstd_long_input_bytes, before);
  uint32_t chunks = 0;
  std::memcpy(&chunks, frame.data() + 28, 4);
  EXPECT_EQ(chunks, 1u);  // the long-stream frame
  EXPECT_EQ(decompress(frame).value(), data);
}

TEST(SpeedPath, NoMatchesNoWholeStreamTrial) {
  const auto noise = mantissa_like(kStreamBytes, 3);
  EXPECT_FALSE(detail::lz_may_pay(noise));
  const uint64_t before = coding_work().zstd_long_input_bytes;
  const Coded c = long_stream(noise);
  EXPECT_EQ(coding_work().zstd_long_input_bytes, before);
  EXPECT_EQ(c.bytes, best_without_lz(noise));
}

// A stream and its copy far apart (the exponents of a tensor and of its
// negated copy): the repeat probe opens the trials, and zstd's frame is kept.
TEST(SpeedPath, FarRepeatsStillTakeWholeStreamZstd) {
  auto s = mantissa_like(kStreamBytes / 2, 4);
  s.insert(s.end(), s.begin(), s.end());
  EXPECT_TRUE(detail::has_long_range_repeats(s));
  EXPECT_TRUE(detail::lz_may_pay(s));
  const Coded c = long_stream(s);
  EXPECT_EQ(c.method, detail::Method::zstd);
  EXPECT_LE(c.bytes, std::min(best_without_lz(s), zstd_long_level1(s)));
  EXPECT_LT(c.bytes, best_without_lz(s) * 6 / 10);
}

// Matches within the probe windows, none at 64-byte aligned offsets: zstd
// under the windows' order-0 entropy opens the trials.
TEST(SpeedPath, LocalMatchesStillTakeWholeStreamZstd) {
  const auto s = words(kStreamBytes, 5);
  EXPECT_FALSE(detail::has_long_range_repeats(s));
  EXPECT_TRUE(detail::lz_may_pay(s));
  const Coded c = long_stream(s);
  EXPECT_EQ(c.method, detail::Method::zstd);
  EXPECT_LE(c.bytes, std::min(best_without_lz(s), zstd_long_level1(s)));
}

// Streams up to 128 KiB keep every trial (the RNN-like inputs whose planes
// zstd codes to half of rANS's are that small).
TEST(SpeedPath, SmallStreamsAlwaysTryWholeStreamZstd) {
  EXPECT_TRUE(detail::lz_may_pay(mantissa_like(size_t{128} << 10, 6)));
  EXPECT_FALSE(detail::lz_may_pay(mantissa_like((size_t{128} << 10) + 1, 6)));
}

// Z4DM weighs each changed tensor's standalone frame as its FULL entry and
// inside its Z4XD entry: one coding of it, plus the XOR delta's. Before, the
// standalone frame was coded twice (three frames per tensor).
TEST(SpeedPath, ModelDeltaCodesEachStandaloneFrameOnce) {
  const auto base_w = testing::gaussian_bf16(64 << 10, 1);
  auto target_w = base_w;
  for (size_t i = 0; i < target_w.size(); i += 97) target_w[i] ^= 1;
  const auto base = testing::safetensors({{"w", "BF16", base_w}});
  const auto target = testing::safetensors({{"w", "BF16", target_w}});
  ModelDeltaOptions o;
  o.threads = 1;
  const uint64_t before = coding_work().frame_input_bytes;
  const auto frame = compress_model_delta(target, base, o).value();
  EXPECT_EQ(coding_work().frame_input_bytes - before, 2 * target_w.size());
  EXPECT_EQ(decompress_model_delta(frame, base).value(), target);
}

}  // namespace
}  // namespace z4ai
