// GGUF metadata key/values -> zt::Value attributes. Every length and count
// is checked against the bytes that remain before anything is allocated.
#include <string>
#include <unordered_set>

#include "convert/gguf/gguf_file.h"
#include "convert/gguf/gguf_limits.h"

namespace zt::gguf {
namespace {

enum ValueType : uint32_t {
  kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6,
  kBool = 7, kString = 8, kArray = 9, kU64 = 10, kI64 = 11, kF64 = 12,
};

// Metadata arrays become one zt::Value per element (~100 bytes each); this
// caps the total so a small file cannot claim gigabytes of values. Real
// tokenizers hold well under a million elements.
constexpr uint64_t kMaxMetadataElements = uint64_t{1} << 23;

// Bytes the smallest element of `type` occupies, 0 for unknown types.
uint64_t min_bytes(uint32_t type) {
  switch (type) {
    case kU8: case kI8: case kBool: return 1;
    case kU16: case kI16: return 2;
    case kU32: case kI32: case kF32: return 4;
    case kU64: case kI64: case kF64: return 8;
    case kString: return kMinStringBytes;
    case kArray: return kMinArrayBytes;
    default: return 0;
  }
}

struct KvReader {
  Cursor& cur;
  std::string key;  // for messages
  uint64_t elements = 0;

  Status fail(ErrorCode code, const std::string& rule) const {
    return Status(code, "gguf metadata key " + quoted(key) + ": " + rule);
  }
  Status truncated(const char* what) const {
    return fail(ErrorCode::malformed_manifest, std::string(what) + " runs past the end of the file (offset " +
                                                   std::to_string(cur.pos()) + ")");
  }

  template <class T>
  Status scalar(T* v, const char* what) {
    return cur.read(v) ? Status::Ok() : truncated(what);
  }

  Status value(uint32_t type, int depth, Value* out) {
    switch (type) {
      case kU8: { uint8_t v = 0; ZT_RETURN_IF_ERROR(scalar(&v, "u8 value")); *out = Value::uint(v); return Status::Ok(); }
      case kI8: { int8_t v = 0; ZT_RETURN_IF_ERROR(scalar(&v, "i8 value")); *out = Value::integer(v); return Status::Ok(); }
      case kU16: { uint16_t v = 0; ZT_RETURN_IF_ERROR(scalar(&v, "u16 value")); *out = Value::uint(v); return Status::Ok(); }
      case kI16: { int16_t v = 0; ZT_RETURN_IF_ERROR(scalar(&v, "i16 value")); *out = Value::integer(v); return Status::Ok(); }
      case kU32: { uint32_t v = 0; ZT_RETURN_IF_ERROR(scalar(&v, "u32 value")); *out = Value::uint(v); return Status::Ok(); }
      case kI32: { int32_t v = 0; ZT_RETURN_IF_ERROR(scalar(&v, "i32 value")); *out = Value::integer(v); return Status::Ok(); }
      case kU64: { uint64_t v = 0; ZT_RETURN_IF_ERROR(scalar(&v, "u64 value")); *out = Value::uint(v); return Status::Ok(); }
      case kI64: { int64_t v = 0; ZT_RETURN_IF_ERROR(scalar(&v, "i64 value")); *out = Value::integer(v); return Status::Ok(); }
      case kF32: { float v = 0; ZT_RETURN_IF_ERROR(scalar(&v, "f32 value")); *out = Value::float64(v); return Status::Ok(); }
      case kF64: { double v = 0; ZT_RETURN_IF_ERROR(scalar(&v, "f64 value")); *out = Value::float64(v); return Status::Ok(); }
      case kBool: {
        uint8_t v = 0;
        ZT_RETURN_IF_ERROR(scalar(&v, "bool value"));
        if (v > 1) return fail(ErrorCode::malformed_manifest, "bool value is " + std::to_string(v) + ", not 0 or 1");
        *out = Value::boolean(v != 0);
        return Status::Ok();
      }
      case kString: {
        std::string s;
        ZT_RETURN_IF_ERROR(read_string(cur, &s, ("string value of key " + quoted(key)).c_str()));
        // CBOR text must be UTF-8; anything else is kept byte for byte.
        *out = valid_utf8(s) ? Value::text(std::move(s)) : Value::bytes(std::move(s));
        return Status::Ok();
      }
      case kArray: return array(depth + 1, out);
      default:
        return fail(ErrorCode::malformed_manifest, "unknown value type " + std::to_string(type));
    }
  }

