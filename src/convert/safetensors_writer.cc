#include "convert/safetensors_writer.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/checked_math.h"
#include "convert/safetensors_reader.h"
#include "ztensor/reader.h"  // ComponentBytes

namespace zt {
namespace {

struct Planned {
  const Object* object;
  const char* st_dtype;
  uint64_t width;  // storage dtype width: the alignment the tensor needs
  uint64_t bytes;
};

// JSON string literal, escaped the way serde_json (safetensors) does it.
// Names come from files, so invalid UTF-8 is an error, not an exception.
Result<std::string> json_string(const std::string& s, const std::string& what) {
  try {
    return nlohmann::json(s).dump();
  } catch (const nlohmann::json::exception&) {
    return Status(ErrorCode::unsupported, what + " is not valid UTF-8; safetensors headers are UTF-8 JSON");
  }
}

Result<Planned> plan_object(const Object& o) {
  const std::string where = "object '" + o.name + "'";
  if (o.format != "dense")
    return Status(ErrorCode::unsupported, where + " has format '" + o.format +
                                              "'; only dense objects can be written to safetensors");
  const Component* c = o.find("data");
  if (!c || o.components.size() != 1)
    return Status(ErrorCode::unsupported, where + ": a dense object for safetensors needs exactly one component 'data'");
  bool unknown_type = c->type == LogicalType::none && !c->type_name.empty() && c->type_name != dtype_name(c->dtype);
  const char* st = unknown_type ? nullptr : zt_to_safetensors_dtype(c->dtype, c->type);
  if (!st) {
    std::string t = dtype_name(c->dtype);
    if (!c->type_name.empty()) t += " (logical type " + c->type_name + ")";
    return Status(ErrorCode::unsupported, where + " component 'data': " + t + " has no safetensors dtype");
  }
  auto count = checked_product(o.shape);
  auto bytes = count ? checked_mul(*count, dtype_width(c->dtype) * logical_type_ratio(c->type)) : std::nullopt;
  if (!bytes) return Status(ErrorCode::shape_overflow, where + ": shape product overflows 64 bits");
  return Planned{&o, st, dtype_width(c->dtype), *bytes};
}

Result<std::string> build_header(const Manifest& m, const std::vector<Planned>& plan, ConvertStats& stats) {
  std::string h = "{";
  if (m.attributes.is_map()) {
    h += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : m.attributes.as_map()) {
      if (!k.is_text() || !v.is_text()) {
        stats.warnings.push_back("file attribute " + (k.is_text() ? "'" + k.as_string() + "'" : std::string("(non-text key)")) +
                                 " is not a string; safetensors __metadata__ holds strings only, so it was not kept");
        continue;
      }
      ZT_ASSIGN_OR_RETURN(std::string key, json_string(k.as_string(), "file attribute key '" + k.as_string() + "'"));
      ZT_ASSIGN_OR_RETURN(std::string val, json_string(v.as_string(), "file attribute '" + k.as_string() + "'"));
      if (!first) h += ",";
      h += key + ":" + val;
      first = false;
    }
    h += "}";
    if (!plan.empty()) h += ",";
  }
  uint64_t offset = 0;
  for (size_t i = 0; i < plan.size(); ++i) {
    const Planned& p = plan[i];
    ZT_ASSIGN_OR_RETURN(std::string name, json_string(p.object->name, "object name '" + p.object->name + "'"));
    if (i) h += ",";
    h += name + ":{\"dtype\":\"" + p.st_dtype + "\",\"shape\":[";
    for (size_t d = 0; d < p.object->shape.size(); ++d) {
      if (d) h += ",";
      h += std::to_string(p.object->shape[d]);
    }
    auto end = checked_add(offset, p.bytes);
    if (!end) return Status(ErrorCode::shape_overflow, "total tensor bytes overflow 64 bits");
    h += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(*end) + "]}";
    offset = *end;
  }
  h += "}";
  h.append((kSafetensorsHeaderAlignment - h.size() % kSafetensorsHeaderAlignment) % kSafetensorsHeaderAlignment, ' ');
  if (h.size() > kMaxSafetensorsHeaderBytes)
    return Status(ErrorCode::limit_exceeded, "safetensors header would be " + std::to_string(h.size()) +
                                                 " bytes, over safetensors' cap of " +
                                                 std::to_string(kMaxSafetensorsHeaderBytes));
  return h;
}

}  // namespace

Result<ConvertStats> write_safetensors(const TensorSource& reader, const std::string& out, const ProgressFn& progress) {
  const Manifest& m = reader.manifest();
  ConvertStats stats;
  std::vector<Planned> plan;
  plan.reserve(m.objects.size());
  uint64_t total = 0;
  for (const Object& o : m.objects) {
    ZT_ASSIGN_OR_RETURN(Planned p, plan_object(o));
    total += p.bytes;  // cannot overflow: build_header checks the running sum
    plan.push_back(p);
  }
  std::stable_sort(plan.begin(), plan.end(), [](const Planned& a, const Planned& b) { return a.width > b.width; });
  ZT_ASSIGN_OR_RETURN(std::string header, build_header(m, plan, stats));

  ZT_ASSIGN_OR_RETURN(auto file, AtomicFile::create(out));
  uint8_t prefix[8];
  for (int i = 0; i < 8; ++i) prefix[i] = static_cast<uint8_t>(static_cast<uint64_t>(header.size()) >> (8 * i));
  ZT_RETURN_IF_ERROR(file->write(prefix));
  ZT_RETURN_IF_ERROR(file->write({reinterpret_cast<const uint8_t*>(header.data()), header.size()}));
  uint64_t done = 0;
  for (const Planned& p : plan) {
    ZT_ASSIGN_OR_RETURN(ComponentBytes data, reader.read_component(*p.object, "data"));
    if (data.bytes.size() != p.bytes)
      return Status(ErrorCode::length_mismatch, "object '" + p.object->name + "' component 'data': decoded " +
                                                    std::to_string(data.bytes.size()) + " bytes, shape needs " +
                                                    std::to_string(p.bytes));
    ZT_RETURN_IF_ERROR(file->write(data.bytes));
    done += p.bytes;
    ++stats.objects;
    if (progress) progress(done, total);
  }
  ZT_RETURN_IF_ERROR(file->commit());
  stats.bytes = done;
  return stats;
}

}  // namespace zt
