// Deterministic test buffers shaped like model weights.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace z4ai::testing {

inline std::vector<uint8_t> gaussian_fp32(size_t n, uint32_t seed = 1, float sigma = 0.02f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, sigma);
  std::vector<uint8_t> out(n * 4);
  for (size_t i = 0; i < n; ++i) {
    float f = dist(rng);
    std::memcpy(&out[i * 4], &f, 4);
  }
  return out;
}

// bf16 = top half of fp32 (truncation is enough for tests).
inline std::vector<uint8_t> gaussian_bf16(size_t n, uint32_t seed = 1) {
  auto f = gaussian_fp32(n, seed);
  std::vector<uint8_t> out(n * 2);
  for (size_t i = 0; i < n; ++i) std::memcpy(&out[i * 2], &f[i * 4 + 2], 2);
  return out;
}

inline std::vector<uint8_t> random_bytes(size_t n, uint32_t seed = 7) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n);
  for (auto& b : out) b = uint8_t(rng());
  return out;
}

// name, dtype, bytes -> a contiguous safetensors buffer (rank 1: bytes / width elements).
using TensorSpec = std::tuple<std::string, std::string, std::vector<uint8_t>>;
inline std::vector<uint8_t> safetensors(const std::vector<TensorSpec>& ts) {
  std::string header = "{\"__metadata__\":{\"format\":\"pt\"}";
  std::vector<uint8_t> data;
  for (const auto& [name, dtype, bytes] : ts) {
    const size_t width = dtype == "F64" || dtype == "I64" || dtype == "U64" ? 8
                         : dtype == "F32" || dtype == "I32" || dtype == "U32" ? 4
                         : dtype == "BF16" || dtype == "F16" || dtype == "I16" || dtype == "U16" ? 2 : 1;
    header += ",\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":[" + std::to_string(bytes.size() / width) +
              "],\"data_offsets\":[" + std::to_string(data.size()) + "," + std::to_string(data.size() + bytes.size()) +
              "]}";
    data.insert(data.end(), bytes.begin(), bytes.end());
  }
  header += "}";
  std::vector<uint8_t> out;
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(uint64_t(header.size()) >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace z4ai::testing
