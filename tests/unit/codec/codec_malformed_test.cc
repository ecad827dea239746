// Hostile Z4AI frames: each defect must give its error, never a crash.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "test_data.h"
#include "z4ai/codec.h"

namespace z4ai {
namespace {

std::vector<uint8_t> sample_data() { return testing::gaussian_bf16(20'000); }

std::vector<uint8_t> sample_frame(Effort effort = Effort::fast) {
  auto data = sample_data();
  CompressOptions o;
  o.dtype = "bf16";
  o.effort = effort;
  return compress(data, o).value();
}

void put64(std::vector<uint8_t>& f, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) f[at + i] = uint8_t(v >> (8 * i));
}

TEST(Z4aiMalformed, EveryTruncationIsRejected) {
  auto frame = sample_frame();
  for (size_t len = 0; len < frame.size(); ++len) {
    auto r = decompress(std::span<const uint8_t>(frame.data(), len));
    EXPECT_FALSE(r.ok()) << "truncated to " << len;
  }
}

// A flip either fails or (in coder padding bits that do not change the
// decoded bytes) still yields the exact original: never different data.
TEST(Z4aiMalformed, EveryBitFlipIsRejectedOrHarmless) {
  const auto data = sample_data();
  for (Effort e : {Effort::fast, Effort::balanced}) {
    auto frame = sample_frame(e);
    size_t rejected = 0, tried = 0;
    for (size_t i = 0; i < frame.size(); i += (i < 64 ? 1 : 7)) {
      auto bad = frame;
      bad[i] ^= uint8_t(1u << (i % 8));
      auto r = decompress(bad);
      ++tried;
      if (!r.ok()) {
        ++rejected;
      } else {
        EXPECT_EQ(r.value(), data) << "flip at " << i << " returned wrong data";
      }
      if (i < 32) {
        EXPECT_FALSE(r.ok()) << "header flip at " << i;
      }
    }
    EXPECT_GT(rejected * 10, tried * 9);
  }
}

TEST(Z4aiMalformed, BadMagicVersionAndReserved) {
  auto frame = sample_frame();
  auto bad = frame;
  bad[0] = 'X';
  EXPECT_EQ(decompress(bad).status().code(), zt::ErrorCode::bad_magic);
  bad = frame;
  bad[4] = 9;
  EXPECT_EQ(decompress(bad).status().code(), zt::ErrorCode::unsupported);
  bad = frame;
  bad[7] = 1;
  EXPECT_EQ(decompress(bad).status().code(), zt::ErrorCode::corrupt_stream);
  bad = frame;
  bad[5] = 200;  // dtype code
  EXPECT_EQ(decompress(bad).status().code(), zt::ErrorCode::corrupt_stream);
}

TEST(Z4aiMalformed, DeclaredLengthOverLimitOrChunkTable) {
  auto frame = sample_frame();
  auto bad = frame;
  put64(bad, 8, kMaxFrameOriginalBytes + 1);
  EXPECT_EQ(decompress(bad).status().code(), zt::ErrorCode::limit_exceeded);
  bad = frame;
  put64(bad, 8, uint64_t(1) << 39);  // more than the chunk table can produce
  EXPECT_EQ(decompress(bad).status().code(), zt::ErrorCode::length_mismatch);
  bad = frame;
  put64(bad, 8, 40'001);  // one byte more: same chunk count, chunk decodes short
  EXPECT_FALSE(decompress(bad).ok());
}

TEST(Z4aiMalformed, ChecksumMismatchIsDigestError) {
  auto frame = sample_frame();
  frame[16] ^= 0xFF;
  EXPECT_EQ(decompress(frame).status().code(), zt::ErrorCode::digest_mismatch);
}

TEST(Z4aiMalformed, TrailingGarbageIsRejected) {
  auto frame = sample_frame();
  frame.push_back(0);
  EXPECT_EQ(decompress(frame).status().code(), zt::ErrorCode::corrupt_stream);
}

// Context coders (methods 4-6) in a Z4AI frame: ZaraTier.ContextCodersAreRejectedInZ4aiFrames.

TEST(Z4aiMalformed, RandomGarbageAfterValidHeader) {
  auto frame = sample_frame();
  auto noise = testing::random_bytes(frame.size() - 32, 99);
  std::copy(noise.begin(), noise.end(), frame.begin() + 32);
  EXPECT_FALSE(decompress(frame).ok());
}

}  // namespace
}  // namespace z4ai

namespace z4ai {
namespace {

// Multi-chunk frames go through the in-order checksum of the threaded
// decoder: a damaged chunk anywhere, or a wrong digest, fails at 1 and 2
// threads alike, never returns data and never hangs.
TEST(Z4aiMalformed, DamageInAnyChunkFailsAtEveryThreadCount) {
  const auto data = testing::gaussian_bf16(2'300'000);  // 4.6 MB: several chunks
  CompressOptions o;
  o.dtype = "bf16";
  const auto frame = compress(data, o).value();
  uint32_t n_chunks = 0;
  std::memcpy(&n_chunks, &frame[28], 4);
  ASSERT_GE(n_chunks, 3u);
  for (unsigned threads : {1u, 2u}) {
    for (double at : {0.3, 0.6, 0.95}) {  // bodies of early, middle and last chunks
      auto bad = frame;
      bad[size_t(double(bad.size()) * at)] ^= 0x40;
      auto r = decompress(bad, threads);
      EXPECT_FALSE(r.ok()) << "flip at " << at << " threads " << threads;
    }
    auto wrong_digest = frame;
    wrong_digest[16] ^= 1;
    auto r = decompress(wrong_digest, threads);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), zt::ErrorCode::digest_mismatch);
  }
}

}  // namespace
}  // namespace z4ai
