// Decoders for PyPI z4ai 0.2.0's rANS streams (legacy_format.h). Facts of the
// layout, as that package writes it:
//   order-0: u64 n | 256 x u16 frequencies (sum 2^14) | 4 interleaved 32-bit
//     states, symbol i on lane i % 4, renormalising a byte at a time while the
//     state is below 2^23. With bit 63 of n set: u16 k follows n, then the
//     table, k x u32 coded lengths and k streams for the slices
//     [i*n/k, (i+1)*n/k). With bit 62 set (adaptive): u32 k, u32 table-blob
//     length, k x u32 coded lengths, zstd(k tables), k streams, one table per
//     slice, k = ceil(n / 64 KiB).
//   order-1 "R1": "R1" u8 nseg pad u32 n u32 model_len u16 k | zstd(model) |
//     k x u32 coded lengths | k chunks (slices as above). The model lists, per
//     previous byte, its nonzero frequencies (sum 2^12). A chunk holds nseg u32
//     substream lengths, then nseg substreams (u32 state, then bytes), one per
//     slice of the chunk; the context is 0 at each slice start.
// A valid stream starts every state in [2^23, 2^31) and ends it at exactly
// 2^23 (the encoder's start) without reading past its bytes; anything else is
// corrupt_stream.
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "codec/common/byte_io.h"
#include "codec/entropy/entropy.h"
#include "codec/entropy/pypi_rans.h"
#include "codec/entropy/rans14_decode.h"

