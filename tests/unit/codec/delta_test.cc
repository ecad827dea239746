// XOR delta frames: smaller than standalone for near-identical checkpoints,
// and a wrong reference fails with digest_mismatch.
#include <gtest/gtest.h>

#include <vector>

#include "test_data.h"
#include "z4ai/delta.h"

namespace z4ai {
namespace {

TEST(Delta, SmallChangeStoresFarSmallerThanStandalone) {
  auto ref = testing::gaussian_bf16(500'000, 1);
  auto cur = ref;
  for (size_t i = 0; i < cur.size(); i += 200) cur[i] ^= 0x01;
  CompressOptions o;
  o.dtype = "bf16";
  auto delta = compress_delta(cur, ref, o);
  ASSERT_TRUE(delta.ok()) << delta.status().to_string();
  auto full = compress(cur, o);
  EXPECT_LT(delta->size() * 10, full->size());
  auto back = decompress_delta(delta.value(), ref);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back.value(), cur);
  EXPECT_EQ(peek(delta.value())->kind, FrameKind::delta);
}

TEST(Delta, WrongReferenceFailsLoudly) {
  auto ref = testing::gaussian_bf16(10'000, 1);
  auto cur = ref;
  cur[5] ^= 0xFF;
  auto delta = compress_delta(cur, ref, {}).value();
  auto other = ref;
  other[100] ^= 1;
  EXPECT_EQ(decompress_delta(delta, other).status().code(), zt::ErrorCode::digest_mismatch);
  other.pop_back();
  EXPECT_EQ(decompress_delta(delta, other).status().code(), zt::ErrorCode::digest_mismatch);
}

TEST(Delta, UnrelatedDataAndLengthMismatchStillRoundTrip) {
  auto ref = testing::random_bytes(5'000, 3);
  auto cur = testing::gaussian_fp32(3'000, 4);  // longer than ref
  CompressOptions o;
  o.dtype = "fp32";
  auto delta = compress_delta(cur, ref, o).value();
  EXPECT_LE(delta.size(), compress(cur, o)->size() + 32);
  EXPECT_EQ(decompress_delta(delta, ref).value(), cur);
  std::vector<uint8_t> empty;
  auto d2 = compress_delta(empty, ref, o).value();
  EXPECT_EQ(decompress_delta(d2, ref).value(), empty);
}

TEST(Delta, TruncatedFramesAreRejected) {
  auto ref = testing::gaussian_bf16(5'000, 1);
  auto cur = testing::gaussian_bf16(5'000, 2);
  auto delta = compress_delta(cur, ref, {}).value();
  for (size_t len = 0; len < delta.size(); len += 11)
    EXPECT_FALSE(decompress_delta(std::span<const uint8_t>(delta.data(), len), ref).ok()) << len;
}

}  // namespace
}  // namespace z4ai
