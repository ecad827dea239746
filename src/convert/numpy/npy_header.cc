// .npy prelude (magic, version, header length) and numpy dtype strings.
#include <cstring>

#include "common/checked_math.h"
#include "convert/numpy/npy_header.h"

namespace zt::npy {
namespace {

struct Kind {
  const char* code;  // descr without the byte-order character
  DType dtype;
  LogicalType type;
  uint64_t item_bytes;
  uint64_t swap_width;
};

constexpr Kind kKinds[] = {
    {"b1", DType::boolean, LogicalType::none, 1, 1},
    {"i1", DType::i8, LogicalType::none, 1, 1},
    {"u1", DType::u8, LogicalType::none, 1, 1},
    {"i2", DType::i16, LogicalType::none, 2, 2},
    {"u2", DType::u16, LogicalType::none, 2, 2},
    {"i4", DType::i32, LogicalType::none, 4, 4},
    {"u4", DType::u32, LogicalType::none, 4, 4},
    {"i8", DType::i64, LogicalType::none, 8, 8},
    {"u8", DType::u64, LogicalType::none, 8, 8},
    {"f2", DType::f16, LogicalType::none, 2, 2},
    {"f4", DType::f32, LogicalType::none, 4, 4},
    {"f8", DType::f64, LogicalType::none, 8, 8},
    {"c8", DType::f32, LogicalType::complex64, 8, 4},
    {"c16", DType::f64, LogicalType::complex128, 16, 8},
};

// Why a dtype numpy can save is refused, by its kind character.
const char* refusal(char kind) {
  switch (kind) {
    case 'O': return "object arrays hold pickled Python objects and are refused";
    case 'V': return "void/opaque dtype carries no element type (e.g. ml_dtypes bfloat16 saved by np.save)";
    case 'U': case 'S': case 'a': return "string dtypes are not tensors";
    case 'M': case 'm': return "datetime dtypes are not supported";
    default: return "dtype is not supported";
  }
}

Status map_dtype(const std::string& what, Header* h) {
  const std::string& d = h->descr;
  if (d.size() < 2) return Status(ErrorCode::malformed_manifest, what + ": npy descr '" + d + "' is too short");
  const char order = d[0];
  const std::string_view code = std::string_view(d).substr(1);
  for (const auto& k : kKinds) {
    if (code != k.code) continue;
    // numpy writes '|' for one-byte types and '<' / '>' for wider ones.
    const bool ok = k.item_bytes == 1 ? (order == '|' || order == '<' || order == '>') : (order == '<' || order == '>');
    if (!ok)
      return Status(ErrorCode::unsupported, what + ": npy descr '" + d + "' has byte order '" + std::string(1, order) +
                                                "' (expected '<' or '>')");
    h->dtype = k.dtype;
    h->type = k.type;
    h->item_bytes = k.item_bytes;
    h->swap_width = k.swap_width;
    h->big_endian = order == '>' && k.swap_width > 1;
    return Status::Ok();
  }
  return Status(ErrorCode::unsupported, what + ": npy dtype '" + d + "': " + refusal(code[0]));
}

}  // namespace

Result<Header> parse_header(std::span<const uint8_t> bytes, const std::string& what, Header* literal) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return Status(ErrorCode::bad_magic, what + ": not a .npy array (no \\x93NUMPY magic)");
  const uint8_t major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3 || minor != 0)
    return Status(ErrorCode::unsupported, what + ": npy format version " + std::to_string(major) + "." +
                                              std::to_string(minor) + " is not supported (1.0, 2.0, 3.0)");
  uint64_t len = 0, prelude = 0;
  if (major == 1) {
    len = bytes[8] | (bytes[9] << 8);
    prelude = 10;
  } else {
    if (bytes.size() < 12) return Status(ErrorCode::malformed_manifest, what + ": npy prelude is truncated");
    len = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (static_cast<uint64_t>(bytes[11]) << 24);
    prelude = 12;
  }
  if (len > kMaxHeaderBytes)
    return Status(ErrorCode::limit_exceeded, what + ": npy header of " + std::to_string(len) +
                                                 " bytes exceeds numpy's limit of " + std::to_string(kMaxHeaderBytes));
  if (len > bytes.size() - prelude)
    return Status(ErrorCode::malformed_manifest, what + ": npy header length " + std::to_string(len) +
                                                     " runs past the end of the data");
  Header h;
  std::string_view text(reinterpret_cast<const char*>(bytes.data() + prelude), len);
  ZT_RETURN_IF_ERROR(parse_literal(text, what, &h));
  if (literal) *literal = h;
  ZT_RETURN_IF_ERROR(map_dtype(what, &h));
  auto n = checked_product(h.shape);
  auto b = n ? checked_mul(*n, h.item_bytes) : std::nullopt;
  if (!b) return Status(ErrorCode::shape_overflow, what + ": npy shape times the element size overflows 64 bits");
  h.data_offset = prelude + len;
  h.data_bytes = *b;
  return h;
}

}  // namespace zt::npy