namespace z4ai::detail {
namespace {

constexpr uint32_t kRansLow = kRans14Low;
constexpr uint64_t kChunkedFlag = uint64_t{1} << 63;
constexpr uint64_t kAdaptiveFlag = kRans14AdaptiveFlag;
constexpr uint64_t kAdaptiveSlice = kRans14AdaptiveSlice;
constexpr int kO0Bits = kRans14ScaleBits;
constexpr int kO1Bits = 12;
// The encoder caps order-1 segments at 64 (its decoder's state array).
constexpr uint8_t kMaxO1Segments = 64;
// One record per context: u8 ctx, u16 count, count x (u8 sym, u16 freq).
constexpr size_t kMaxO1ModelBytes = 256 * (3 + 256 * 3);

zt::Status corrupt(const std::string& what) {
  return {zt::ErrorCode::corrupt_stream, "PyPI z4ai rANS stream: " + what};
}

uint64_t slice_begin(uint64_t n, uint64_t k, uint64_t i) { return n * i / k; }

bool valid_start(uint32_t x) { return x >= kRansLow && x < (1u << 31); }

// The k streams a chunk length table declares, back to back.
zt::Result<std::vector<std::span<const uint8_t>>> take_chunks(ByteReader& r, const std::vector<uint32_t>& lens,
                                                              const char* what) {
  std::vector<std::span<const uint8_t>> chunks(lens.size());
  for (size_t i = 0; i < lens.size(); ++i)
    if (!r.bytes(lens[i], chunks[i]))
      return corrupt(std::string(what) + ": chunk " + std::to_string(i) + " declares " + std::to_string(lens[i]) +
                     " bytes, only " + std::to_string(r.remaining()) + " are left");
  return chunks;
}

zt::Result<std::vector<uint32_t>> read_lengths(ByteReader& r, uint64_t k, const char* what) {
  if (k * 4 > r.remaining()) return corrupt(std::string(what) + ": chunk length table runs past the stream");
  std::vector<uint32_t> lens(size_t(k), 0);
  for (auto& len : lens) r.u32(len);
  return lens;
}

zt::Status check_length(uint64_t declared, size_t want) {
  if (declared == want) return {};
  return {zt::ErrorCode::length_mismatch, "PyPI z4ai rANS stream: declares " + std::to_string(declared) +
                                              " bytes, its plane holds " + std::to_string(want)};
}

// zstd frame whose content size is declared in its header and at most `cap`.
zt::Result<std::vector<uint8_t>> unzstd_declared(std::span<const uint8_t> in, uint64_t cap, const char* what) {
  const unsigned long long size = ZSTD_getFrameContentSize(in.data(), in.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > cap)
    return corrupt(std::string(what) + ": zstd frame declares no size or one over " + std::to_string(cap));
  std::vector<uint8_t> raw(static_cast<size_t>(size));
  ZT_RETURN_IF_ERROR(decode_zstd(in, raw));
  return raw;
}

// The k slices [i*n/k, (i+1)*n/k) of `out`, slice i from chunks[i], two at
// a time (rans14_decode.h); model_of(i, m) points m at slice i's table or
// fails. A slice pair's tables are both asked for before either is decoded.
template <class ModelOf>
zt::Status decode_slices(const std::vector<std::span<const uint8_t>>& chunks, uint64_t n, ModelOf model_of,
                         std::span<uint8_t> out) {
  const uint64_t k = chunks.size();
  const auto slice = [&](uint64_t i) {
    const uint64_t b = slice_begin(n, k, i), e = slice_begin(n, k, i + 1);
    return out.subspan(size_t(b), size_t(e - b));
  };
  uint64_t i = 0;
  for (; i + 2 <= k; i += 2) {
    const Rans14Model *a = nullptr, *b = nullptr;
    ZT_RETURN_IF_ERROR(model_of(i, a));
    ZT_RETURN_IF_ERROR(model_of(i + 1, b));
    ZT_RETURN_IF_ERROR(decode_rans14_streams2(chunks[i], *a, slice(i), chunks[i + 1], *b, slice(i + 1)));
  }
  if (i < k) {
    const Rans14Model* a = nullptr;
    ZT_RETURN_IF_ERROR(model_of(i, a));
    ZT_RETURN_IF_ERROR(decode_rans14_stream(chunks[i], *a, slice(i)));
  }
  return {};
}

// Each symbol costs at least log2(scale / largest frequency) bits, and the
// four 32-bit states hold at most 128 bits more: a stream of `coded` bytes
// cannot produce more symbols than that, whatever it declares.
zt::Status check_entropy_bound(const uint8_t* table, uint64_t n, uint64_t coded) {
  uint32_t top = 0;
  for (int s = 0; s < 256; ++s) top = std::max<uint32_t>(top, table[2 * s] | table[2 * s + 1] << 8);
  if (top == 0 || top >= (1u << kO0Bits)) return {};  // one symbol codes in 0 bits: no bound
  const double min_bits = double(n) * std::log2(double(1u << kO0Bits) / top);
  if (min_bits <= double(coded) * 8 + 4 * 32 + 64) return {};
  return {zt::ErrorCode::length_mismatch, "PyPI z4ai rANS stream: " + std::to_string(coded) +
                                              " coded bytes cannot hold " + std::to_string(n) +
                                              " symbols of its frequency table"};
}

}  // namespace

zt::Status check_legacy_rans_declared(uint8_t kind, std::span<const uint8_t> in, uint64_t n) {
  ByteReader r(in);
  uint64_t head = 0;
  if (!r.u64(head)) return corrupt("shorter than its 8-byte header");
  // The head declares the symbol count (below its flag bits), as decoding checks.
  const uint64_t flags = kind == 1 ? kAdaptiveFlag : kChunkedFlag;
  if (kind == 1 && head != 0 && !(head & kAdaptiveFlag)) return corrupt("adaptive stream lacks its flag bit");
  ZT_RETURN_IF_ERROR(check_length(head & ~flags, size_t(std::min<uint64_t>(n, SIZE_MAX))));
  if (kind == 1) {  // adaptive: k = ceil(n / 64 KiB) slices, each 4 + 16 bytes at least
    uint32_t k = 0;
    if (head == 0 || !r.u32(k)) return {};
    if (k != (n + kAdaptiveSlice - 1) / kAdaptiveSlice || r.remaining() < 4 + 20 * uint64_t(k))
      return {zt::ErrorCode::length_mismatch, "PyPI z4ai adaptive rANS stream: " + std::to_string(in.size()) +
                                                  " bytes cannot hold " + std::to_string(n) + " symbols"};
    return {};
  }
  std::span<const uint8_t> table;
  uint16_t k = 0;
  if ((head & kChunkedFlag) && (!r.u16(k) || !r.bytes(512, table))) return corrupt("chunked header is truncated");
  if (!(head & kChunkedFlag) && (head == 0 || !r.bytes(512, table))) return {};
  const uint64_t states = 16 * uint64_t(k > 0 ? k : 1);
  return check_entropy_bound(table.data(), n, r.remaining() + states);
}

zt::Status decode_legacy_rans0(std::span<const uint8_t> in, std::span<uint8_t> out) {
  ByteReader r(in);
  uint64_t head = 0;
  if (!r.u64(head)) return corrupt("shorter than its 8-byte header");
  const uint64_t n = head & ~kChunkedFlag;
  if (head & kChunkedFlag) {
    uint16_t k = 0;
    std::span<const uint8_t> table;
    if (!r.u16(k) || !r.bytes(512, table)) return corrupt("chunked header is truncated");
    ZT_RETURN_IF_ERROR(check_length(n, out.size()));
    if (k == 0) return corrupt("chunked stream declares 0 chunks");
    auto m = std::make_unique_for_overwrite<Rans14Model>();
    ZT_RETURN_IF_ERROR(build_rans14_model(table.data(), *m));
    ZT_ASSIGN_OR_RETURN(auto lens, read_lengths(r, k, "chunked order-0"));
    ZT_ASSIGN_OR_RETURN(auto chunks, take_chunks(r, lens, "chunked order-0"));
    const auto shared = [&](uint64_t, const Rans14Model*& p) {
      p = m.get();
      return zt::Status();
    };
    return decode_slices(chunks, n, shared, out);
  }
  ZT_RETURN_IF_ERROR(check_length(head, out.size()));
  if (n == 0) return {};
  std::span<const uint8_t> table, payload;
  if (!r.bytes(512, table)) return corrupt("frequency table is truncated");
  r.bytes(r.remaining(), payload);
  auto m = std::make_unique_for_overwrite<Rans14Model>();
  ZT_RETURN_IF_ERROR(build_rans14_model(table.data(), *m));
  return decode_rans14_stream(payload, *m, out);
}

zt::Status decode_legacy_rans_adaptive(std::span<const uint8_t> in, std::span<uint8_t> out) {
  ByteReader r(in);
  uint64_t head = 0;
  if (!r.u64(head)) return corrupt("shorter than its 8-byte header");
  if (head == 0) return check_length(0, out.size());
  if (!(head & kAdaptiveFlag)) return corrupt("adaptive stream lacks its flag bit");
  const uint64_t n = head & ~kAdaptiveFlag;
  ZT_RETURN_IF_ERROR(check_length(n, out.size()));
  uint32_t k = 0, blob_len = 0;
  if (!r.u32(k) || !r.u32(blob_len)) return corrupt("adaptive header is truncated");
  if (k != (n + kAdaptiveSlice - 1) / kAdaptiveSlice)
    return corrupt("adaptive stream declares " + std::to_string(k) + " chunks for " + std::to_string(n) + " bytes");
  ZT_ASSIGN_OR_RETURN(auto lens, read_lengths(r, k, "adaptive order-0"));
  std::span<const uint8_t> blob;
  if (!r.bytes(blob_len, blob)) return corrupt("adaptive table blob runs past the stream");
  ZT_RETURN_IF_ERROR(check_zstd_produces(blob, uint64_t(k) * 512));
  std::vector<uint8_t> tables(size_t(k) * 512);
  ZT_RETURN_IF_ERROR(decode_zstd(blob, tables));
  ZT_ASSIGN_OR_RETURN(auto chunks, take_chunks(r, lens, "adaptive order-0"));
  // Two models, for the two slices decoded at once.
  auto m = std::make_unique_for_overwrite<Rans14Model[]>(2);
  const auto own = [&](uint64_t i, const Rans14Model*& p) {
    p = &m[i % 2];
    return build_rans14_model(tables.data() + 512 * i, m[i % 2]);
  };
  return decode_slices(chunks, n, own, out);
}

namespace {

struct O1Model {
  std::vector<uint16_t> freq = std::vector<uint16_t>(256 * 256, 0);
  std::vector<uint32_t> cum = std::vector<uint32_t>(256 * 256, 0);
  std::vector<uint8_t> slot = std::vector<uint8_t>(256u << kO1Bits, 0);
  std::array<bool, 256> used{};
};

zt::Status parse_o1_model(std::span<const uint8_t> raw, O1Model& m) {
  ByteReader r(raw);
  while (r.remaining() > 0) {
    uint8_t ctx = 0;
    uint16_t count = 0;
    if (!r.u8(ctx) || !r.u16(count) || count > 256 || uint64_t(count) * 3 > r.remaining())
      return corrupt("order-1 model record is truncated");
    for (uint16_t j = 0; j < count; ++j) {
      uint8_t sym = 0;
      uint16_t f = 0;
      r.u8(sym);
      r.u16(f);
      m.freq[ctx * 256 + sym] = f;
    }
    m.used[ctx] = true;
  }
  for (int c = 0; c < 256; ++c) {
    if (!m.used[c]) continue;
    uint32_t acc = 0;
    for (int s = 0; s < 256; ++s) {
      m.cum[c * 256 + s] = acc;
      acc += m.freq[c * 256 + s];
    }
    if (acc != (1u << kO1Bits)) return corrupt("order-1 context " + std::to_string(c) + " sums to " + std::to_string(acc));
    uint8_t* row = m.slot.data() + (size_t(c) << kO1Bits);
    for (int s = 0; s < 256; ++s) std::memset(row + m.cum[c * 256 + s], s, m.freq[c * 256 + s]);
  }
  return {};
}

zt::Status decode_o1_segment(std::span<const uint8_t> sub, const O1Model& m, std::span<uint8_t> out) {
  if (sub.size() < 4) return corrupt("order-1 substream has no state");
  uint32_t x = load_u32(sub.data());
  if (out.empty()) return x == kRansLow ? zt::Status() : corrupt("empty order-1 substream has a stray state");
  if (!valid_start(x)) return corrupt("initial state out of range");
  StateReader r{sub.data() + 4, sub.data() + sub.size()};
  constexpr uint32_t mask = (1u << kO1Bits) - 1;
  uint8_t ctx = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!m.used[ctx]) return corrupt("order-1 context " + std::to_string(ctx) + " has no model");
    const size_t row = size_t(ctx) * 256;
    const uint32_t slot = x & mask;
    const uint8_t sym = m.slot[(size_t(ctx) << kO1Bits) + slot];
    out[i] = sym;
    x = r.renorm(m.freq[row + sym] * (x >> kO1Bits) + slot - m.cum[row + sym]);
    ctx = sym;
  }
  if (r.overrun) return corrupt("order-1 substream runs past its coded bytes");
  if (x != kRansLow) return corrupt("order-1 final state is not the encoder's start state");
  return {};
}

}  // namespace

