#include "codec/repetition_probe.h"

#include <xxhash.h>

#include <unordered_set>

namespace z4ai::detail {
namespace {

constexpr size_t kBlock = 64;
constexpr uint64_t kSampleMask = 15;        // keep blocks whose hash % 16 == 0
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
  std::unordered_set<uint64_t> seen;
  seen.reserve(blocks / 8);
  size_t sampled = 0, repeats = 0;
  for (size_t b = 0; b < blocks; ++b) {
    const uint8_t* p = data.data() + b * kBlock;
    uint64_t h = XXH3_64bits(p, kBlock);
    if ((h & kSampleMask) != 0 || is_uniform(p)) continue;  // runs are the sparse path's job
    ++sampled;
    if (!seen.insert(h).second) ++repeats;
  }
  return sampled > 0 && double(repeats) >= kRepeatShare * double(sampled);
}

}  // namespace z4ai::detail
