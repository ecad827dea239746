#include "container/manifest_parse.h"

#include "container/limits.h"

namespace zt {
namespace {

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

Status parse_dtype(const std::string& name, bool legacy_v11, const std::string& ctx, Component& c) {
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
  return Status(ErrorCode::unknown_dtype, ctx + ": dtype '" + name + "' is not one of the 13 storage types");
}

Result<Component> parse_component(const Value& v, const std::string& ctx, bool legacy_v11) {
  if (!v.is_map()) return Status(ErrorCode::wrong_type, ctx + ": must be a map, found " + kind_name(v.kind()));
  Component c;
  ZT_ASSIGN_OR_RETURN(const Value* dtype, field(v, "dtype", ctx, Value::Kind::text, true));
  ZT_RETURN_IF_ERROR(parse_dtype(dtype->as_string(), legacy_v11, ctx, c));
  ZT_ASSIGN_OR_RETURN(const Value* type, field(v, "type", ctx, Value::Kind::text, false));
  if (type) {
    c.type_name = type->as_string();
    // §2 "Readers that encounter an unrecognized type MAY fall back to
    // loading raw dtype elements": unknown names keep type = none.
    c.type = logical_type_from_name(c.type_name).value_or(LogicalType::none);
  }
  ZT_ASSIGN_OR_RETURN(const Value* offset, field(v, "offset", ctx, Value::Kind::uint, true));
  c.offset = offset->as_uint();
  ZT_ASSIGN_OR_RETURN(const Value* length, field(v, "length", ctx, Value::Kind::uint, true));
  c.length = length->as_uint();
  ZT_ASSIGN_OR_RETURN(const Value* ulen, field(v, "uncompressed_length", ctx, Value::Kind::uint, false));
  if (ulen) c.uncompressed_length = ulen->as_uint();
  ZT_ASSIGN_OR_RETURN(const Value* enc, field(v, "encoding", ctx, Value::Kind::text, false));
  c.encoding_text = enc ? enc->as_string() : "raw";
  c.encoding = encoding_from_name(c.encoding_text).value_or(Encoding::unknown);
  ZT_ASSIGN_OR_RETURN(const Value* digest, field(v, "digest", ctx, Value::Kind::text, false));
  if (digest) c.digest = digest->as_string();
  return c;
}

Result<Object> parse_object(const std::string& name, const Value& v, bool legacy_v11) {
  std::string ctx = "object '" + name + "'";
  if (!v.is_map()) return Status(ErrorCode::wrong_type, ctx + ": must be a map, found " + kind_name(v.kind()));
  Object o;
  o.name = name;
  ZT_ASSIGN_OR_RETURN(const Value* shape, field(v, "shape", ctx, Value::Kind::array, true));
  ZT_ASSIGN_OR_RETURN(o.shape, parse_shape(*shape, ctx));
  ZT_ASSIGN_OR_RETURN(const Value* format, field(v, "format", ctx, Value::Kind::text, true));
  o.format = format->as_string();
  ZT_ASSIGN_OR_RETURN(const Value* attrs, field(v, "attributes", ctx, Value::Kind::map, false));
  if (attrs) o.attributes = *attrs;
  ZT_ASSIGN_OR_RETURN(const Value* comps, field(v, "components", ctx, Value::Kind::map, true));
  for (const auto& [role, cv] : comps->as_map()) {
    if (!role.is_text()) return Status(ErrorCode::wrong_type, ctx + ": component role must be a text string");
    std::string cctx = ctx + " component '" + role.as_string() + "'";
    if (o.find(role.as_string()))
      return Status(ErrorCode::malformed_manifest, cctx + ": duplicate component role");
    ZT_ASSIGN_OR_RETURN(Component c, parse_component(cv, cctx, legacy_v11));
    o.components.emplace_back(role.as_string(), std::move(c));
  }
  return o;
}

}  // namespace

Result<const Value*> field(const Value& map, const char* key, const std::string& ctx, Value::Kind kind,
                           bool required) {
  const Value* v = map.find(key);
  if (!v || (!required && v->is_null())) {
    if (required) return Status(ErrorCode::missing_field, ctx + ": required field '" + key + "' is missing");
    return static_cast<const Value*>(nullptr);
  }
  if (v->kind() != kind)
    return Status(ErrorCode::wrong_type, ctx + ": field '" + key + "' must be a " + kind_name(kind) + ", found " +
                                             kind_name(v->kind()));
  return v;
}

Result<std::vector<uint64_t>> parse_shape(const Value& v, const std::string& ctx) {
  if (v.as_array().size() > limits::kMaxRank)
    return Status(ErrorCode::limit_exceeded, ctx + ": shape rank over kMaxRank");
  std::vector<uint64_t> shape;
  for (const auto& d : v.as_array()) {
    if (!d.is_uint())
      return Status(ErrorCode::wrong_type, ctx + ": shape entries must be unsigned integers, found " +
                                               kind_name(d.kind()));
    shape.push_back(d.as_uint());
  }
  return shape;
}

Result<ParsedManifest> parse_manifest_v1(const Value& root) {
  const std::string ctx = "manifest";
  if (!root.is_map()) return Status(ErrorCode::wrong_type, "manifest: root must be a map, found " + std::string(kind_name(root.kind())));
  ParsedManifest pm;
  Manifest& m = pm.manifest;
  ZT_ASSIGN_OR_RETURN(const Value* version, field(root, "version", ctx, Value::Kind::text, true));
  m.version = version->as_string();
  // Appendix: "Major version increments ... may change the container
  // structure"; minor ones only add optional fields, so any 1.x is read.
  if (m.version.rfind("1.", 0) != 0 && m.version != "1")
    return Status(ErrorCode::unsupported, "manifest: version '" + m.version + "' is not a 1.x version");
  bool legacy_v11 = m.version.rfind("1.0", 0) == 0 || m.version.rfind("1.1", 0) == 0;
  if (legacy_v11) pm.rules = ValidationRules{false, false};
  ZT_ASSIGN_OR_RETURN(const Value* attrs, field(root, "attributes", ctx, Value::Kind::map, false));
  if (attrs) m.attributes = *attrs;
  ZT_ASSIGN_OR_RETURN(const Value* objects, field(root, "objects", ctx, Value::Kind::map, true));
  m.objects.reserve(objects->as_map().size());
  for (const auto& [name, ov] : objects->as_map()) {
    if (!name.is_text()) return Status(ErrorCode::wrong_type, "manifest: object names must be text strings");
    ZT_ASSIGN_OR_RETURN(Object o, parse_object(name.as_string(), ov, legacy_v11));
    m.objects.push_back(std::move(o));
  }
  return pm;
}

}  // namespace zt