zt::Status check_legacy_rans1_declared(std::span<const uint8_t> in, uint64_t n) {
  ByteReader r(in);
  std::span<const uint8_t> magic, blob;
  uint8_t nseg = 0, pad = 0;
  uint32_t declared = 0, model_len = 0;
  uint16_t k = 0;
  if (!r.bytes(2, magic) || !r.u8(nseg) || !r.u8(pad) || !r.u32(declared) || !r.u32(model_len) || !r.u16(k))
    return corrupt("order-1 header is truncated");
  ZT_RETURN_IF_ERROR(check_length(declared, size_t(std::min<uint64_t>(n, SIZE_MAX))));
  if (n == 0) return {};
  if (!r.bytes(model_len, blob)) return corrupt("order-1 model runs past the stream");
  ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> raw, unzstd_declared(blob, kMaxO1ModelBytes, "order-1 model"));
  // As for order-0: no symbol costs less than log2(2^12 / largest frequency).
  uint32_t top = 0;
  for (size_t at = 0; at + 3 <= raw.size();) {
    const uint32_t count = raw[at + 1] | raw[at + 2] << 8;
    at += 3;
    for (uint32_t j = 0; j < count && at + 3 <= raw.size(); ++j, at += 3)
      top = std::max<uint32_t>(top, raw[at + 1] | raw[at + 2] << 8);
  }
  if (top == 0 || top >= (1u << kO1Bits)) return {};
  const double min_bits = double(n) * std::log2(double(1u << kO1Bits) / top);
  const double states = 32.0 * nseg * std::max<uint16_t>(k, 1);
  if (min_bits <= double(r.remaining()) * 8 + states + 64) return {};
  return {zt::ErrorCode::length_mismatch, "PyPI z4ai order-1 rANS stream: " + std::to_string(in.size()) +
                                              " bytes cannot hold " + std::to_string(n) + " symbols of its model"};
}

