// zt info FILE [--json]: version, attributes and every object's components.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.h"
#include "codec_info.h"
#include "commands.h"
#include "describe.h"
#include "table.h"
#include "progress.h"

namespace zt::cli {
namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kInfoHelp =
    "Usage: zt info FILE [--json]\n"
    "\n"
    "Show a .zt file or any other supported weight file (safetensors, a sharded\n"
    "index.json of .zt or safetensors shards, GGUF, .npy/.npz, PyTorch zip\n"
    "checkpoints, .onnx; a path or an http(s):// or s3:// URL): format\n"
    "version, file attributes, and for every object its name, format and\n"
    "shape, and per component the storage dtype, logical type, encoding,\n"
    "stored and uncompressed length and digest.\n"
    "For a .zstn container or a model delta (Z4DM) from `zt compress` / `zt\n"
    "delta`: per tensor its dtype, shape, kind (frame/ref, copy/delta/full),\n"
    "stored and decoded length; for a delta also the base's length and digest.\n"
    "No tensor data is read.\n"
    "\n"
    "Options:\n"
    "  --json        machine-readable output (one JSON object on stdout)\n"
    "  -h, --help    show this help\n"
    "\n"
    "Examples:\n"
    "  zt info model.zt\n"
    "  zt info model.safetensors --json | jq '.objects | keys'\n"
    "  zt info finetuned.z4dm\n";

// Attribute values (CBOR data model) as JSON; byte strings become hex.
ojson to_json(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::null: return nullptr;
    case Value::Kind::boolean: return v.as_bool();
    case Value::Kind::uint: return v.as_uint();
    case Value::Kind::nint:
      if (v.fits_int64()) return v.as_int64();
      return -1.0 - static_cast<double>(v.negative_arg());
    case Value::Kind::float64: return v.as_double();
    case Value::Kind::text: return v.as_string();
    case Value::Kind::bytes: {
      static const char* kDigits = "0123456789abcdef";
      std::string hex;
      for (unsigned char ch : v.as_string()) {
        hex += kDigits[ch >> 4];
        hex += kDigits[ch & 15];
      }
      return ojson{{"bytes_hex", hex}};
    }
    case Value::Kind::array: {
      ojson a = ojson::array();
      for (const auto& e : v.as_array()) a.push_back(to_json(e));
      return a;
    }
    case Value::Kind::map: {
      ojson m = ojson::object();
      for (const auto& [k, e] : v.as_map()) m[k.is_text() ? k.as_string() : to_json(k).dump()] = to_json(e);
      return m;
    }
  }
  return nullptr;
}

// Text from files may hold invalid UTF-8; show it rather than throw.
std::string dump(const ojson& j, int indent = -1) {
  return j.dump(indent, ' ', false, ojson::error_handler_t::replace);
}

std::string encoding_text(const Component& c) {
  return c.encoding == Encoding::unknown ? c.encoding_text : encoding_name(c.encoding);
}

ojson component_json(const Component& c) {
  ojson j;
  j["dtype"] = dtype_name(c.dtype);
  j["type"] = c.type_name.empty() ? ojson(nullptr) : ojson(c.type_name);
  j["offset"] = c.offset;
  j["length"] = c.length;
  j["encoding"] = encoding_text(c);
  j["uncompressed_length"] = c.uncompressed_length ? ojson(*c.uncompressed_length) : ojson(nullptr);
  j["digest"] = c.digest.empty() ? ojson(nullptr) : ojson(c.digest);
  return j;
}

int print_json(const std::string& path, const OpenedFile& f) {
  const Manifest& m = f.manifest();
  ojson j;
  j["file"] = path;
  j["format"] = file_format_name(f.format);
  // Only .zt files have a format version; other sources fill one in.
  const bool zt_file = f.format == FileFormat::zt;
  j["version"] = !zt_file || m.version.empty() ? ojson(nullptr) : ojson(m.version);
  j["file_size"] = f.file_size;
  if (f.format == FileFormat::safetensors_index || f.format == FileFormat::zt_index) j["shards"] = f.shards;
  j["attributes"] = to_json(m.attributes);
  ojson objects = ojson::object();
  for (const auto& o : m.objects) {
    ojson oj;
    oj["format"] = o.format;
    oj["shape"] = o.shape;
    oj["attributes"] = to_json(o.attributes);
    ojson comps = ojson::object();
    for (const auto& [role, c] : o.components) comps[role] = component_json(c);
    oj["components"] = std::move(comps);
    objects[o.name] = std::move(oj);
  }
  j["objects"] = std::move(objects);
  std::printf("%s\n", dump(j, 2).c_str());
  return kExitOk;
}

