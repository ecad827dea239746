// Dequantizer kernels on hand-built blocks whose values are known exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ztensor/gguf.h"

namespace zt {
namespace {

constexpr uint32_t kQ8_0 = 8, kQ4_0 = 2, kQ4_K = 12, kIQ4_NL = 20;

TEST(GgufDequant, Q8_0Block) {
  std::vector<uint8_t> b(34);
  b[0] = 0x00, b[1] = 0x38;  // f16 0.5
  for (int i = 0; i < 32; ++i) b[2 + i] = static_cast<uint8_t>(static_cast<int8_t>(i - 16));
  auto r = gguf_dequantize(kQ8_0, b, 32);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  for (int i = 0; i < 32; ++i) EXPECT_EQ((*r)[i], 0.5f * (i - 16)) << i;
}

TEST(GgufDequant, Q4_0NibbleOrder) {
  std::vector<uint8_t> b(18, 0);
  b[0] = 0x00, b[1] = 0x3C;  // f16 1.0
  b[2] = 0xF0;               // element 0: low nibble 0 -> -8; element 16: high nibble 15 -> 7
  auto r = gguf_dequantize(kQ4_0, b, 32);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0], -8.0f);
  EXPECT_EQ((*r)[16], 7.0f);
  EXPECT_EQ((*r)[1], -8.0f);
}

TEST(GgufDequant, SizeRulesAndUnsupportedTypes) {
  std::vector<uint8_t> b(34);
  EXPECT_EQ(gguf_dequantize(kQ8_0, b, 31).status().code(), ErrorCode::length_mismatch);
  EXPECT_EQ(gguf_dequantize(kQ8_0, b, 64).status().code(), ErrorCode::length_mismatch);
  EXPECT_EQ(gguf_dequantize(kQ4_K, b, 256).status().code(), ErrorCode::length_mismatch);
  EXPECT_EQ(gguf_dequantize(kIQ4_NL, std::vector<uint8_t>(18), 32).status().code(), ErrorCode::unsupported);
  EXPECT_EQ(gguf_dequantize(4, b, 32).status().code(), ErrorCode::unknown_dtype);
  auto empty = gguf_dequantize(kQ8_0, {}, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(GgufDequant, F16SubnormalsAndSpecials) {
  const uint16_t h[] = {0x0001, 0x8000, 0x7C00, 0x3555, 0x03FF};
  auto r = gguf_dequantize(1, {reinterpret_cast<const uint8_t*>(h), sizeof h}, 5);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0], 5.9604644775390625e-08f);
  EXPECT_TRUE(std::signbit((*r)[1]) && (*r)[1] == 0.0f);
  EXPECT_TRUE(std::isinf((*r)[2]));
  EXPECT_EQ((*r)[3], 0.333251953125f);
  EXPECT_EQ((*r)[4], 6.0975551605224609375e-05f);
}

TEST(GgufTypes, TableMatchesGgml) {
  const GgmlTypeInfo* q6 = ggml_type_info(14);
  ASSERT_NE(q6, nullptr);
  EXPECT_STREQ(q6->name, "Q6_K");
  EXPECT_EQ(q6->type_size, 210u);
  EXPECT_EQ(ggml_type_info(4), nullptr);
  EXPECT_EQ(ggml_type_info(30)->dense, DType::bf16);
}

}  // namespace
}  // namespace zt
