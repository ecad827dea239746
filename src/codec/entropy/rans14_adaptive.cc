// Our encoder for PyPI z4ai's adaptive order-0 layout: u64 (n | bit 62) |
// u32 k | u32 table-blob length | k x u32 coded lengths | zstd(k x 512-byte
// tables) | k streams (4 states, then bytes), slice i = [i*n/k, (i+1)*n/k),
// k = ceil(n / 64 KiB). A table per slice follows a stream whose statistics
// drift (an fp16 high byte plane across tensors); rans14.h codes each slice.
#include "codec/entropy/rans14_adaptive.h"

#include <algorithm>
#include <cstdint>

#include "codec/common/byte_io.h"
#include "codec/entropy/entropy.h"
#include "codec/entropy/pypi_rans.h"
#include "codec/entropy/rans14.h"

namespace z4ai::detail {
namespace {

constexpr uint64_t kAdaptiveFlag = kRans14AdaptiveFlag;
constexpr size_t kSliceBytes = kRans14AdaptiveSlice;  // fixed by the layout: the decoder derives k from n
// zstd level for the table blob: on resemblyzer's fp16 high plane (22
// tables, 11 KB) level 12 packs it to 3167 bytes in 0.5 ms, 15 and 19 to
// 3102-3110 in 10-24 ms, 3 to 3254.
constexpr int kTableLevel = 12;
// rans14 output: u64 n and the 512-byte table precede the states we keep.
constexpr size_t kSliceHeadBytes = 8 + 2 * 256;
constexpr size_t kStateBytes = 4 * 4;
// A slice joins the run of slices before it (all then take the run's table)
// when that costs fewer coded bytes than this: a repeated table zstd-packs to
// a few bytes, a new one to 100-150 (resemblyzer's fp16 high plane: 22
// slices in 16 runs, 365 bytes smaller than a table each, across 50-400).
constexpr double kTableCostBytes = 150;

// Coded bytes of the symbols alone (rans14_coded_size adds a header).
double coded_bytes(const uint32_t* counts) {
  uint16_t freq[256];
  rans14_normalize(counts, freq);
  return rans14_coded_size(counts, freq) - double(kRans14HeaderBytes);
}

}  // namespace

bool encode_rans14_adaptive(std::span<const uint8_t> in, std::vector<uint8_t>& out, size_t max_bytes) {
  if (in.size() > kMaxStreamBytes) return false;
  const uint64_t n = in.size();
  if (n == 0) {  // the decoder reads nothing after a zero head
    if (max_bytes < 8) return false;
    put_u64(out, 0);
    return true;
  }
  const uint64_t k = (n + kSliceBytes - 1) / kSliceBytes;
  auto slice = [&](uint64_t i) {
    const uint64_t b = n * i / k, e = n * (i + 1) / k;
    return in.subspan(size_t(b), size_t(e - b));
  };
  // Runs of adjacent slices with one table: run r covers slices
  // [starts[r], starts[r + 1]).
  std::vector<uint32_t> counts(size_t(k) * 256), run(256);
  std::vector<uint64_t> starts{0};
  double run_cost = 0;
  for (uint64_t i = 0; i < k; ++i) {
    uint16_t unused[256];
    uint32_t* c = counts.data() + 256 * i;
    rans14_table(slice(i), c, unused);
    if (i == 0) {
      std::copy(c, c + 256, run.begin());
      run_cost = coded_bytes(c);
      continue;
    }
    uint32_t joined[256];
    for (int s = 0; s < 256; ++s) joined[s] = run[s] + c[s];
    const double joined_cost = coded_bytes(joined);
    if (joined_cost - run_cost - coded_bytes(c) < kTableCostBytes) {
      std::copy(joined, joined + 256, run.begin());
      run_cost = joined_cost;
    } else {
      starts.push_back(i);
      std::copy(c, c + 256, run.begin());
      run_cost = coded_bytes(c);
    }
  }
  starts.push_back(k);
  std::vector<uint8_t> tables;
  tables.reserve(size_t(k) * 512);
  std::vector<uint16_t> freqs(size_t(k) * 256);
  double estimate = 8 + 8 + 4 * double(k);
  for (size_t r = 0; r + 1 < starts.size(); ++r) {
    uint32_t sum[256] = {0};
    for (uint64_t i = starts[r]; i < starts[r + 1]; ++i)
      for (int s = 0; s < 256; ++s) sum[s] += counts[256 * i + s];
    uint16_t freq[256];
    rans14_normalize(sum, freq);
    const double slices = double(starts[r + 1] - starts[r]);
    estimate += rans14_coded_size(sum, freq) - double(kRans14HeaderBytes) + double(kStateBytes) * slices;
    for (uint64_t i = starts[r]; i < starts[r + 1]; ++i) {
      std::copy(freq, freq + 256, freqs.begin() + 256 * i);
      for (int s = 0; s < 256; ++s) put_u16(tables, freq[s]);
    }
  }
  if (estimate > double(max_bytes)) return false;  // lost before the blob is packed
  std::vector<uint8_t> blob;
  if (!encode_zstd(tables, kTableLevel, blob)) return false;
  // The estimate is exact up to each slice's state flush (a few bytes).
  if (estimate + double(blob.size()) > double(max_bytes)) return false;
  std::vector<std::vector<uint8_t>> streams(k);
  size_t total = 8 + 8 + 4 * size_t(k) + blob.size();
  for (uint64_t i = 0; i < k; ++i) {
    if (!encode_rans14(slice(i), freqs.data() + 256 * i, streams[i])) return false;
    total += streams[i].size() - kSliceHeadBytes;
  }
  if (total > max_bytes) return false;
  out.reserve(out.size() + total);
  put_u64(out, n | kAdaptiveFlag);
  put_u32(out, uint32_t(k));
  put_u32(out, uint32_t(blob.size()));
  for (const auto& s : streams) put_u32(out, uint32_t(s.size() - kSliceHeadBytes));
  out.insert(out.end(), blob.begin(), blob.end());
  for (const auto& s : streams) out.insert(out.end(), s.begin() + kSliceHeadBytes, s.end());
  return true;
}

}  // namespace z4ai::detail
