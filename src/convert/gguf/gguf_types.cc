// ggml's type table: id, name, elements per block, bytes per block.
#include "ztensor/gguf.h"

namespace zt {
namespace {

constexpr uint32_t kQK = 256;  // QK_K: elements in a k-quant super-block

constexpr GgmlTypeInfo kTypes[] = {
    {0, "F32", 1, 4, DType::f32, true},
    {1, "F16", 1, 2, DType::f16, true},
    {2, "Q4_0", 32, 2 + 16, std::nullopt, true},
    {3, "Q4_1", 32, 2 + 2 + 16, std::nullopt, true},
    // 4, 5: Q4_2 / Q4_3 were removed from ggml; files using them are refused.
    {6, "Q5_0", 32, 2 + 4 + 16, std::nullopt, true},
    {7, "Q5_1", 32, 2 + 2 + 4 + 16, std::nullopt, true},
    {8, "Q8_0", 32, 2 + 32, std::nullopt, true},
    {9, "Q8_1", 32, 4 + 4 + 32, std::nullopt, false},
    {10, "Q2_K", kQK, 2 + 2 + kQK / 16 + kQK / 4, std::nullopt, true},
    {11, "Q3_K", kQK, 2 + kQK / 4 + kQK / 8 + 12, std::nullopt, true},
    {12, "Q4_K", kQK, 2 + 2 + kQK / 2 + 12, std::nullopt, true},
    {13, "Q5_K", kQK, 2 + 2 + kQK / 2 + kQK / 8 + 12, std::nullopt, true},
    {14, "Q6_K", kQK, 2 + kQK / 2 + kQK / 4 + kQK / 16, std::nullopt, true},
    {15, "Q8_K", kQK, 4 + kQK + kQK / 8, std::nullopt, true},
    {16, "IQ2_XXS", kQK, 2 + kQK / 4, std::nullopt, false},
    {17, "IQ2_XS", kQK, 2 + kQK / 4 + kQK / 32, std::nullopt, false},
    {18, "IQ3_XXS", kQK, 2 + kQK / 4 + kQK / 8, std::nullopt, false},
    {19, "IQ1_S", kQK, 2 + kQK / 8 + kQK / 16, std::nullopt, false},
    {20, "IQ4_NL", 32, 2 + 16, std::nullopt, false},
    {21, "IQ3_S", kQK, 2 + kQK / 4 + kQK / 8 + kQK / 32 + 4, std::nullopt, false},
    {22, "IQ2_S", kQK, 2 + kQK / 4 + kQK / 16, std::nullopt, false},
    {23, "IQ4_XS", kQK, 2 + 2 + kQK / 2 + kQK / 64, std::nullopt, false},
    {24, "I8", 1, 1, DType::i8, false},
    {25, "I16", 1, 2, DType::i16, false},
    {26, "I32", 1, 4, DType::i32, false},
    {27, "I64", 1, 8, DType::i64, false},
    {28, "F64", 1, 8, DType::f64, false},
    {29, "IQ1_M", kQK, kQK / 8 + kQK / 16 + kQK / 32, std::nullopt, false},
    {30, "BF16", 1, 2, DType::bf16, true},
    // 31-33: Q4_0_4_4 / Q4_0_4_8 / Q4_0_8_8 were removed from ggml.
    {34, "TQ1_0", kQK, 2 + 4 * 13, std::nullopt, false},
    {35, "TQ2_0", kQK, 2 + 64, std::nullopt, false},
    {39, "MXFP4", 32, 1 + 16, std::nullopt, false},
    {40, "NVFP4", 64, 4 + 32, std::nullopt, false},
    {41, "Q1_0", 128, 2 + 16, std::nullopt, false},
};

}  // namespace

const GgmlTypeInfo* ggml_type_info(uint32_t id) {
  for (const auto& t : kTypes)
    if (t.id == id) return &t;
  return nullptr;
}

}  // namespace zt
