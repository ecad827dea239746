// Decoding of a parsed PyPI z4ai 0.2.0 frame (legacy_parse.cc checked every
// length): stream coders, then the inverse transform, then the tail.
#include <cstring>
#include <string>
#include <vector>

#include "codec/common/byte_io.h"
#include "codec/entropy/entropy.h"
#include "codec/entropy/pypi_rans.h"
#include "codec/pypi/legacy_format.h"
#include "codec/transform/transforms.h"

namespace z4ai::detail {
namespace {

zt::Status corrupt(const std::string& what) { return {zt::ErrorCode::corrupt_stream, "PyPI z4ai 0.x frame: " + what}; }

// Z4AI zstd blocks / ZARA brotli blocks; the table was checked by the parser.
zt::Status decode_blocks(std::span<const uint8_t> in, std::span<uint8_t> out, bool zstd) {
  const uint32_t block = load_u32(in.data()), n = load_u32(in.data() + 4);
  size_t at = 8 + size_t(n) * 4;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t len = load_u32(in.data() + 8 + 4 * size_t(i));
    const size_t begin = size_t(i) * block;
    std::span<uint8_t> dst = out.subspan(begin, std::min<size_t>(block, out.size() - begin));
    zt::Status s = zstd ? decode_zstd(in.subspan(at, len), dst) : decode_brotli(in.subspan(at, len), dst);
    if (!s.ok()) return {s.code(), "block " + std::to_string(i) + ": " + s.message()};
    at += len;
  }
  return {};
}

zt::Status decode_stream(LegacyKind kind, const LegacyStream& s, std::span<uint8_t> out) {
  const bool zara = kind == LegacyKind::zara;
  switch (s.method) {
    case 0:
      if (!out.empty()) std::memcpy(out.data(), s.payload.data(), out.size());
      return {};
    case 1: return decode_zstd(s.payload, out);
    case 2: return zara ? decode_brotli(s.payload, out) : decode_blocks(s.payload, out, true);
    case 3: return decode_legacy_rans0(s.payload, out);
    case 4: return zara ? decode_blocks(s.payload, out, false) : decode_legacy_rans_adaptive(s.payload, out);
    default: return decode_legacy_rans1(s.payload, out);
  }
}

zt::Result<std::vector<std::vector<uint8_t>>> decode_all(LegacyKind kind, std::span<const LegacyStream> streams) {
  std::vector<std::vector<uint8_t>> out(streams.size());
  for (size_t i = 0; i < streams.size(); ++i) {
    out[i].resize(size_t(streams[i].length));
    zt::Status s = decode_stream(kind, streams[i], out[i]);
    if (!s.ok()) return zt::Status(s.code(), "stream " + std::to_string(i) + ": " + s.message());
  }
  return out;
}

void join(const std::vector<std::vector<uint8_t>>& planes, uint32_t width, uint8_t* dst) {
  std::vector<const uint8_t*> ptrs;
  for (const auto& p : planes) ptrs.push_back(p.data());
  join_planes(ptrs.data(), planes[0].size(), width, dst);
}

// Up to 23 mantissa bits of element i from an MSB-first bit stream.
uint32_t packed_bits(const std::vector<uint8_t>& s, uint64_t i, uint32_t bits) {
  const uint64_t pos = i * bits;
  uint32_t window = 0;
  for (size_t b = 0; b < 4; ++b) {
    const uint64_t at = pos / 8 + b;
    window = window << 8 | (at < s.size() ? s[size_t(at)] : 0);
  }
  return (window >> (32 - pos % 8 - bits)) & ((1u << bits) - 1);
}

// sign bit (MSB-first packed) | exponent byte | mantissa, per element; wider
// values are cut to the element width as PyPI's integer arithmetic does.
void merge_fields(const LegacyFrame& f, const std::vector<std::vector<uint8_t>>& s, uint8_t* dst) {
  const LegacyFloat& fl = f.spec;
  const uint32_t width = fl.total_bits / 8, mbytes = (fl.mantissa_bits + 7) / 8;
  const uint64_t n = f.count;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t u = uint64_t((s[0][i / 8] >> (7 - i % 8)) & 1) << (fl.total_bits - 1);
    u |= uint64_t(s[1][i]) << fl.mantissa_bits;
    if (f.transform == kLegacyPackedFields) {
      u |= packed_bits(s[2], i, fl.mantissa_bits);
    } else {
      for (uint32_t k = 0; k < mbytes; ++k) u |= uint64_t(s[2][k * n + i]) << (8 * k);
    }
    for (uint32_t b = 0; b < width; ++b) dst[i * width + b] = uint8_t(u >> (8 * b));
  }
}

