// v0.1 files ("ZTEN0001", a CBOR array of per-tensor maps) in v1.2 terms.
#include "container/manifest_parse.h"

namespace zt {
namespace {

// v0.1 §5.1 spelled dtypes out in full.
struct V01DType {
  const char* name;
  DType dtype;
};
constexpr V01DType kV01DTypes[] = {
    {"float64", DType::f64}, {"float32", DType::f32}, {"float16", DType::f16}, {"bfloat16", DType::bf16},
    {"int64", DType::i64},   {"int32", DType::i32},   {"int16", DType::i16},   {"int8", DType::i8},
    {"uint64", DType::u64},  {"uint32", DType::u32},  {"uint16", DType::u16},  {"uint8", DType::u8},
    {"bool", DType::boolean},
};

Result<Object> parse_entry(const Value& v, size_t index) {
  std::string ctx = "v0.1 entry " + std::to_string(index);
  if (!v.is_map()) return Status(ErrorCode::wrong_type, ctx + ": must be a map");
  Object o;
  ZT_ASSIGN_OR_RETURN(const Value* name, field(v, "name", ctx, Value::Kind::text, true));
  o.name = name->as_string();
  ctx = "object '" + o.name + "'";
  ZT_ASSIGN_OR_RETURN(const Value* shape, field(v, "shape", ctx, Value::Kind::array, true));
  ZT_ASSIGN_OR_RETURN(o.shape, parse_shape(*shape, ctx));
  Component c;
  ZT_ASSIGN_OR_RETURN(const Value* dtype, field(v, "dtype", ctx, Value::Kind::text, true));
  bool known = false;
  for (const auto& d : kV01DTypes) {
    if (dtype->as_string() == d.name) {
      c.dtype = d.dtype;
      known = true;
    }
  }
  if (!known)
    return Status(ErrorCode::unknown_dtype, ctx + ": v0.1 dtype '" + dtype->as_string() + "' is not known");
  ZT_ASSIGN_OR_RETURN(const Value* offset, field(v, "offset", ctx, Value::Kind::uint, true));
  c.offset = offset->as_uint();
  ZT_ASSIGN_OR_RETURN(const Value* size, field(v, "size", ctx, Value::Kind::uint, true));
  c.length = size->as_uint();
  ZT_ASSIGN_OR_RETURN(const Value* enc, field(v, "encoding", ctx, Value::Kind::text, false));
  c.encoding_text = enc ? enc->as_string() : "raw";
  c.encoding = encoding_from_name(c.encoding_text).value_or(Encoding::unknown);
  if (c.encoding == Encoding::z4ai) c.encoding = Encoding::unknown;  // not a v0.1 encoding
  ZT_ASSIGN_OR_RETURN(const Value* endian, field(v, "data_endianness", ctx, Value::Kind::text, false));
  if (endian) {
    if (endian->as_string() == "big") {
      c.big_endian = true;
    } else if (endian->as_string() != "little") {
      return Status(ErrorCode::wrong_type, ctx + ": data_endianness must be \"little\" or \"big\"");
    }
  }
  ZT_ASSIGN_OR_RETURN(const Value* checksum, field(v, "checksum", ctx, Value::Kind::text, false));
  if (checksum) c.digest = checksum->as_string();
  ZT_ASSIGN_OR_RETURN(const Value* layout, field(v, "layout", ctx, Value::Kind::text, false));
  if (!layout || layout->as_string() == "dense") {
    o.format = "dense";
  } else {
    // v0.1 left sparse layouts to "additional fields"; keep the blob readable
    // under a format name of its own and the fields as attributes.
    ZT_ASSIGN_OR_RETURN(const Value* sf, field(v, "sparse_format", ctx, Value::Kind::text, false));
    o.format = "v0.1_" + layout->as_string() + (sf ? "_" + sf->as_string() : "");
  }
  // Unknown and layout-specific keys stay visible as object attributes.
  Value attrs = Value::map();
  static const char* kKnown[] = {"name", "shape", "dtype", "offset", "size", "encoding", "data_endianness", "checksum"};
  for (const auto& [k, val] : v.as_map()) {
    bool skip = false;
    for (const char* known_key : kKnown) skip = skip || (k.is_text() && k.as_string() == known_key);
    if (!skip) attrs.mutable_map().emplace_back(k, val);
  }
  if (!attrs.as_map().empty()) o.attributes = attrs;
  o.components.emplace_back("data", std::move(c));
  return o;
}

}  // namespace

Result<ParsedManifest> parse_manifest_v01(const Value& root) {
  if (!root.is_array()) return Status(ErrorCode::wrong_type, "v0.1 manifest: root must be an array");
  ParsedManifest pm;
  pm.manifest.version = "0.1.0";
  pm.rules = ValidationRules{false, false};
  size_t i = 0;
  for (const auto& entry : root.as_array()) {
    ZT_ASSIGN_OR_RETURN(Object o, parse_entry(entry, i++));
    pm.manifest.objects.push_back(std::move(o));
  }
  return pm;
}

}  // namespace zt
