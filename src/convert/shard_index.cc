#include "convert/shard_index.h"

#include <vector>

#include <nlohmann/json.hpp>

#include "convert/path_open.h"
#include "common/mapped_file.h"
#include "container/validate.h"

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
Result<json> parse_index_json(std::span<const uint8_t> bytes, const std::string& named) {
  Status problem;
  std::vector<std::set<std::string>> keys;  // one set per open object
  json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) {
    if (!problem.ok()) return true;
    if (depth > kMaxShardIndexDepth)
      problem = Status(ErrorCode::limit_exceeded,
                       named + " nests deeper than " + std::to_string(kMaxShardIndexDepth) + " levels");
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty() && parsed.is_string() &&
        !keys.back().insert(parsed.get<std::string>()).second)
      problem = Status(ErrorCode::invalid_structure,
                       named + ": key '" + parsed.get<std::string>() + "' appears more than once");
    return true;
  };
  json j;
  try {
    j = json::parse(bytes.begin(), bytes.end(), cb);
  } catch (const json::exception& e) {
    return Status(ErrorCode::malformed_manifest, named + " is not valid JSON: " + e.what());
  }
  if (!problem.ok()) return problem;
  return j;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Result<ShardIndex> read_shard_index(const std::string& path, std::string_view kind, std::string_view noun) {
  // A local index is mapped whatever its size (parse_shard_index refuses a
  // big one); a remote one is not downloaded past the cap.
  ZT_ASSIGN_OR_RETURN(WholeFile file, read_whole_path(path, kMaxShardIndexBytes));
  return parse_shard_index(file.bytes, path, kind, noun);
}

Result<ShardIndex> parse_shard_index(std::span<const uint8_t> bytes, const std::string& path, std::string_view kind,
                                     std::string_view noun) {
  ShardIndex index;
  index.path = path;
  index.dir = dir_of(path);
  index.noun = std::string(noun);
  // Messages before the colon keep the historical "<kind> '<path>' is ..." form.
  const std::string named = std::string(kind) + " '" + path + "'";
  index.where = named + ": ";
  if (bytes.size() > kMaxShardIndexBytes)
    return Status(ErrorCode::limit_exceeded, named + " is " + std::to_string(bytes.size()) +
                                                 " bytes, over the cap of " + std::to_string(kMaxShardIndexBytes));
  ZT_ASSIGN_OR_RETURN(json j, parse_index_json(bytes, named));
  const std::string& where = index.where;
  if (!j.is_object()) return Status(ErrorCode::wrong_type, where + "must be a JSON object");
  auto wm = j.find("weight_map");
  if (wm == j.end()) return Status(ErrorCode::missing_field, where + "required field 'weight_map' is missing");
  if (!wm->is_object()) return Status(ErrorCode::wrong_type, where + "'weight_map' must be an object");
  for (const auto& [name, file] : wm->items()) {
    if (!file.is_string())
      return Status(ErrorCode::wrong_type, where + "weight_map entry '" + name + "' must be a file name string");
    ZT_RETURN_IF_ERROR(check_name(name, where + "weight_map entry"));
    const std::string f = file.get<std::string>();
    if (!plain_file_name(f))
      return Status(ErrorCode::invalid_structure, where + "weight_map entry '" + name + "' names shard '" + f +
                                                      "', which is not a plain file name beside the index");
    index.shard_of.emplace(name, f);
    index.files.insert(f);
  }
  return index;
}

Status ShardAgreement::check(const std::string& file, const std::string& object) {
  auto it = index_.shard_of.find(object);
  if (it == index_.shard_of.end() || it->second != file)
    return Status(ErrorCode::invalid_structure,
                  index_.where + "shard '" + file + "' holds " + index_.noun + " '" + object + "', which " +
                      (it == index_.shard_of.end() ? std::string("the weight_map does not list")
                                                   : "the weight_map places in '" + it->second + "'"));
  if (!seen_.insert(object).second)
    return Status(ErrorCode::invalid_structure,
                  index_.where + index_.noun + " '" + object + "' appears twice in shard '" + file + "'");
  return Status::Ok();
}

Status ShardAgreement::complete() const {
  if (seen_.size() == index_.shard_of.size()) return Status::Ok();
  const std::string* missing = nullptr;  // the first by name, so the message is stable
  for (const auto& [name, file] : index_.shard_of)
    if (!seen_.count(name) && (!missing || name < *missing)) missing = &name;
  const std::string& file = index_.shard_of.at(*missing);
  return Status(ErrorCode::invalid_structure, index_.where + "weight_map places " + index_.noun + " '" + *missing +
                                                  "' in shard '" + file + "', which does not hold it");
}

std::optional<bool> shard_index_names_zt(const std::string& path) {
  auto file = read_whole_path(path, kMaxShardIndexBytes);
  if (!file.ok()) return std::nullopt;
  return shard_index_names_zt(file.value().bytes, path);
}

std::optional<bool> shard_index_names_zt(std::span<const uint8_t> bytes, const std::string& path) {
  auto index = parse_shard_index(bytes, path, "index", "object");
  if (!index.ok() || index.value().files.empty()) return std::nullopt;
  for (const auto& f : index.value().files)
    if (!ends_with(f, ".zt")) return false;
  return true;
}

Result<std::string> shard_index_json(uint64_t total_size, const std::map<std::string, std::string>& weight_map) {
  json j;
  j["metadata"]["total_size"] = total_size;
  j["weight_map"] = json::object();
  for (const auto& [name, file] : weight_map) j["weight_map"][name] = file;
  try {
    return j.dump(2) + "\n";
  } catch (const json::exception& e) {  // a name that is not UTF-8
    return Status(ErrorCode::invalid_argument, std::string("cannot write the shard index: ") + e.what());
  }
}

}  // namespace zt
