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

Result<Object> parse_entry(const CborDoc& doc, uint32_t v, size_t index) {
  const std::string entry = "v0.1 entry " + std::to_string(index);
  if (doc.at(v).kind != Value::Kind::map) return Status(ErrorCode::wrong_type, entry + ": must be a map");
  Object o;
  ZT_ASSIGN_OR_RETURN(uint32_t name, field(doc, v, "name", Where{entry, "", ""}, Value::Kind::text, true));
  o.name = doc.at(name).str();
  const Where ctx{"", o.name, ""};
  ZT_ASSIGN_OR_RETURN(uint32_t shape, field(doc, v, "shape", ctx, Value::Kind::array, true));
  ZT_ASSIGN_OR_RETURN(o.shape, parse_shape(doc, shape, ctx));
  Component c;
  ZT_ASSIGN_OR_RETURN(uint32_t dtype, field(doc, v, "dtype", ctx, Value::Kind::text, true));
  bool known = false;
  for (const auto& d : kV01DTypes) {
    if (doc.at(dtype).str() == d.name) {
      c.dtype = d.dtype;
      known = true;
    }
  }
  if (!known)
    return Status(ErrorCode::unknown_dtype, ctx.str() + ": v0.1 dtype '" + std::string(doc.at(dtype).str()) + "' is not known");
  ZT_ASSIGN_OR_RETURN(uint32_t offset, field(doc, v, "offset", ctx, Value::Kind::uint, true));
  c.offset = doc.at(offset).u;
  ZT_ASSIGN_OR_RETURN(uint32_t size, field(doc, v, "size", ctx, Value::Kind::uint, true));
  c.length = doc.at(size).u;
  ZT_ASSIGN_OR_RETURN(uint32_t enc, field(doc, v, "encoding", ctx, Value::Kind::text, false));
  c.encoding_text = enc ? std::string(doc.at(enc).str()) : "raw";
  c.encoding = encoding_from_name(c.encoding_text).value_or(Encoding::unknown);
  if (c.encoding == Encoding::z4ai) c.encoding = Encoding::unknown;  // not a v0.1 encoding
  ZT_ASSIGN_OR_RETURN(uint32_t endian, field(doc, v, "data_endianness", ctx, Value::Kind::text, false));
  if (endian) {
    if (doc.at(endian).str() == "big") {
      c.big_endian = true;
    } else if (doc.at(endian).str() != "little") {
      return Status(ErrorCode::wrong_type, ctx.str() + ": data_endianness must be \"little\" or \"big\"");
    }
  }
  ZT_ASSIGN_OR_RETURN(uint32_t checksum, field(doc, v, "checksum", ctx, Value::Kind::text, false));
  if (checksum) c.digest = doc.at(checksum).str();
  ZT_ASSIGN_OR_RETURN(uint32_t layout, field(doc, v, "layout", ctx, Value::Kind::text, false));
  if (!layout || doc.at(layout).str() == "dense") {
    o.format = "dense";
  } else {
    // v0.1 left sparse layouts to "additional fields"; keep the blob readable
    // under a format name of its own and the fields as attributes.
    ZT_ASSIGN_OR_RETURN(uint32_t sf, field(doc, v, "sparse_format", ctx, Value::Kind::text, false));
    o.format = "v0.1_" + std::string(doc.at(layout).str()) + (sf ? "_" + std::string(doc.at(sf).str()) : "");
  }
  // Unknown and layout-specific keys stay visible as object attributes.
  static const char* kKnown[] = {"name", "shape", "dtype", "offset", "size", "encoding", "data_endianness", "checksum"};
  Value attrs = Value::map();
  for (uint32_t k = v + 1, i = 0; i < doc.at(v).u; ++i) {
    uint32_t val = doc.at(k).next;
    bool skip = false;
    for (const char* known_key : kKnown) skip = skip || (doc.at(k).kind == Value::Kind::text && doc.at(k).str() == known_key);
    if (!skip) attrs.mutable_map().emplace_back(doc.to_value(k), doc.to_value(val));
    k = doc.at(val).next;
  }
  if (!attrs.as_map().empty()) o.attributes = attrs;
  o.components.emplace_back("data", std::move(c));
  return o;
}

}  // namespace

Result<ParsedManifest> parse_manifest_v01(const CborDoc& doc) {
  if (doc.at(0).kind != Value::Kind::array) return Status(ErrorCode::wrong_type, "v0.1 manifest: root must be an array");
  ParsedManifest pm;
  pm.manifest.version = "0.1.0";
  pm.rules = ValidationRules{false, false};
  for (uint32_t e = 1, i = 0; i < doc.at(0).u; ++i, e = doc.at(e).next) {
    ZT_ASSIGN_OR_RETURN(Object o, parse_entry(doc, e, i));
    pm.manifest.objects.push_back(std::move(o));
  }
  return pm;
}

}  // namespace zt
