// ggml block formats -> f32. Each kernel follows ggml's block layout and
// rounds exactly as gguf-py's numpy dequantizer does (products and sums in
// f32, in the same order), so results match it bit for bit. The build turns
// off FMA contraction for this file (CMakeLists.txt) to keep that promise.
#include <cstring>

#include "common/checked_math.h"
#include "ztensor/gguf.h"

namespace zt {
namespace {

constexpr int kQK = 256;

float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FF, bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000 | (mant << 13);  // inf / nan
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    exp = 113;
    while ((mant & 0x400) == 0) { mant <<= 1; --exp; }
    bits = sign | (exp << 23) | ((mant & 0x3FF) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float half(const uint8_t* p) { return f16_to_f32(static_cast<uint16_t>(p[0] | (p[1] << 8))); }
float bf16(const uint8_t* p) {
  const uint32_t bits = static_cast<uint32_t>(p[0] | (p[1] << 8)) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Q4_0: f16 d | 16 bytes of nibbles; element j < 16 is the low nibble of
// byte j, element j + 16 its high nibble; value d * (q - 8).
void q4_0(const uint8_t* b, float* y) {
  const float d = half(b);
  for (int j = 0; j < 16; ++j) {
    y[j] = d * static_cast<float>((b[2 + j] & 0xF) - 8);
    y[j + 16] = d * static_cast<float>((b[2 + j] >> 4) - 8);
  }
}
// Q4_1: f16 d | f16 m | nibbles; value d * q + m.
void q4_1(const uint8_t* b, float* y) {
  const float d = half(b), m = half(b + 2);
  for (int j = 0; j < 16; ++j) {
    y[j] = d * static_cast<float>(b[4 + j] & 0xF) + m;
    y[j + 16] = d * static_cast<float>(b[4 + j] >> 4) + m;
  }
}
uint32_t le32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24); }
// Q5_0: f16 d | u32 high bits | nibbles; q = nibble | bit j << 4; d * (q - 16).
void q5_0(const uint8_t* b, float* y) {
  const float d = half(b);
  const uint32_t qh = le32(b + 2);
  for (int j = 0; j < 16; ++j) {
    const int lo = (b[6 + j] & 0xF) | (((qh >> j) & 1) << 4);
    const int hi = (b[6 + j] >> 4) | (((qh >> (j + 16)) & 1) << 4);
    y[j] = d * static_cast<float>(lo - 16);
    y[j + 16] = d * static_cast<float>(hi - 16);
  }
}
// Q5_1: f16 d | f16 m | u32 high bits | nibbles; d * q + m.
void q5_1(const uint8_t* b, float* y) {
  const float d = half(b), m = half(b + 2);
  const uint32_t qh = le32(b + 4);
  for (int j = 0; j < 16; ++j) {
    const int lo = (b[8 + j] & 0xF) | (((qh >> j) & 1) << 4);
    const int hi = (b[8 + j] >> 4) | (((qh >> (j + 16)) & 1) << 4);
    y[j] = d * static_cast<float>(lo) + m;
    y[j + 16] = d * static_cast<float>(hi) + m;
  }
}
// Q8_0: f16 d | 32 x i8; q * d.
void q8_0(const uint8_t* b, float* y) {
  const float d = half(b);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<int8_t>(b[2 + j])) * d;
}
// Q2_K: 16 scale bytes (low nibble scale, high nibble min) | 64 bytes of
// 2-bit values | f16 d | f16 dmin. Element i (of 256) is in byte
// (i / 128) * 32 + i % 32 at bit 2 * ((i / 32) % 4); group i / 16.
void q2_k(const uint8_t* b, float* y) {
  const uint8_t* sc = b;
  const uint8_t* qs = b + 16;
  const float d = half(b + 80), dmin = half(b + 82);
  for (int i = 0; i < kQK; ++i) {
    const int q = (qs[(i / 128) * 32 + i % 32] >> (2 * ((i / 32) % 4))) & 3;
    const float dl = d * static_cast<float>(sc[i / 16] & 0xF);
    const float ml = dmin * static_cast<float>(sc[i / 16] >> 4);
    y[i] = dl * static_cast<float>(q) - ml;
  }
}
// Q3_K: 32 bytes high-bit mask | 64 bytes 2-bit values | 12 bytes of 6-bit
// scales | f16 d. The high bit *clear* subtracts 4.
void q3_k(const uint8_t* b, float* y) {
  const uint8_t* hmask = b;
  const uint8_t* qs = b + 32;
  const uint8_t* s = b + 96;
  const float d = half(b + 108);
  float dl[16];
  for (int g = 0; g < 16; ++g) {
    const int lo = (g < 8 ? s[g] : s[g - 8] >> 4) & 0xF;
    const int hi = (s[8 + g % 4] >> (2 * (g / 4))) & 3;
    dl[g] = d * static_cast<float>(static_cast<int8_t>(lo | (hi << 4)) - 32);
  }
  for (int i = 0; i < kQK; ++i) {
    const int ql = (qs[(i / 128) * 32 + i % 32] >> (2 * ((i / 32) % 4))) & 3;
    const int h = ((hmask[i % 32] >> (i / 32)) & 1) ^ 1;
    y[i] = dl[i / 16] * static_cast<float>(ql - (h << 2));
  }
}
// The 12-byte packing of eight 6-bit scales and mins shared by Q4_K / Q5_K.
void k_scale_min(const uint8_t* s, int j, int* sc, int* m) {
  if (j < 4) {
    *sc = s[j] & 0x3F;
    *m = s[j + 4] & 0x3F;
  } else {
    *sc = (s[j + 4] & 0xF) | ((s[j - 4] >> 2) & 0x30);
    *m = (s[j + 4] >> 4) | ((s[j] >> 2) & 0x30);
  }
}
// Q4_K: f16 d | f16 dmin | 12 scale bytes | 128 bytes of nibbles. Sub-block
// sb (32 elements) is byte chunk sb / 2, low nibble when sb is even.
void q4_k(const uint8_t* b, float* y, const uint8_t* qh) {
  const float d = half(b), dmin = half(b + 2);
  const uint8_t* qs = b + 4 + 12 + (qh ? 32 : 0);
  for (int sb = 0; sb < 8; ++sb) {
    int sc, m;
    k_scale_min(b + 4, sb, &sc, &m);
    const float dl = d * static_cast<float>(sc), ml = dmin * static_cast<float>(m);
    for (int l = 0; l < 32; ++l) {
      int q = (qs[(sb / 2) * 32 + l] >> (4 * (sb % 2))) & 0xF;
      if (qh) q |= ((qh[l] >> sb) & 1) << 4;
      y[sb * 32 + l] = dl * static_cast<float>(q) - ml;
    }
  }
}
// Q5_K: Q4_K plus 32 bytes of fifth bits (bit sb of byte l) before the nibbles.
void q5_k(const uint8_t* b, float* y) { q4_k(b, y, b + 16); }
// Q6_K: 128 bytes low nibbles | 64 bytes 2-bit highs | 16 x i8 scales | f16 d.
void q6_k(const uint8_t* b, float* y) {
  const uint8_t* ql = b;
  const uint8_t* qh = b + 128;
  const auto* sc = reinterpret_cast<const int8_t*>(b + 192);
  const float d = half(b + 208);
  for (int i = 0; i < kQK; ++i) {
    const int h = i / 128, r = i % 128;
    const int lo = (ql[h * 64 + r % 64] >> (4 * (r / 64))) & 0xF;
    const int hi = (qh[h * 32 + r % 32] >> (2 * (r / 32))) & 3;
    const int q = static_cast<int8_t>(lo | (hi << 4)) - 32;
    y[i] = (d * static_cast<float>(sc[i / 16])) * static_cast<float>(q);
  }
}
// Q8_K: f32 d | 256 x i8 | 16 x i16 block sums (unused here); d * q.
void q8_k(const uint8_t* b, float* y) {
  float d;
  std::memcpy(&d, b, 4);
  for (int i = 0; i < kQK; ++i) y[i] = d * static_cast<float>(static_cast<int8_t>(b[4 + i]));
}
void f32(const uint8_t* b, float* y) { std::memcpy(y, b, 4); }
void f16(const uint8_t* b, float* y) { *y = half(b); }
void bf16_1(const uint8_t* b, float* y) { *y = bf16(b); }

using Kernel = void (*)(const uint8_t*, float*);
Kernel kernel_for(uint32_t id) {
  switch (id) {
    case 0: return f32;
    case 1: return f16;
    case 2: return q4_0;
    case 3: return q4_1;
    case 6: return q5_0;
    case 7: return q5_1;
    case 8: return q8_0;
    case 10: return q2_k;
    case 11: return q3_k;
    case 12: return [](const uint8_t* b, float* y) { q4_k(b, y, nullptr); };
    case 13: return q5_k;
    case 14: return q6_k;
    case 15: return q8_k;
    case 30: return bf16_1;
    default: return nullptr;
  }
}

}  // namespace