  Status array(int depth, Value* out) {
    if (depth > kMaxArrayDepth)
      return fail(ErrorCode::limit_exceeded, "arrays nest deeper than " + std::to_string(kMaxArrayDepth) + " levels");
    uint32_t type = 0;
    uint64_t count = 0;
    ZT_RETURN_IF_ERROR(scalar(&type, "array element type"));
    ZT_RETURN_IF_ERROR(scalar(&count, "array length"));
    const uint64_t width = min_bytes(type);
    if (width == 0) return fail(ErrorCode::malformed_manifest, "unknown array element type " + std::to_string(type));
    if (count > cur.remaining() / width)
      return fail(ErrorCode::malformed_manifest, "array claims " + std::to_string(count) + " elements but only " +
                                                     std::to_string(cur.remaining()) + " bytes remain");
    elements += count;
    if (elements > kMaxMetadataElements)
      return fail(ErrorCode::limit_exceeded, "metadata arrays hold more than " +
                                                 std::to_string(kMaxMetadataElements) + " elements in total");
    Value::Array items;
    items.reserve(count);
    for (uint64_t i = 0; i < count; ++i) {
      Value v;
      ZT_RETURN_IF_ERROR(value(type, depth, &v));
      items.push_back(std::move(v));
    }
    *out = Value::array(std::move(items));
    return Status::Ok();
  }
};

}  // namespace

Status read_kvs(Cursor& cur, uint64_t kv_count, File* file) {
  if (kv_count > cur.remaining() / kMinKvBytes)
    return Status(ErrorCode::malformed_manifest, "gguf header claims " + std::to_string(kv_count) +
                                                     " metadata key/values but only " + std::to_string(cur.remaining()) +
                                                     " bytes remain");
  std::unordered_set<std::string> seen;
  KvReader r{cur, {}};
  for (uint64_t i = 0; i < kv_count; ++i) {
    std::string key;
    ZT_RETURN_IF_ERROR(read_string(cur, &key, ("metadata key #" + std::to_string(i)).c_str()));
    if (!valid_utf8(key))
      return Status(ErrorCode::malformed_manifest, "gguf metadata key #" + std::to_string(i) + " is not valid UTF-8");
    if (!seen.insert(key).second)
      return Status(ErrorCode::invalid_structure, "gguf metadata key " + quoted(key) + " appears more than once");
    r.key = key;
    uint32_t type = 0;
    ZT_RETURN_IF_ERROR(r.scalar(&type, "value type"));
    Value v;
    ZT_RETURN_IF_ERROR(r.value(type, 0, &v));
    if (key == "general.alignment") {
      // ggml: the alignment is a u32, non-zero and a power of two.
      if (type != kU32) return r.fail(ErrorCode::wrong_type, "must be a u32, found value type " + std::to_string(type));
      const uint64_t a = v.as_uint();
      if (a == 0 || (a & (a - 1)) != 0)
        return r.fail(ErrorCode::invalid_structure, "alignment " + std::to_string(a) + " is not a non-zero power of two");
      file->alignment = a;
    }
    file->attributes.set(std::move(key), std::move(v));
  }
  return Status::Ok();
}

Status read_string(Cursor& cur, std::string* out, const char* what) {
  uint64_t n = 0;
  if (!cur.read(&n))
    return Status(ErrorCode::malformed_manifest, std::string("gguf ") + what + ": length runs past the end of the file");
  std::string_view s;
  if (!cur.take(n, &s))
    return Status(ErrorCode::malformed_manifest, std::string("gguf ") + what + ": length " + std::to_string(n) +
                                                     " exceeds the " + std::to_string(cur.remaining()) +
                                                     " bytes that remain");
  out->assign(s);
  return Status::Ok();
}

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<uint8_t>(s[i]);
    size_t n;
    uint32_t cp;
    if (c < 0x80) { ++i; continue; }
    if ((c & 0xE0) == 0xC0) { n = 1; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { n = 2; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { n = 3; cp = c & 0x07; }
    else return false;
    if (n >= s.size() - i) return false;  // continuation bytes missing
    for (size_t k = 1; k <= n; ++k) {
      const auto cc = static_cast<uint8_t>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are invalid.
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n + 1;
  }
  return true;
}

std::string quoted(std::string_view s) {
  std::string r = "'";
  // Names come from hostile files: keep messages printable and short.
  for (size_t i = 0; i < s.size() && i < 200; ++i) {
    const char c = s[i];
    r += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  }
  if (s.size() > 200) r += "...";
  return r + "'";
}

}  // namespace zt::gguf
