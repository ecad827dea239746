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

Status parse_dtype(std::string_view name, bool legacy_v11, const Where& ctx, Component& c) {
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
  return Status(ErrorCode::unknown_dtype, ctx.str() + ": dtype '" + std::string(name) + "' is not one of the 13 storage types");
}

// Component fields, matched in one pass over the map (see pick_fields).
enum ComponentField { kDtype, kType, kOffset, kLength, kUlen, kEncoding, kDigest, kComponentFields };
constexpr std::string_view kComponentKeys[kComponentFields] = {"dtype",  "type",     "offset", "length",
                                                               "uncompressed_length", "encoding", "digest"};

Result<Component> parse_component(const CborDoc& doc, uint32_t v, const Where& ctx, bool legacy_v11) {
  if (doc.at(v).kind != Value::Kind::map)
    return Status(ErrorCode::wrong_type, ctx.str() + ": must be a map, found " + kind_name(doc.at(v).kind));
  uint32_t f[kComponentFields];
  pick_fields(doc, v, kComponentKeys, f);
  Component c;
  ZT_ASSIGN_OR_RETURN(uint32_t dtype, check_field(doc, f[kDtype], "dtype", ctx, Value::Kind::text, true));
  ZT_RETURN_IF_ERROR(parse_dtype(doc.at(dtype).str(), legacy_v11, ctx, c));
  ZT_ASSIGN_OR_RETURN(uint32_t type, check_field(doc, f[kType], "type", ctx, Value::Kind::text, false));
  if (type) {
    c.type_name = doc.at(type).str();
    // §2 "Readers that encounter an unrecognized type MAY fall back to
    // loading raw dtype elements": unknown names keep type = none.
    c.type = logical_type_from_name(c.type_name).value_or(LogicalType::none);
  }
  ZT_ASSIGN_OR_RETURN(uint32_t offset, check_field(doc, f[kOffset], "offset", ctx, Value::Kind::uint, true));
  c.offset = doc.at(offset).u;
  ZT_ASSIGN_OR_RETURN(uint32_t length, check_field(doc, f[kLength], "length", ctx, Value::Kind::uint, true));
  c.length = doc.at(length).u;
  ZT_ASSIGN_OR_RETURN(uint32_t ulen,
                      check_field(doc, f[kUlen], "uncompressed_length", ctx, Value::Kind::uint, false));
  if (ulen) c.uncompressed_length = doc.at(ulen).u;
  ZT_ASSIGN_OR_RETURN(uint32_t enc, check_field(doc, f[kEncoding], "encoding", ctx, Value::Kind::text, false));
  if (enc) c.encoding_text = doc.at(enc).str();
  else c.encoding_text = "raw";
  c.encoding = encoding_from_name(c.encoding_text).value_or(Encoding::unknown);
  ZT_ASSIGN_OR_RETURN(uint32_t digest, check_field(doc, f[kDigest], "digest", ctx, Value::Kind::text, false));
  if (digest) c.digest = doc.at(digest).str();
  return c;
}

enum ObjectField { kShape, kFormat, kAttributes, kComponents, kObjectFields };
constexpr std::string_view kObjectKeys[kObjectFields] = {"shape", "format", "attributes", "components"};

// Fills `o` in place (the caller's vector slot) so the object is never moved.
Status parse_object(const CborDoc& doc, std::string_view name, uint32_t v, bool legacy_v11, Object& o) {
  const Where ctx{"", name, ""};
  if (doc.at(v).kind != Value::Kind::map)
    return Status(ErrorCode::wrong_type, ctx.str() + ": must be a map, found " + kind_name(doc.at(v).kind));
  o.name = name;
  uint32_t f[kObjectFields];
  pick_fields(doc, v, kObjectKeys, f);
  ZT_ASSIGN_OR_RETURN(uint32_t shape, check_field(doc, f[kShape], "shape", ctx, Value::Kind::array, true));
  ZT_ASSIGN_OR_RETURN(o.shape, parse_shape(doc, shape, ctx));
  ZT_ASSIGN_OR_RETURN(uint32_t format, check_field(doc, f[kFormat], "format", ctx, Value::Kind::text, true));
  o.format = doc.at(format).str();
  ZT_ASSIGN_OR_RETURN(uint32_t attrs, check_field(doc, f[kAttributes], "attributes", ctx, Value::Kind::map, false));
  if (attrs) o.attributes = doc.to_value(attrs);
  ZT_ASSIGN_OR_RETURN(uint32_t comps, check_field(doc, f[kComponents], "components", ctx, Value::Kind::map, true));
  o.components.reserve(doc.at(comps).u);
  for (uint32_t k = comps + 1, i = 0; i < doc.at(comps).u; ++i) {
    uint32_t cv = doc.at(k).next;
    if (doc.at(k).kind != Value::Kind::text)
      return Status(ErrorCode::wrong_type, ctx.str() + ": component role must be a text string");
    std::string_view role = doc.at(k).str();
    ZT_ASSIGN_OR_RETURN(Component c, parse_component(doc, cv, Where{"", name, role}, legacy_v11));
    o.components.emplace_back(std::string(role), std::move(c));  // roles are unique: duplicate keys are refused
    k = doc.at(cv).next;
  }
  return Status::Ok();
}

}  // namespace

Result<uint32_t> field(const CborDoc& doc, uint32_t map, const char* key, const Where& ctx, Value::Kind kind,
                       bool required) {
  return check_field(doc, doc.find(map, key), key, ctx, kind, required);
}

Result<uint32_t> check_field(const CborDoc& doc, uint32_t v, const char* key, const Where& ctx, Value::Kind kind,
                             bool required) {
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
  m.objects.resize(doc.at(objects).u);
  for (uint32_t k = objects + 1, i = 0; i < doc.at(objects).u; ++i) {
    uint32_t ov = doc.at(k).next;
    if (doc.at(k).kind != Value::Kind::text)
      return Status(ErrorCode::wrong_type, "manifest: object names must be text strings");
    ZT_RETURN_IF_ERROR(parse_object(doc, doc.at(k).str(), ov, legacy_v11, m.objects[i]));
    k = doc.at(ov).next;
  }
  return pm;
}

}  // namespace zt