Result<std::vector<float>> gguf_dequantize(uint32_t ggml_type, std::span<const uint8_t> blocks, uint64_t n_elements) {
  const GgmlTypeInfo* info = ggml_type_info(ggml_type);
  if (!info) return Status(ErrorCode::unknown_dtype, "gguf_dequantize: unknown ggml type " + std::to_string(ggml_type));
  Kernel k = kernel_for(ggml_type);
  if (!k) return Status(ErrorCode::unsupported, std::string("gguf_dequantize: no dequantizer for ") + info->name);
  if (n_elements % info->block_size != 0)
    return Status(ErrorCode::length_mismatch, "gguf_dequantize: " + std::to_string(n_elements) + " elements of " +
                                                  info->name + " are not whole blocks of " + std::to_string(info->block_size));
  const uint64_t n_blocks = n_elements / info->block_size;
  auto need = checked_mul(n_blocks, info->type_size);
  if (!need || *need != blocks.size())
    return Status(ErrorCode::length_mismatch, "gguf_dequantize: " + std::to_string(n_elements) + " elements of " +
                                                  info->name + " need " + (need ? std::to_string(*need) : "too many") +
                                                  " bytes, got " + std::to_string(blocks.size()));
  std::vector<float> out(n_elements);
  for (uint64_t i = 0; i < n_blocks; ++i) k(blocks.data() + i * info->type_size, out.data() + i * info->block_size);
  return out;
}

}  // namespace zt
