// Blocked rANS: a stream cut into fixed blocks, each coded on its own
// (stored, rANS order-0 or order-1). Weights are not stationary -- tensors of
// different scale share a chunk -- so per-block frequency tables track the
// local statistics that one table per 4 MiB stream averages away.
//   payload: u8 log2(block bytes), then per block: u8 method, u32 comp_len, bytes
#include <cmath>
#include <string>

#include "codec/common/byte_io.h"
#include "codec/entropy/entropy.h"
#include "codec/entropy/histogram.h"

namespace z4ai::detail {
namespace {

constexpr int kMinBlockLog2 = 14;  // 16 KiB
constexpr int kMaxBlockLog2 = 20;  // 1 MiB
// 16 KiB blocks decode at about half the speed of 64 KiB ones: htscodecs
// codes a block under 64 KiB for its 4-way scalar decoder, not the 32-way
// SIMD one, and every block rebuilds a 4096-slot table (MiniLM layer 0 in
// bf16: 7.0 -> 3.7 ms a decode at one thread for 0.05 % more bytes,
// bench/micro/decode_profile). So they are planned only when they save this
// share over the best larger blocks: a coding that decodes 1.5x slower must
// save at least 1 % (docs/codec.md).
constexpr double kSmallBlockMinSaving = 0.01;
// Order-1 blocks are tried from this size: below it the 256-row table costs
// more than the context gains, and each block's table setup slows decoding.
constexpr size_t kMinOrder1BlockBytes = size_t{64} << 10;

double block_cost(const uint32_t* hist, size_t n) {
  if (n == 0) return 0;
  double bits = 0;
  size_t distinct = 0;
  for (int s = 0; s < 256; ++s)
    if (hist[s]) {
      double p = double(hist[s]) / double(n);
      bits -= double(hist[s]) * std::log2(p);
      ++distinct;
    }
  double coded = bits / 8 + 6 + 1.2 * double(distinct);
  return std::min(coded, double(n)) + 5;  // + block header
}

}  // namespace

std::vector<uint32_t> block_histograms(std::span<const uint8_t> in) {
  const size_t base = size_t{1} << kMinBlockLog2;
  const size_t nb = (in.size() + base - 1) / base;
  std::vector<uint32_t> hist(nb * 256, 0);
  for (size_t b = 0; b < nb; ++b) {
    Histogram4 h = {};
    const size_t begin = b * base, end = std::min(in.size(), begin + base);
    count_bytes(h, in.data() + begin, end - begin);
    sum_histogram(h, &hist[b * 256]);
  }
  return hist;
}

BlockPlan plan_blocks(const std::vector<uint32_t>& hist, size_t size) {
  BlockPlan best{0, double(size) * 2}, smallest{0, double(size) * 2};
  const size_t base = size_t{1} << kMinBlockLog2;
  const size_t nb = hist.size() / 256;
  if (nb < 2) return best;
  for (int lg = kMinBlockLog2; lg <= kMaxBlockLog2; lg += 2) {
    size_t per = size_t{1} << (lg - kMinBlockLog2);
    if ((nb + per - 1) / per < 2) break;
    double total = 1;
    for (size_t b = 0; b < nb; b += per) {
      uint32_t h[256] = {0};
      size_t end = std::min(nb, b + per);
      for (size_t k = b; k < end; ++k)
        for (int s = 0; s < 256; ++s) h[s] += hist[k * 256 + s];
      size_t n = std::min(size, end * base) - b * base;
      total += block_cost(h, n);
    }
    if (lg == kMinBlockLog2)
      smallest = {lg, total};
    else if (total < best.estimate)
      best = {lg, total};
  }
  if (best.log2 == 0 || smallest.estimate < (1 - kSmallBlockMinSaving) * best.estimate) return smallest;
  return best;
}

BlockPlan plan_blocks(std::span<const uint8_t> in) { return plan_blocks(block_histograms(in), in.size()); }

bool encode_rans_blocks(std::span<const uint8_t> in, int log2, std::vector<uint8_t>& out, bool try_order1) {
  if (log2 < kMinBlockLog2 || log2 > kMaxBlockLog2) return false;
  const size_t block = size_t{1} << log2;
  put_u8(out, uint8_t(log2));
  std::vector<uint8_t> buf, buf1;
  for (size_t off = 0; off < in.size(); off += block) {
    std::span<const uint8_t> b = in.subspan(off, std::min(block, in.size() - off));
    buf.clear();
    Method m = Method::stored;
    if (encode_rans(b, 0, buf) && buf.size() < b.size()) m = Method::rans0;
    // Order 1 pays where neighbouring symbols correlate (exponents of one
    // tensor's rows); its larger table must be repaid within the block.
    if (try_order1 && b.size() >= kMinOrder1BlockBytes) {
      buf1.clear();
      if (encode_rans(b, 1, buf1) && buf1.size() < (m == Method::stored ? b.size() : buf.size())) {
        m = Method::rans1;
        buf.swap(buf1);
      }
    }
    put_u8(out, uint8_t(m));
    put_u32(out, uint32_t(m == Method::stored ? b.size() : buf.size()));
    if (m == Method::stored) {
      put_bytes(out, b);
    } else {
      put_bytes(out, buf);
    }
  }
  return true;
}

namespace {

// The blocks of a blocked rANS stream of n bytes, each checked to produce
// its size (stored: exactly; rANS: declared) before anything is decoded.
zt::Result<std::vector<SubStream>> parse_blocks(std::span<const uint8_t> in, uint64_t n) {
  ByteReader r(in);
  uint8_t lg = 0;
  if (!r.u8(lg) || lg < kMinBlockLog2 || lg > kMaxBlockLog2)
    return zt::Status(zt::ErrorCode::corrupt_stream, "z4ai: blocked rANS stream has a bad block size");
  const uint64_t block = uint64_t{1} << lg;
  std::vector<SubStream> blocks;
  for (uint64_t off = 0; off < n; off += block) {
    SubStream b;
    uint32_t len = 0;
    b.raw_len = std::min(block, n - off);
    if (!r.u8(b.method) || !r.u32(len) || !r.bytes(len, b.payload))
      return zt::Status(zt::ErrorCode::corrupt_stream, "z4ai: blocked rANS stream is truncated");
    ZT_RETURN_IF_ERROR(check_substream(b, "blocked rANS block"));
    blocks.push_back(b);
  }
  if (r.remaining() != 0)
    return zt::Status(zt::ErrorCode::corrupt_stream, "z4ai: trailing bytes after the last rANS block");
  return blocks;
}

}  // namespace

zt::Status check_rans_blocks(std::span<const uint8_t> in, uint64_t n) { return parse_blocks(in, n).status(); }

zt::Status decode_rans_blocks(std::span<const uint8_t> in, std::span<uint8_t> out) {
  ZT_ASSIGN_OR_RETURN(std::vector<SubStream> blocks, parse_blocks(in, out.size()));
  return decode_substreams(blocks, out);
}

}  // namespace z4ai::detail
