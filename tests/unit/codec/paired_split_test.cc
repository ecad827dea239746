// Transform 4 (paired field split): round trips through the frame, and the
// checks a decoder makes on hostile pair and escape streams.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "codec/transform/paired_split.h"
#include "codec/transform/transforms.h"
#include "test_data.h"
#include "z4ai/codec.h"

namespace z4ai::detail {
namespace {

// Gaussian weights with every 1001st element scaled far out of the main
// exponent window: the escapes path is exercised in every chunk.
std::vector<uint8_t> fp32_with_outliers(size_t n) {
  auto data = testing::gaussian_fp32(n, 3);
  for (size_t i = 0; i < n; i += 1001) {
    float f;
    std::memcpy(&f, &data[i * 4], 4);
    f *= (i / 1001) % 2 ? 1e20f : 1e-20f;
    std::memcpy(&data[i * 4], &f, 4);
  }
  return data;
}

uint8_t first_chunk_transform(const std::vector<uint8_t>& frame) {
  uint32_t n_chunks = 0;
  std::memcpy(&n_chunks, &frame[28], 4);
  return frame[32 + 4 * n_chunks];
}

TEST(PairedSplit, FloatFramesUseItAndRoundTripWithEscapesOddCountsAndTails) {
  for (const char* dtype : {"bf16", "fp32"}) {
    const bool bf16 = std::string(dtype) == "bf16";
    for (size_t n : {size_t{2'200'001}, size_t{2'100'003}}) {  // over 4 MiB: the one-chunk candidate (long_stream_path.h) stays out
      auto data = fp32_with_outliers(n);
      if (bf16) {  // top halves of the fp32 values, plus one tail byte
        std::vector<uint8_t> b(n * 2 + 1, 0x5A);
        for (size_t i = 0; i < n; ++i) std::memcpy(&b[i * 2], &data[i * 4 + 2], 2);
        data = b;
      }
      CompressOptions o;
      o.dtype = dtype;
      auto frame = compress(data, o);
      ASSERT_TRUE(frame.ok()) << frame.status().to_string();
      EXPECT_EQ(first_chunk_transform(frame.value()), uint8_t(Transform::paired_field_split)) << dtype << " " << n;
      auto back = decompress(frame.value());
      ASSERT_TRUE(back.ok()) << back.status().to_string();
      EXPECT_EQ(back.value(), data) << dtype << " " << n;
    }
  }
}

TEST(PairedSplit, SpreadExponentsFallBackToThePlainFieldSplit) {
  auto noise = testing::random_bytes(4 * 50'000, 11);  // exponents uniform over 0..255
  uint8_t base = 0;
  EXPECT_FALSE(choose_pair_base(noise.data(), 50'000, DType::fp32, base));
  auto tight = testing::gaussian_fp32(50'000);
  EXPECT_TRUE(choose_pair_base(tight.data(), 50'000, DType::fp32, base));
  EXPECT_FALSE(choose_pair_base(tight.data(), 50'000, DType::fp16, base));
}

struct Split {
  std::vector<std::vector<uint8_t>> streams;
  std::vector<uint32_t> lens;
  std::vector<const uint8_t*> ptrs() const {
    std::vector<const uint8_t*> p;
    for (const auto& s : streams) p.push_back(s.data());
    return p;
  }
};

Split split_bf16(const std::vector<uint8_t>& data, size_t n, uint8_t base) {
  Split s;
  s.streams = {std::vector<uint8_t>(n + 1), std::vector<uint8_t>((n + 1) / 2), std::vector<uint8_t>(n)};
  std::vector<uint8_t*> w{s.streams[0].data(), s.streams[1].data(), s.streams[2].data()};
  s.streams[0][0] = base;
  size_t esc = paired_split(DType::bf16, data.data(), n, base, w[0] + 1, w.data());
  s.streams[0].resize(1 + esc);
  for (const auto& x : s.streams) s.lens.push_back(uint32_t(x.size()));
  return s;
}

TEST(PairedSplit, MergeRejectsEscapeCountAndPadNibbleMismatches) {
  const size_t n = 1001;  // odd: one pad nibble
  auto data = testing::gaussian_bf16(n);
  uint8_t base = 0;
  ASSERT_TRUE(choose_pair_base(data.data(), n, DType::bf16, base));
  Split s = split_bf16(data, n, uint8_t(base + 3));  // shifted window: some escapes
  ASSERT_TRUE(check_paired_lengths(DType::bf16, s.lens.data(), n).ok());
  std::vector<uint8_t> out(n * 2);
  ASSERT_TRUE(paired_merge(DType::bf16, s.ptrs().data(), s.lens[0], n, out.data()).ok());
  EXPECT_EQ(out, data);

  Split extra = s;  // one escaped exponent more than the pairs announce
  extra.streams[0].push_back(0x7F);
  extra.lens[0] += 1;
  EXPECT_EQ(paired_merge(DType::bf16, extra.ptrs().data(), extra.lens[0], n, out.data()).code(),
            zt::ErrorCode::corrupt_stream);

  Split pad = s;  // a nonzero pad nibble after the odd last element
  pad.streams[1].back() |= 0x30;
  EXPECT_EQ(paired_merge(DType::bf16, pad.ptrs().data(), pad.lens[0], n, out.data()).code(),
            zt::ErrorCode::corrupt_stream);
}

TEST(PairedSplit, LengthsAreCheckedBeforeDecoding) {
  const size_t n = 1000;
  std::vector<uint32_t> ok{1, 500, 1000};
  EXPECT_TRUE(check_paired_lengths(DType::bf16, ok.data(), n).ok());
  std::vector<uint32_t> no_base{0, 500, 1000};
  EXPECT_FALSE(check_paired_lengths(DType::bf16, no_base.data(), n).ok());
  std::vector<uint32_t> too_many_escapes{1002, 500, 1000};
  EXPECT_FALSE(check_paired_lengths(DType::bf16, too_many_escapes.data(), n).ok());
  std::vector<uint32_t> short_pairs{1, 499, 1000};
  EXPECT_EQ(check_paired_lengths(DType::bf16, short_pairs.data(), n).code(), zt::ErrorCode::length_mismatch);
  std::vector<uint32_t> fp32_short{1, 500, 1000, 1000, 999};
  EXPECT_EQ(check_paired_lengths(DType::fp32, fp32_short.data(), n).code(), zt::ErrorCode::length_mismatch);
  EXPECT_FALSE(check_paired_lengths(DType::fp16, ok.data(), n).ok());
}

TEST(PairedSplit, SparseFlagOnAPairedChunkIsRejected) {
  auto data = testing::gaussian_bf16(2'200'000);  // over 4 MiB, so chunked
  CompressOptions o;
  o.dtype = "bf16";
  auto frame = compress(data, o).value();
  uint32_t n_chunks = 0;
  std::memcpy(&n_chunks, &frame[28], 4);
  ASSERT_EQ(frame[32 + 4 * n_chunks], uint8_t(Transform::paired_field_split));
  frame[32 + 4 * n_chunks] |= kSparseFlag;
  auto r = decompress(frame);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot be sparse"), std::string::npos) << r.status().to_string();
}

}  // namespace
}  // namespace z4ai::detail
