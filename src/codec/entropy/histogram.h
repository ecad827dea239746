// Byte histograms for the coder choice. Four tables, summed at the end, so
// runs of one byte value do not serialise on one counter.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace z4ai::detail {

using Histogram4 = uint32_t[4][256];

inline void count_bytes(Histogram4& h, const uint8_t* p, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    ++h[0][p[i]];
    ++h[1][p[i + 1]];
    ++h[2][p[i + 2]];
    ++h[3][p[i + 3]];
  }
  for (; i < n; ++i) ++h[0][p[i]];
}

inline void sum_histogram(const Histogram4& h, uint32_t* out) {
  for (int s = 0; s < 256; ++s) out[s] = h[0][s] + h[1][s] + h[2][s] + h[3][s];
}

// Order-0 entropy in bits per symbol of `k` counts summing to `total`.
inline double entropy_bits(const uint32_t* counts, size_t k, uint64_t total) {
  if (total == 0) return 0;
  double h = 0;
  for (size_t i = 0; i < k; ++i)
    if (counts[i]) {
      const double p = double(counts[i]) / double(total);
      h -= p * std::log2(p);
    }
  return h;
}

}  // namespace z4ai::detail