zt::Status decode_container(const LegacyFrame& f, std::span<uint8_t> out) {
  const size_t body = out.size() - f.tail.size();
  const bool one_stream = f.transform == kLegacyOpaque || (f.transform == kLegacyPlanes && f.streams.size() == 1 &&
                                                           f.width <= 1);
  if (one_stream) return f.streams.empty() ? zt::Status() : decode_stream(f.kind, f.streams[0], out.first(body));
  ZT_ASSIGN_OR_RETURN(auto planes, decode_all(f.kind, f.streams));
  if (f.transform == kLegacyPlanes) {
    join(planes, f.width, out.data());
  } else {
    merge_fields(f, planes, out.data());
  }
  return {};
}

zt::Status decode_sparse(const LegacyFrame& f, std::span<uint8_t> out) {
  if (f.count == 0) return {};
  std::vector<uint8_t> bitmap(size_t(f.streams[0].length));
  ZT_RETURN_IF_ERROR(decode_stream(LegacyKind::z4ai, f.streams[0], bitmap));
  uint64_t set = 0;
  for (uint64_t i = 0; i < f.count; ++i) set += (bitmap[i / 8] >> (7 - i % 8)) & 1;
  if (set != f.nnz)
    return corrupt("sparse bitmap marks " + std::to_string(set) + " nonzeros, the header " + std::to_string(f.nnz));
  std::vector<uint8_t> values(size_t(f.nnz * f.width));
  if (f.nnz > 0) {
    std::span<const LegacyStream> vs(f.streams.data() + 1, f.streams.size() - 1);
    if (f.turbo_transform == kLegacyOpaque) {
      ZT_RETURN_IF_ERROR(decode_stream(LegacyKind::z4ai, vs[0], values));
    } else {
      ZT_ASSIGN_OR_RETURN(auto planes, decode_all(LegacyKind::z4ai, vs));
      join(planes, f.width, values.data());
    }
  }
  const uint8_t* v = values.data();
  for (uint64_t i = 0; i < f.count; ++i) {
    uint8_t* dst = out.data() + i * f.width;
    if ((bitmap[i / 8] >> (7 - i % 8)) & 1) {
      std::memcpy(dst, v, f.width);
      v += f.width;
    } else {
      std::memset(dst, 0, f.width);
    }
  }
  return {};
}

zt::Status decode_palette(const LegacyFrame& f, std::span<uint8_t> out) {
  if (f.count == 0) return {};
  std::vector<uint8_t> book(size_t(f.streams[0].length)), index(size_t(f.streams[1].length));
  ZT_RETURN_IF_ERROR(decode_stream(LegacyKind::z4ai, f.streams[0], book));
  ZT_RETURN_IF_ERROR(decode_stream(LegacyKind::z4ai, f.streams[1], index));
  for (uint64_t i = 0; i < f.count; ++i) {
    uint32_t idx = 0;
    for (uint32_t b = 0; b < f.index_width; ++b) idx |= uint32_t(index[i * f.index_width + b]) << (8 * b);
    if (idx >= f.k)
      return corrupt("palette index " + std::to_string(idx) + " is past the " + std::to_string(f.k) + " values");
    std::memcpy(out.data() + i * f.width, book.data() + size_t(idx) * f.width, f.width);
  }
  return {};
}

}  // namespace

zt::Status decode_legacy_into(std::span<const uint8_t> frame, std::span<uint8_t> out) {
  ZT_ASSIGN_OR_RETURN(LegacyFrame f, parse_legacy(frame));
  if (out.size() != f.decoded_length)
    return {zt::ErrorCode::length_mismatch, std::string(legacy_layout_name(frame)) + " frame: output buffer has " +
                                                std::to_string(out.size()) + " bytes, frame decodes to " +
                                                std::to_string(f.decoded_length)};
  zt::Status s = f.kind == LegacyKind::sparse    ? decode_sparse(f, out)
                 : f.kind == LegacyKind::palette ? decode_palette(f, out)
                                                 : decode_container(f, out);
  if (!s.ok()) return {s.code(), std::string(legacy_layout_name(frame)) + " frame: " + s.message()};
  if (!f.tail.empty()) std::memcpy(out.data() + out.size() - f.tail.size(), f.tail.data(), f.tail.size());
  return {};
}

}  // namespace z4ai::detail