std::string short_digest(const std::string& d) {
  constexpr size_t kShown = 16;  // hex digits shown in the table
  auto colon = d.find(':');
  if (colon == std::string::npos || d.size() - colon - 1 <= kShown) return d;
  return d.substr(0, colon + 1 + kShown) + "...";
}

int print_table(const std::string& path, const OpenedFile& f) {
  const Manifest& m = f.manifest();
  uint64_t data = 0;
  for (const auto& o : m.objects)
    for (const auto& [r, c] : o.components) data += c.uncompressed_length.value_or(c.length);
  const char* kind = f.format == FileFormat::zt ? "zTensor"
                     : f.format == FileFormat::safetensors_index ? "sharded safetensors"
                     : f.format == FileFormat::zt_index          ? "sharded zTensor"
                                                                 : file_format_name(f.format);
  std::printf("%s: %s%s%s, %zu objects, %s on disk, %s of tensor data\n", path.c_str(), kind,
              f.format == FileFormat::zt ? " " : "", f.format == FileFormat::zt ? m.version.c_str() : "",
              m.objects.size(), human_bytes(f.file_size).c_str(), human_bytes(data).c_str());
  if (m.attributes.is_map() && !m.attributes.as_map().empty()) {
    std::printf("attributes:\n");
    for (const auto& [k, v] : m.attributes.as_map())
      std::printf("  %s: %s\n", k.is_text() ? k.as_string().c_str() : dump(to_json(k)).c_str(),
                  dump(to_json(v)).c_str());
  }
  if (m.objects.empty()) return kExitOk;
  using Row = std::vector<std::string>;
  std::vector<Row> rows = {{"NAME", "FORMAT", "SHAPE", "COMPONENT", "DTYPE", "TYPE", "ENCODING", "LENGTH",
                            "UNCOMPRESSED", "DIGEST"}};
  for (const auto& o : m.objects) {
    bool first = true;
    for (const auto& [role, c] : o.components) {
      rows.push_back({first ? o.name : "", first ? o.format : "", first ? shape_text(o.shape) : "", role,
                      dtype_name(c.dtype), c.type_name.empty() ? "-" : c.type_name, encoding_text(c),
                      std::to_string(c.length),
                      c.uncompressed_length ? std::to_string(*c.uncompressed_length) : "-",
                      c.digest.empty() ? "-" : short_digest(c.digest)});
      first = false;
    }
    if (o.components.empty()) rows.push_back({o.name, o.format, shape_text(o.shape), "-", "", "", "", "", "", ""});
  }
  print_aligned("objects", rows);
  for (const auto& o : m.objects)  // per-object attributes, after the table
    if (o.attributes.is_map() && !o.attributes.as_map().empty())
      std::printf("  %s attributes: %s\n", o.name.c_str(), dump(to_json(o.attributes)).c_str());
  return kExitOk;
}

constexpr OptionSpec kInfoOptions[] = {{"json", false}};

int run_info(const Invocation& inv) {
  const ParsedArgs& a = inv.args;
  const std::string& path = a.positionals[0];
  if (auto c = describe_codec_file(path)) {  // .zstn, Z4DM: structure only
    if (!c->ok()) return status_error(c->status());
    return print_codec_info(path, c->value(), a.has("json"));
  }
  auto f = open_any(path);
  if (!f.ok()) return status_error(f.status());
  return a.has("json") ? print_json(path, f.value()) : print_table(path, f.value());
}

}  // namespace

const Command kInfoCommand{
    "info",
    "  info FILE [--json]            show version, attributes and every object\n",
    kInfoHelp,
    kInfoOptions,
    /*reads_urls=*/true,
    /*operands=*/1,
    "expected exactly one FILE",
    kExitBadInput,
    run_info};

}  // namespace zt::cli
