// ZSTN v3 containers: round trips, tied weights as REF, hostile indexes.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "test_data.h"
#include "z4ai/zstn.h"

namespace z4ai::zstn {
namespace {

using testing::safetensors;

std::vector<uint8_t> sample() {
  auto emb = testing::gaussian_fp32(5000, 1);
  return safetensors({{"emb", "F32", emb}, {"bias", "BF16", testing::gaussian_bf16(300, 2)},
                      {"head", "F32", emb}, {"empty", "F32", {}}, {"ids", "I64", testing::random_bytes(64)}});
}

TEST(Zstn, RoundTripIsByteIdenticalWithTiedWeightsAsRef) {
  auto st = sample();
  auto z = compress(st, {});
  ASSERT_TRUE(z.ok()) << z.status().to_string();
  EXPECT_TRUE(is_zstn(z.value()));
  EXPECT_LT(z->size(), st.size());
  for (unsigned w : {0u, 1u, 3u}) {
    auto back = decompress(z.value(), w);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back.value(), st);
  }
  auto prefix = parse_prefix(z.value());
  ASSERT_TRUE(prefix.ok());
  EXPECT_TRUE(prefix->contiguous);
  const uint8_t* f = z->data() + z->size() - kFooterBytes;
  uint64_t index_offset, index_len;
  std::memcpy(&index_offset, f, 8);
  std::memcpy(&index_len, f + 8, 8);
  auto idx = parse_index(std::span<const uint8_t>(z->data() + index_offset, index_len), prefix->data_len,
                         prefix->body_offset, index_offset);
  ASSERT_TRUE(idx.ok()) << idx.status().to_string();
  ASSERT_EQ(idx->size(), 5u);
  EXPECT_EQ((*idx)[2].name, "head");
  EXPECT_EQ((*idx)[2].kind, EntryKind::ref);
  EXPECT_EQ((*idx)[2].ref_index, 0u);
}

TEST(Zstn, RejectsInvalidSafetensors) {
  std::vector<uint8_t> junk = {5, 0, 0, 0, 0, 0, 0, 0, '{', 'b', 'a', 'd', '}'};
  EXPECT_EQ(compress(junk, {}).status().code(), zt::ErrorCode::invalid_argument);
  EXPECT_EQ(compress(std::vector<uint8_t>(3), {}).status().code(), zt::ErrorCode::invalid_argument);
}

TEST(Zstn, TruncationsAndFlipsNeverCrashOrLie) {
  auto st = sample();
  auto z = compress(st, {}).value();
  for (size_t len = 0; len < z.size(); len += 7)
    EXPECT_FALSE(decompress(std::span<const uint8_t>(z.data(), len)).ok()) << len;
  for (size_t i = 0; i < z.size(); i += 5) {
    auto bad = z;
    bad[i] ^= 0x21;
    auto r = decompress(bad);
    if (r.ok()) {
      EXPECT_EQ(r->size(), st.size()) << "flip at " << i;
    }
  }
}

}  // namespace
}  // namespace z4ai::zstn
