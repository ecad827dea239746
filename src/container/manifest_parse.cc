#include "container/manifest_parse.h"

#include "container/limits.h"

namespace zt {

std::string Where::str() const {
  if (object.empty()) return std::string(label);
  std::string s = "object '" + std::string(object) + "'";
  if (!role.empty()) s += " component '" + std::string(role) + "'";
  return s;
}

const char* kind_name(Value::Kind k) {
  switch (k) {
    case Value::Kind::null: return "null";
    case Value::Kind::boolean: return "bool";
    case Value::Kind::uint: return "unsigned integer";
    case Value::Kind::nint: return "negative integer";
    case Value::Kind::float64: return "float";
    case Value::Kind::text: return "text string";
    case Value::Kind::bytes: return "byte string";
    case Value::Kind::array: return "array";
    case Value::Kind::map: return "map";
  }
  return "?";
}

namespace {

struct LegacyDType {
  const char* name;
  DType storage;
  LogicalType type;
};

// v1.1 §2.4 folded compound and fp8 types into dtype; v1.2 splits them.
constexpr LegacyDType kV11DTypes[] = {
    {"f8_e4m3", DType::u8, LogicalType::f8_e4m3fn},
    {"f8_e5m2", DType::u8, LogicalType::f8_e5m2},
    {"complex64", DType::f32, LogicalType::complex64},
    {"complex128", DType::f64, LogicalType::complex128},
};

Status parse_dtype(const std::string& name, bool legacy_v11, const Where& ctx, Component& c) {
  if (auto d = dtype_from_name(name)) {
    c.dtype = *d;
    return Status::Ok();
  }
  if (legacy_v11) {
    for (const auto& l : kV11DTypes) {
      if (name == l.name) {
        c.dtype = l.storage;
        c.type = l.type;
        c.type_name = logical_type_name(l.type);
        return Status::Ok();
      }
    }
  }
  return Status(ErrorCode::unknown_dtype, ctx.str() + ": dtype '" + name + "' is not one of the 13 storage types");
}

Result<Component> parse_component(const CborDoc& doc, uint32_t v, const Where& ctx, bool legacy_v11) {
  if (doc.at(v).kind != Value::Kind::map)
    return Status(ErrorCode::wrong_type, ctx.str() + ": must be a map, found " + kind_name(doc.at(v).kind));
  Component c;
  ZT_ASSIGN_OR_RETURN(uint32_t dtype, field(doc, v, "dtype", ctx, Value::Kind::text, true));
  ZT_RETURN_IF_ERROR(parse_dtype(std::string(doc.at(dtype).str()), legacy_v11, ctx, c));
  ZT_ASSIGN_OR_RETURN(uint32_t type, field(doc, v, "type", ctx, Value::Kind::text, false));
  if (type) {
    c.type_name = doc.at(type).str();
    // §2 "Readers that encounter an unrecognized type MAY fall back to
    // loading raw dtype elements": unknown names keep type = none.
    c.type = logical_type_from_name(c.type_name).value_or(LogicalType::none);
  }
  ZT_ASSIGN_OR_RETURN(uint32_t offset, field(doc, v, "offset", ctx, Value::Kind::uint, true));
  c.offset = doc.at(offset).u;
  ZT_ASSIGN_OR_RETURN(uint32_t length, field(doc, v, "length", ctx, Value::Kind::uint, true));
  c.length = doc.at(length).u;
  ZT_ASSIGN_OR_RETURN(uint32_t ulen, field(doc, v, "uncompressed_length", ctx, Value::Kind::uint, false));
  if (ulen) c.uncompressed_length = doc.at(ulen).u;
  ZT_ASSIGN_OR_RETURN(uint32_t enc, field(doc, v, "encoding", ctx, Value::Kind::text, false));
  c.encoding_text = enc ? std::string(doc.at(enc).str()) : "raw";
  c.encoding = encoding_from_name(c.encoding_text).value_or(Encoding::unknown);
  ZT_ASSIGN_OR_RETURN(uint32_t digest, field(doc, v, "digest", ctx, Value::Kind::text, false));
  if (digest) c.digest = doc.at(digest).str();
  return c;
}

Result<Object> parse_object(const CborDoc& doc, std::string name, uint32_t v, bool legacy_v11) {
  const Where ctx{"", name, ""};
  if (doc.at(v).kind != Value::Kind::map)
    return Status(ErrorCode::wrong_type, ctx.str() + ": must be a map, found " + kind_name(doc.at(v).kind));
  Object o;
  o.name = std::move(name);
  ZT_ASSIGN_OR_RETURN(uint32_t shape, field(doc, v, "shape", ctx, Value::Kind::array, true));
  ZT_ASSIGN_OR_RETURN(o.shape, parse_shape(doc, shape, ctx));
  ZT_ASSIGN_OR_RETURN(uint32_t format, field(doc, v, "format", ctx, Value::Kind::text, true));
  o.format = doc.at(format).str();
  ZT_ASSIGN_OR_RETURN(uint32_t attrs, field(doc, v, "attributes", ctx, Value::Kind::map, false));
  if (attrs) o.attributes = doc.to_value(attrs);
  ZT_ASSIGN_OR_RETURN(uint32_t comps, field(doc, v, "components", ctx, Value::Kind::map, true));
  o.components.reserve(doc.at(comps).u);
  for (uint32_t k = comps + 1, i = 0; i < doc.at(comps).u; ++i) {
    uint32_t cv = doc.at(k).next;
    if (doc.at(k).kind != Value::Kind::text)
      return Status(ErrorCode::wrong_type, ctx.str() + ": component role must be a text string");
    std::string role(doc.at(k).str());
    ZT_ASSIGN_OR_RETURN(Component c, parse_component(doc, cv, Where{"", name, role}, legacy_v11));
    o.components.emplace_back(std::move(role), std::move(c));  // roles are unique: duplicate keys are refused
    k = doc.at(cv).next;
  }
  return o;
}

}  // namespace

Result<uint32_t> field(const CborDoc& doc, uint32_t map, const char* key, const Where& ctx, Value::Kind kind,
                       bool required) {
  uint32_t v = doc.find(map, key);
  if (!v || (!required && doc.at(v).kind == Value::Kind::null)) {
    if (required) return Status(ErrorCode::missing_field, ctx.str() + ": required field '" + key + "' is missing");
    return uint32_t{0};
  }
  if (doc.at(v).kind != kind)
    return Status(ErrorCode::wrong_type, ctx.str() + ": field '" + key + "' must be a " + kind_name(kind) + ", found " +
                                             kind_name(doc.at(v).kind));
  return v;
}

Result<std::vector<uint64_t>> parse_shape(const CborDoc& doc, uint32_t array, const Where& ctx) {
  uint64_t rank = doc.at(array).u;
  if (rank > limits::kMaxRank) return Status(ErrorCode::limit_exceeded, ctx.str() + ": shape rank over kMaxRank");
  std::vector<uint64_t> shape;
  shape.reserve(rank);
  for (uint32_t d = array + 1, i = 0; i < rank; ++i, d = doc.at(d).next) {
    if (doc.at(d).kind != Value::Kind::uint)
      return Status(ErrorCode::wrong_type,
                    ctx.str() + ": shape entries must be unsigned integers, found " + kind_name(doc.at(d).kind));
    shape.push_back(doc.at(d).u);
  }
  return shape;
}

Result<ParsedManifest> parse_manifest_v1(const CborDoc& doc) {
  const Where ctx{"manifest", "", ""};
  if (doc.at(0).kind != Value::Kind::map)
    return Status(ErrorCode::wrong_type, "manifest: root must be a map, found " + std::string(kind_name(doc.at(0).kind)));
  ParsedManifest pm;
  Manifest& m = pm.manifest;
  ZT_ASSIGN_OR_RETURN(uint32_t version, field(doc, 0, "version", ctx, Value::Kind::text, true));
  m.version = doc.at(version).str();
  // Appendix: "Major version increments ... may change the container
  // structure"; minor ones only add optional fields, so any 1.x is read.
  if (m.version.rfind("1.", 0) != 0 && m.version != "1")
    return Status(ErrorCode::unsupported, "manifest: version '" + m.version + "' is not a 1.x version");
  bool legacy_v11 = m.version.rfind("1.0", 0) == 0 || m.version.rfind("1.1", 0) == 0;
  if (legacy_v11) pm.rules = ValidationRules{false, false};
  ZT_ASSIGN_OR_RETURN(uint32_t attrs, field(doc, 0, "attributes", ctx, Value::Kind::map, false));
  if (attrs) m.attributes = doc.to_value(attrs);
  ZT_ASSIGN_OR_RETURN(uint32_t objects, field(doc, 0, "objects", ctx, Value::Kind::map, true));
  m.objects.reserve(doc.at(objects).u);
  for (uint32_t k = objects + 1, i = 0; i < doc.at(objects).u; ++i) {
    uint32_t ov = doc.at(k).next;
    if (doc.at(k).kind != Value::Kind::text)
      return Status(ErrorCode::wrong_type, "manifest: object names must be text strings");
    ZT_ASSIGN_OR_RETURN(Object o, parse_object(doc, std::string(doc.at(k).str()), ov, legacy_v11));
    m.objects.push_back(std::move(o));
    k = doc.at(ov).next;
  }
  return pm;
}

}  // namespace zt
