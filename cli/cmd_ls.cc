// zt ls FILE [--json]: one line per object (name, shape, dtype, format).
#include <cctype>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "args.h"
#include "codec_info.h"
#include "commands.h"
#include "describe.h"

namespace zt::cli {
namespace {

constexpr const char* kLsHelp =
    "Usage: zt ls FILE [--json]\n"
    "\n"
    "List the objects of any file `zt info` reads (.zt, safetensors, a sharded\n"
    "index.json of either, GGUF, .npy/.npz, PyTorch zip, .onnx; a path or an\n"
    "http(s):// or s3:// URL) or the tensors inside a .zstn container or a\n"
    "model delta, one per line: name, shape, dtype (logical type in\n"
    "parentheses) and format.\n"
    "\n"
    "Options:\n"
    "  --json        a JSON array of {name, shape, dtype, type, format}\n"
    "  -h, --help    show this help\n"
    "\n"
    "Examples:\n"
    "  zt ls model.zt\n"
    "  zt ls model.safetensors | grep attn\n";

// The dtype shown for an object: its data (or first) component's.
const Component* main_component(const Object& o) {
  if (const Component* c = o.find("data")) return c;
  if (const Component* c = o.find("values")) return c;
  if (const Component* c = o.find("packed_weight")) return c;
  return o.components.empty() ? nullptr : &o.components.front().second;
}

// .zstn and Z4DM: the tensors of the safetensors file they hold.
int list_codec_file(const Result<CodecFile>& c, bool json) {
  if (!c.ok()) return status_error(c.status());
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& t : c.value().tensors) {
    std::string dtype = t.dtype;
    for (char& ch : dtype) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (json) {
      list.push_back({{"name", t.name}, {"shape", t.shape}, {"dtype", dtype}, {"type", nullptr}, {"format", "dense"}});
      continue;
    }
    std::string shape = "[";
    for (size_t i = 0; i < t.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape[i]);
    std::printf("%s\t%s]\t%s\tdense\n", t.name.c_str(), shape.c_str(), dtype.c_str());
  }
  if (json) std::printf("%s\n", list.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
  return kExitOk;
}

constexpr OptionSpec kLsOptions[] = {{"json", false}};

int run_ls(const Invocation& inv) {
  const ParsedArgs& a = inv.args;
  if (auto c = describe_codec_file(a.positionals[0])) return list_codec_file(*c, a.has("json"));
  auto f = open_any(a.positionals[0]);
  if (!f.ok()) return status_error(f.status());
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& o : f.value().manifest().objects) {
    const Component* c = main_component(o);
    std::string dtype = c ? dtype_name(c->dtype) : "-";
    std::string type = c ? c->type_name : "";
    if (a.has("json")) {
      list.push_back({{"name", o.name}, {"shape", o.shape}, {"dtype", dtype},
                      {"type", type.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(type)},
                      {"format", o.format}});
      continue;
    }
    std::string shape = "[";
    for (size_t i = 0; i < o.shape.size(); ++i) {
      if (i) shape += ", ";
      shape += std::to_string(o.shape[i]);
    }
    shape += "]";
    if (!type.empty()) dtype += "(" + type + ")";
    std::printf("%s\t%s\t%s\t%s\n", o.name.c_str(), shape.c_str(), dtype.c_str(), o.format.c_str());
  }
  if (a.has("json"))
    std::printf("%s\n", list.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
  return kExitOk;
}

}  // namespace

const Command kLsCommand{
    "ls",
    "  ls FILE [--json]              list objects: name, shape, dtype, format\n",
    kLsHelp,
    kLsOptions,
    /*reads_urls=*/true,
    /*operands=*/1,
    "expected exactly one FILE",
    kExitBadInput,
    run_ls};

}  // namespace zt::cli
