#include "convert/safetensors_index.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "ztensor/mapped_file.h"

namespace zt {
namespace {

using json = nlohmann::json;

std::string dir_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

// A shard must sit beside the index: a plain name, never a path.
bool plain_file_name(const std::string& s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos &&
         s.find('\0') == std::string::npos;
}

// DOM parse that refuses duplicate keys (the DOM would keep the last) and
// deep nesting; returns the first problem as a Status.
Result<json> parse_index_json(std::span<const uint8_t> bytes, const std::string& path) {
  Status problem;
  std::vector<std::set<std::string>> keys;  // one set per open object
  json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) {
    if (!problem.ok()) return true;
    if (depth > kMaxSafetensorsIndexDepth)
      problem = Status(ErrorCode::limit_exceeded, "safetensors index '" + path + "' nests deeper than " +
                                                      std::to_string(kMaxSafetensorsIndexDepth) + " levels");
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty() && parsed.is_string() &&
        !keys.back().insert(parsed.get<std::string>()).second)
      problem = Status(ErrorCode::invalid_structure, "safetensors index '" + path + "': key '" +
                                                         parsed.get<std::string>() + "' appears more than once");
    return true;
  };
  json j;
  try {
    j = json::parse(bytes.begin(), bytes.end(), cb);
  } catch (const json::exception& e) {
    return Status(ErrorCode::malformed_manifest, "safetensors index '" + path + "' is not valid JSON: " + e.what());
  }
  if (!problem.ok()) return problem;
  return j;
}

void merge_metadata(SafetensorsSource& src, const SafetensorsFile& shard, const std::string& shard_path) {
  if (!shard.has_metadata()) return;
  src.has_metadata = true;
  for (const auto& entry : shard.metadata()) {
    const std::string& k = entry.first;
    const std::string& v = entry.second;
    auto it = std::find_if(src.metadata.begin(), src.metadata.end(), [&k](const auto& e) { return e.first == k; });
    if (it == src.metadata.end())
      src.metadata.emplace_back(k, v);
    else if (it->second != v)
      src.warnings.push_back("shard '" + shard_path + "' has __metadata__ '" + k + "' = '" + v +
                             "', differing from an earlier shard; the first value was kept");
  }
}

}  // namespace

uint64_t SafetensorsSource::tensor_count() const {
  uint64_t n = 0;
  for (const auto& s : shards) n += s->tensors().size();
  return n;
}

uint64_t SafetensorsSource::tensor_bytes() const {
  uint64_t n = 0;  // each shard's tensors tile a file, so no overflow
  for (const auto& s : shards)
    for (const auto& t : s->tensors()) n += t.data.size();
  return n;
}

Result<SafetensorsSource> open_safetensors_file(const std::string& path) {
  SafetensorsSource src;
  ZT_ASSIGN_OR_RETURN(auto f, SafetensorsFile::open(path));
  merge_metadata(src, *f, path);
  src.paths.push_back(path);
  src.shards.push_back(std::move(f));
  return src;
}

Result<SafetensorsSource> open_safetensors_index(const std::string& index_path) {
  ZT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(index_path));
  if (mapped->size() > kMaxSafetensorsIndexBytes)
    return Status(ErrorCode::limit_exceeded, "safetensors index '" + index_path + "' is " +
                                                 std::to_string(mapped->size()) + " bytes, over the cap of " +
                                                 std::to_string(kMaxSafetensorsIndexBytes));
  ZT_ASSIGN_OR_RETURN(json j, parse_index_json(mapped->bytes(), index_path));
  const std::string where = "safetensors index '" + index_path + "': ";
  if (!j.is_object()) return Status(ErrorCode::wrong_type, where + "must be a JSON object");
  auto wm = j.find("weight_map");
  if (wm == j.end()) return Status(ErrorCode::missing_field, where + "required field 'weight_map' is missing");
  if (!wm->is_object()) return Status(ErrorCode::wrong_type, where + "'weight_map' must be an object");

  std::unordered_map<std::string, std::string> shard_of;  // tensor -> shard file
  std::set<std::string> files;                             // sorted shard names
  for (const auto& [name, file] : wm->items()) {
    if (!file.is_string())
      return Status(ErrorCode::wrong_type, where + "weight_map entry '" + name + "' must be a file name string");
    const std::string f = file.get<std::string>();
    if (!plain_file_name(f))
      return Status(ErrorCode::invalid_structure, where + "weight_map entry '" + name + "' names shard '" + f +
                                                      "', which is not a plain file name beside the index");
    shard_of.emplace(name, f);
    files.insert(f);
  }

  SafetensorsSource src;
  const std::string dir = dir_of(index_path);
  uint64_t found = 0;
  for (const std::string& f : files) {
    const std::string path = dir + "/" + f;
    ZT_ASSIGN_OR_RETURN(auto shard, SafetensorsFile::open(path));
    for (const auto& t : shard->tensors()) {
      auto it = shard_of.find(t.name);
      if (it == shard_of.end() || it->second != f)
        return Status(ErrorCode::invalid_structure, where + "shard '" + f + "' holds tensor '" + t.name + "', which " +
                                                        (it == shard_of.end() ? std::string("the weight_map does not list")
                                                                              : "the weight_map places in '" + it->second + "'"));
      ++found;
    }
    merge_metadata(src, *shard, path);
    src.paths.push_back(path);
    src.shards.push_back(std::move(shard));
  }
  if (found != shard_of.size()) {  // some listed tensor is in no shard: name it
    for (size_t i = 0; i < src.shards.size(); ++i) {
      const std::string f = src.paths[i].substr(dir.size() + 1);
      for (const auto& [name, file] : shard_of)
        if (file == f && !src.shards[i]->find(name))
          return Status(ErrorCode::invalid_structure, where + "weight_map places tensor '" + name + "' in shard '" +
                                                          f + "', which does not hold it");
    }
  }
  return src;
}

}  // namespace zt