zt::Status decode_legacy_rans1(std::span<const uint8_t> in, std::span<uint8_t> out) {
  ByteReader r(in);
  std::span<const uint8_t> magic;
  uint8_t nseg = 0, pad = 0;
  uint32_t n = 0, model_len = 0;
  uint16_t k = 0;
  if (!r.bytes(2, magic) || !r.u8(nseg) || !r.u8(pad) || !r.u32(n) || !r.u32(model_len) || !r.u16(k))
    return corrupt("order-1 header is truncated");
  if (magic[0] != 'R' || magic[1] != '1') return corrupt("order-1 stream does not start with 'R1'");
  ZT_RETURN_IF_ERROR(check_length(n, out.size()));
  if (n == 0) return {};
  if (nseg == 0 || nseg > kMaxO1Segments || k == 0)
    return corrupt("order-1 stream declares " + std::to_string(nseg) + " segments and " + std::to_string(k) +
                   " chunks");
  std::span<const uint8_t> blob;
  if (!r.bytes(model_len, blob)) return corrupt("order-1 model runs past the stream");
  ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> raw, unzstd_declared(blob, kMaxO1ModelBytes, "order-1 model"));
  auto m = std::make_unique<O1Model>();
  ZT_RETURN_IF_ERROR(parse_o1_model(raw, *m));
  ZT_ASSIGN_OR_RETURN(auto lens, read_lengths(r, k, "order-1"));
  ZT_ASSIGN_OR_RETURN(auto chunks, take_chunks(r, lens, "order-1"));
  for (uint64_t i = 0; i < k; ++i) {
    const uint64_t b = slice_begin(n, k, i), e = slice_begin(n, k, i + 1);
    std::span<uint8_t> dst = out.subspan(size_t(b), size_t(e - b));
    ByteReader cr(chunks[i]);
    ZT_ASSIGN_OR_RETURN(auto sub_lens, read_lengths(cr, nseg, "order-1 chunk"));
    ZT_ASSIGN_OR_RETURN(auto subs, take_chunks(cr, sub_lens, "order-1 chunk"));
    for (uint64_t l = 0; l < nseg; ++l) {
      const uint64_t sb = slice_begin(dst.size(), nseg, l), se = slice_begin(dst.size(), nseg, l + 1);
      ZT_RETURN_IF_ERROR(decode_o1_segment(subs[l], *m, dst.subspan(size_t(sb), size_t(se - sb))));
    }
  }
  return {};
}

}  // namespace z4ai::detail
