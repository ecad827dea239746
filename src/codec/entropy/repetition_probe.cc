#include "codec/entropy/repetition_probe.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace z4ai::detail {
namespace {

constexpr size_t kBlock = 64;
constexpr uint64_t kMix1 = 0x9E3779B97F4A7C15ull;  // odd 64-bit mixing constants
constexpr uint64_t kMix2 = 0xC2B2AE3D27D4EB4Full;
constexpr double kRepeatShare = 0.02;       // 2 % repeated sampled blocks

bool is_uniform(const uint8_t* p) {
  for (size_t i = 1; i < kBlock; ++i)
    if (p[i] != p[0]) return false;
  return true;
}

}  // namespace

bool has_long_range_repeats(std::span<const uint8_t> data) {
  size_t blocks = data.size() / kBlock;
  if (blocks < 64) return false;
  // Sampled hashes are collected and sorted: a node-based set costs an
  // allocation per sampled block, more than the hashing.
  std::vector<uint64_t> seen;
  seen.reserve(blocks / 8);
  for (size_t b = 0; b < blocks; ++b) {
    const uint8_t* p = data.data() + b * kBlock;
    // Content-defined 1/16 sample from a multiplicative hash of the first 16
    // bytes (equal blocks agree on it); only sampled blocks pay for XXH3.
    uint64_t w0, w1;
    std::memcpy(&w0, p, 8);
    std::memcpy(&w1, p + 8, 8);
    if ((((w0 ^ (w1 * kMix2)) * kMix1) >> 60) != 0) continue;
    if (is_uniform(p)) continue;  // runs are the sparse path's job
    seen.push_back(XXH3_64bits(p, kBlock));
  }
  // A repeat is a sampled block whose hash an earlier sampled block had.
  const size_t sampled = seen.size();
  std::sort(seen.begin(), seen.end());
  const size_t distinct = size_t(std::unique(seen.begin(), seen.end()) - seen.begin());
  const size_t repeats = sampled - distinct;
  return sampled > 0 && double(repeats) >= kRepeatShare * double(sampled);
}

}  // namespace z4ai::detail
