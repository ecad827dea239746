// Parsing and size checks of PyPI z4ai 0.2.0 frames (layouts in
// legacy_format.h). Every stream's declared length is checked against its
// stored bytes and against the transform before anything is allocated.
#include <cstring>
#include <string>

#include "codec/common/byte_io.h"
#include "codec/entropy/entropy.h"
#include "codec/entropy/pypi_rans.h"
#include "codec/frame/frame_format.h"
#include "codec/pypi/legacy_format.h"
#include "z4ai/codec.h"

namespace z4ai::detail {
namespace {

using zt::ErrorCode;

// Blocked payloads (Z4AI zstd blocks, ZARA brotli blocks): u32 block size,
// u32 block count, count x u32 coded lengths, the blocks.
constexpr size_t kBlockHeaderBytes = 8;

struct Parser {
  std::string name;  // "PyPI z4ai 0.x Z4AI v1 frame"
  ByteReader r;

  zt::Status fail(ErrorCode code, const std::string& rule) const { return {code, name + ": " + rule}; }
  zt::Status truncated(const char* field) const {
    return fail(ErrorCode::corrupt_stream, std::string(field) + " runs past the end of the frame");
  }
  // u8 length + bytes (dtype strings), or u8 ndim + ndim u64 (shape).
  bool skip_string(std::span<const uint8_t>& s) {
    uint8_t n = 0;
    return r.u8(n) && r.bytes(n, s);
  }
  bool skip_shape() {
    uint8_t ndim = 0;
    std::span<const uint8_t> dims;
    return r.u8(ndim) && r.bytes(uint64_t(ndim) * 8, dims);
  }
};

bool is_magic(std::span<const uint8_t> b, const uint8_t* m) { return b.size() >= 4 && std::memcmp(b.data(), m, 4) == 0; }

zt::Result<LegacyFloat> float_layout(const Parser& p, std::span<const uint8_t> name_bytes) {
  const std::string name(name_bytes.begin(), name_bytes.end());
  if (name == "float32" || name == "fp32") return LegacyFloat{32, 8, 23};
  if (name == "float16" || name == "fp16") return LegacyFloat{16, 5, 10};
  if (name == "bfloat16" || name == "bf16") return LegacyFloat{16, 8, 7};
  return p.fail(ErrorCode::unsupported, "field split of unknown float layout '" + name + "'");
}

zt::Status check_blocks(const Parser& p, const LegacyStream& s, bool zstd_blocks) {
  ByteReader r(s.payload);
  uint32_t block = 0, n = 0;
  if (!r.u32(block) || !r.u32(n)) return p.truncated("block table");
  const uint64_t want = block == 0 ? 0 : (s.length + block - 1) / block;
  if (n != want || (s.length > 0 && block == 0))
    return p.fail(ErrorCode::corrupt_stream, std::to_string(n) + " blocks of " + std::to_string(block) +
                                                 " bytes cannot hold a stream of " + std::to_string(s.length));
  if (uint64_t(n) * 4 > r.remaining()) return p.truncated("block length table");
  std::span<const uint8_t> lens;
  r.bytes(uint64_t(n) * 4, lens);
  for (uint32_t i = 0; i < n; ++i) {
    std::span<const uint8_t> body;
    if (!r.bytes(load_u32(lens.data() + 4 * i), body)) return p.truncated("block");
    const uint64_t size = std::min<uint64_t>(block, s.length - uint64_t(i) * block);
    if (zstd_blocks) ZT_RETURN_IF_ERROR(check_zstd_produces(body, size));
  }
  if (r.remaining() != 0) return p.fail(ErrorCode::corrupt_stream, "bytes after the last block of a stream");
  return {};
}

// Methods each family writes (legacy_format.h) and the check each allows
// before decoding: a stored stream holds exactly its length, a zstd frame's
// headers must be able to produce it.
zt::Status check_stream(const Parser& p, LegacyKind kind, bool turbo, const LegacyStream& s) {
  if (s.length > kMaxFrameOriginalBytes)
    return p.fail(ErrorCode::limit_exceeded, "a stream declares " + std::to_string(s.length) + " bytes, over 1 TiB");
  const uint8_t last = turbo ? 1 : kind == LegacyKind::zara ? 4 : 5;
  if (s.method > last) return p.fail(ErrorCode::corrupt_stream, "unknown stream method " + std::to_string(s.method));
  if (s.method == 0 && s.payload.size() != s.length)
    return p.fail(ErrorCode::corrupt_stream, "a stored stream declares " + std::to_string(s.length) + " bytes, holds " +
                                                 std::to_string(s.payload.size()));
  if (s.method == 1) return check_zstd_produces(s.payload, s.length);
  if (s.method == 2 && kind == LegacyKind::z4ai) return check_blocks(p, s, true);
  if (s.method == 4 && kind == LegacyKind::zara) return check_blocks(p, s, false);
  if (s.method == 3) return check_legacy_rans_declared(0, s.payload, s.length);
  if (s.method == 4) return check_legacy_rans_declared(1, s.payload, s.length);
  if (s.method == 5) return check_legacy_rans1_declared(s.payload, s.length);
  return {};
}

zt::Status read_streams(Parser& p, LegacyKind kind, bool turbo, uint64_t n, std::vector<LegacyStream>& out) {
  for (uint64_t i = 0; i < n; ++i) {
    LegacyStream s;
    uint64_t coded = 0;
    if (!p.r.u8(s.method) || !p.r.u64(s.length) || !p.r.u64(coded)) return p.truncated("stream header");
    if (!p.r.bytes(coded, s.payload)) return p.truncated("stream payload");
    zt::Status st = check_stream(p, kind, turbo, s);
    if (!st.ok()) return {st.code(), "stream " + std::to_string(i) + ": " + st.message()};
    out.push_back(s);
  }
  return {};
}

zt::Status need_end(const Parser& p) {
  if (p.r.remaining() == 0) return {};
  return p.fail(ErrorCode::corrupt_stream, std::to_string(p.r.remaining()) + " bytes after the last stream");
}

zt::Status equal_planes(const Parser& p, const std::vector<LegacyStream>& s, uint32_t width) {
  if (width == 0 || s.size() != width)
    return p.fail(ErrorCode::corrupt_stream, std::to_string(s.size()) + " byte planes for width " +
                                                 std::to_string(width));
  for (const auto& plane : s)
    if (plane.length != s[0].length) return p.fail(ErrorCode::corrupt_stream, "byte planes differ in length");
  return {};
}

// sign: ceil(count/8) bytes; exponent: count; mantissa: whole bytes per
// element (fields) or count * mantissa_bits bits (packed fields).
zt::Status check_fields(const Parser& p, LegacyFrame& f) {
  if (f.streams.size() != 3) return p.fail(ErrorCode::corrupt_stream, "a field split needs 3 streams");
  const uint64_t n = f.count;
  const uint64_t mant = f.transform == kLegacyFields ? n * ((f.spec.mantissa_bits + 7) / 8)
                                                      : (n * f.spec.mantissa_bits + 7) / 8;
  if (f.streams[0].length != (n + 7) / 8 || f.streams[1].length != n || f.streams[2].length != mant)
    return p.fail(ErrorCode::corrupt_stream, "field streams of " + std::to_string(f.streams[0].length) + "/" +
                                                 std::to_string(f.streams[1].length) + "/" +
                                                 std::to_string(f.streams[2].length) + " bytes do not hold " +
                                                 std::to_string(n) + " elements");
  f.decoded_length = n * (f.spec.total_bits / 8);
  return {};
}

// Decoded length of the transform over f.streams, plus the tail.
zt::Status finish_transform(const Parser& p, LegacyFrame& f) {
  switch (f.transform) {
    case kLegacyOpaque:
      if (f.streams.size() > 1) return p.fail(ErrorCode::corrupt_stream, "an opaque frame has one stream");
      f.decoded_length = f.streams.empty() ? 0 : f.streams[0].length;
      break;
    case kLegacyPlanes:
      if (f.width <= 1 && f.streams.size() == 1) {
        f.decoded_length = f.streams[0].length;
        break;
      }
      ZT_RETURN_IF_ERROR(equal_planes(p, f.streams, f.width));
      f.decoded_length = f.streams[0].length * f.width;
      break;
    default:
      ZT_RETURN_IF_ERROR(check_fields(p, f));
  }
  f.decoded_length += f.tail.size();
  return need_end(p);
}

zt::Result<LegacyFrame> parse_container(std::span<const uint8_t> frame, bool zara) {
  Parser p{std::string("PyPI z4ai 0.x ") + (zara ? "ZARA" : "Z4AI") + " v1 frame", ByteReader(frame.subspan(5))};
  LegacyFrame f;
  f.kind = zara ? LegacyKind::zara : LegacyKind::z4ai;
  uint8_t flags = 0, width = 0, n_streams = 0;
  std::span<const uint8_t> np_dtype, spec;
  uint32_t tail_len = 0;
  if (!p.r.u8(flags) || !p.r.u8(f.transform) || !p.r.u8(width) || !p.r.u8(n_streams)) return p.truncated("header");
  f.width = width;
  if (zara) {
    if (!p.skip_string(spec) || !p.r.u64(f.count) || !p.skip_string(np_dtype)) return p.truncated("header");
  } else if (!p.skip_string(np_dtype) || !p.skip_string(spec)) {
    return p.truncated("header");
  }
  if (!p.skip_shape()) return p.truncated("shape");
  if (!p.r.u32(tail_len) || !p.r.bytes(tail_len, f.tail)) return p.truncated("tail");
  if (f.transform > (zara ? kLegacyPackedFields : kLegacyFields))
    return p.fail(ErrorCode::corrupt_stream, "unknown transform " + std::to_string(f.transform));
  ZT_RETURN_IF_ERROR(read_streams(p, f.kind, false, n_streams, f.streams));
  if (f.transform >= kLegacyFields) {
    ZT_ASSIGN_OR_RETURN(f.spec, float_layout(p, spec));
    // Z4AI v1 stores no count: the exponent stream has one byte per element.
    if (!zara && f.streams.size() == 3) f.count = f.streams[1].length;
    if (f.count > kMaxFrameOriginalBytes) return p.fail(ErrorCode::limit_exceeded, "element count over 1 TiB");
  }
  ZT_RETURN_IF_ERROR(finish_transform(p, f));
  return f;
}

// The nonzero values of a sparse frame: a ZRT1 frame of nnz * width bytes.
zt::Status parse_turbo(std::span<const uint8_t> values, LegacyFrame& f) {
  Parser p{"PyPI z4ai 0.x ZRT1 frame (sparse values)", ByteReader(values)};
  std::span<const uint8_t> magic;
  uint8_t version = 0, width = 0, n_streams = 0;
  uint64_t length = 0;
  if (!p.r.bytes(4, magic) || !p.r.u8(version) || !p.r.u8(width) || !p.r.u64(length) ||
      !p.r.u8(f.turbo_transform) || !p.r.u8(n_streams))
    return p.truncated("header");
  if (std::memcmp(magic.data(), kMagicTurbo, 4) != 0) return p.fail(ErrorCode::bad_magic, "magic is not 'ZRT1'");
  if (version != kTurboVersion) return p.fail(ErrorCode::unsupported, "version " + std::to_string(version));
  if (length != f.nnz * f.width)
    return p.fail(ErrorCode::length_mismatch, "holds " + std::to_string(length) + " bytes, the frame has " +
                                                  std::to_string(f.nnz) + " nonzero elements of " +
                                                  std::to_string(f.width) + " bytes");
  std::vector<LegacyStream> streams;
  ZT_RETURN_IF_ERROR(read_streams(p, LegacyKind::z4ai, true, n_streams, streams));
  ZT_RETURN_IF_ERROR(need_end(p));
  if (f.turbo_transform == kLegacyOpaque) {
    if (streams.size() != 1 || streams[0].length != length)
      return p.fail(ErrorCode::corrupt_stream, "one stream must hold all the values");
  } else if (f.turbo_transform == kLegacyPlanes) {
    if (width != f.width) return p.fail(ErrorCode::corrupt_stream, "plane width differs from the element width");
    ZT_RETURN_IF_ERROR(equal_planes(p, streams, width));
    if (streams[0].length * width != length) return p.fail(ErrorCode::corrupt_stream, "planes do not hold the values");
  } else {
    return p.fail(ErrorCode::corrupt_stream, "unknown transform " + std::to_string(f.turbo_transform));
  }
  f.streams.insert(f.streams.end(), streams.begin(), streams.end());
  return {};
}

// ZSP1 and ZPL1 share: u8 version, u8 width, u8 flags, u8 pad / index width,
// u64 count, then their own fields, u8 dtype_len, u8 ndim, dtype, shape, tail.
zt::Result<LegacyFrame> parse_sparse_or_palette(std::span<const uint8_t> frame, bool palette) {
  Parser p{std::string("PyPI z4ai 0.x ") + (palette ? "ZPL1 palette" : "ZSP1 sparse") + " frame",
           ByteReader(frame.subspan(4))};
  LegacyFrame f;
  f.kind = palette ? LegacyKind::palette : LegacyKind::sparse;
  uint8_t version = 0, width = 0, flags = 0, dtype_len = 0, ndim = 0;
  uint32_t tail_len = 0;
  std::span<const uint8_t> skip;
  if (!p.r.u8(version) || !p.r.u8(width) || !p.r.u8(flags) || !p.r.u8(f.index_width) || !p.r.u64(f.count))
    return p.truncated("header");
  if (palette ? !p.r.u32(f.k) : !p.r.u64(f.nnz)) return p.truncated("header");
  if (!p.r.u32(tail_len) || !p.r.u8(dtype_len) || !p.r.u8(ndim) || !p.r.bytes(dtype_len, skip) ||
      !p.r.bytes(uint64_t(ndim) * 8, skip) || !p.r.bytes(tail_len, f.tail))
    return p.truncated("header");
  if (version != (palette ? kPaletteVersion : kSparseVersion))
    return p.fail(ErrorCode::unsupported, "version " + std::to_string(version));
  f.width = width;
  const bool width_ok = width == 2 || width == 4 || width == 8 || (!palette && width == 1);
  if (!width_ok) return p.fail(ErrorCode::corrupt_stream, "element width " + std::to_string(width));
  if (f.count > kMaxFrameOriginalBytes / width) return p.fail(ErrorCode::limit_exceeded, "element count over 1 TiB");
  f.decoded_length = f.count * width + f.tail.size();
  if (f.count == 0) return f;  // PyPI decodes such a frame to its tail alone
  if (palette) {
    if (f.index_width != 1 && f.index_width != 2 && f.index_width != 4)
      return p.fail(ErrorCode::corrupt_stream, "index width " + std::to_string(f.index_width));
    if (f.k == 0) return p.fail(ErrorCode::corrupt_stream, "an empty codebook for nonempty data");
    uint32_t book_len = 0;
    LegacyStream book{1, uint64_t(f.k) * width, {}}, index{1, f.count * f.index_width, {}};
    if (!p.r.u32(book_len) || !p.r.bytes(book_len, book.payload)) return p.truncated("codebook");
    p.r.bytes(p.r.remaining(), index.payload);
    ZT_RETURN_IF_ERROR(check_zstd_produces(book.payload, book.length));
    ZT_RETURN_IF_ERROR(check_zstd_produces(index.payload, index.length));
    f.streams = {book, index};
    return f;
  }
  if (f.nnz > f.count)
    return p.fail(ErrorCode::corrupt_stream, std::to_string(f.nnz) + " nonzeros in " + std::to_string(f.count));
  uint64_t bitmap_len = 0;
  LegacyStream bitmap{1, (f.count + 7) / 8, {}};
  if (!p.r.u64(bitmap_len) || !p.r.bytes(bitmap_len, bitmap.payload)) return p.truncated("bitmap");
  ZT_RETURN_IF_ERROR(check_zstd_produces(bitmap.payload, bitmap.length));
  f.streams = {bitmap};
  std::span<const uint8_t> values;
  p.r.bytes(p.r.remaining(), values);
  if (f.nnz == 0) return f;
  ZT_RETURN_IF_ERROR(parse_turbo(values, f));
  return f;
}

}  // namespace

bool is_legacy_frame(std::span<const uint8_t> b) {
  if (b.size() >= 5 && (is_magic(b, kMagicZ4ai) || is_magic(b, kMagicZara))) return b[4] == kLegacyFrameVersion;
  return is_magic(b, kMagicSparse) || is_magic(b, kMagicPalette);
}

const char* legacy_layout_name(std::span<const uint8_t> b) {
  if (is_magic(b, kMagicSparse)) return "PyPI z4ai 0.x ZSP1 (sparse)";
  if (is_magic(b, kMagicPalette)) return "PyPI z4ai 0.x ZPL1 (palette)";
  if (is_magic(b, kMagicZara)) return "PyPI z4ai 0.x ZARA v1";
  return "PyPI z4ai 0.x Z4AI v1";
}

zt::Result<LegacyFrame> parse_legacy(std::span<const uint8_t> frame) {
  if (is_magic(frame, kMagicSparse) || is_magic(frame, kMagicPalette))
    return parse_sparse_or_palette(frame, is_magic(frame, kMagicPalette));
  if (!is_legacy_frame(frame))
    return zt::Status(ErrorCode::bad_magic, "not a PyPI z4ai 0.x frame (Z4AI/ZARA v1, ZSP1, ZPL1)");
  ZT_ASSIGN_OR_RETURN(LegacyFrame f, parse_container(frame, is_magic(frame, kMagicZara)));
  if (f.decoded_length > kMaxFrameOriginalBytes)
    return zt::Status(ErrorCode::limit_exceeded, std::string(legacy_layout_name(frame)) + " frame: declares " +
                                                     std::to_string(f.decoded_length) + " bytes, over 1 TiB");
  return f;
}

zt::Result<uint64_t> legacy_decoded_length(std::span<const uint8_t> frame) {
  ZT_ASSIGN_OR_RETURN(LegacyFrame f, parse_legacy(frame));
  return f.decoded_length;
}

}  // namespace z4ai::detail
