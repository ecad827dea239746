// The Hugging Face shard index shared by sharded safetensors and sharded .zt
// (`NAME.safetensors.index.json`, `NAME.zt.index.json`):
//   {"metadata": {"total_size": N, ...}, "weight_map": {object name: shard file}}
// Reading it strictly (no duplicate keys, shards beside the index) and
// checking that the opened shards agree with it; writing it as HF does.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ztensor/status.h"

namespace zt {

// Index files are small JSON (a name per tensor): 100 MB, the safetensors
// header cap, bounds what we read.
inline constexpr uint64_t kMaxShardIndexBytes = 100'000'000;
// Deepest JSON nesting accepted in an index file.
inline constexpr int kMaxShardIndexDepth = 64;

struct ShardIndex {
  std::string path;                                         // the index file
  std::string dir;                                          // its folder: shards live here
  std::unordered_map<std::string, std::string> shard_of;    // object -> shard file name
  std::set<std::string> files;                              // shard file names, sorted (= shard order)
  std::string where;                                        // "<kind> '<path>': " for messages
  std::string noun;                                         // "tensor" or "object", for messages

  std::string shard_path(const std::string& file) const { return dir + "/" + file; }
};

// How each sharded set names its index and what it lists, in messages.
inline constexpr std::string_view kZtIndexKind = "zt index";
inline constexpr std::string_view kZtIndexNoun = "object";
inline constexpr std::string_view kSafetensorsIndexKind = "safetensors index";
inline constexpr std::string_view kSafetensorsIndexNoun = "tensor";

// `kind` names the index in messages ("safetensors index", "zt index").
// Errors: io_error, limit_exceeded (size, nesting), malformed_manifest (bad
// JSON), wrong_type, missing_field (weight_map), invalid_structure
// (duplicate key, a shard name that is not a plain file name beside the index).
// `noun` is what the map lists ("tensor", "object").
Result<ShardIndex> read_shard_index(const std::string& path, std::string_view kind, std::string_view noun);
// The same over the index's bytes; `path` places the shards and names it.
Result<ShardIndex> parse_shard_index(std::span<const uint8_t> bytes, const std::string& path, std::string_view kind,
                                     std::string_view noun);

// Tracks which listed objects the shards actually hold. check() each shard's
// object in turn, then complete(): together they enforce "every object sits
// in the shard the map names, once, and nothing listed is missing".
class ShardAgreement {
 public:
  explicit ShardAgreement(const ShardIndex& index) : index_(index) {}
  // Errors: invalid_structure naming the object and both shards (or the
  // map's silence), or the object's second appearance.
  Status check(const std::string& file, const std::string& object);
  // Errors: invalid_structure naming a listed object no shard holds.
  Status complete() const;

 private:
  const ShardIndex& index_;
  std::set<std::string> seen_;
};

// Whether the index at `path` names only .zt shards (so it is a sharded .zt
// set, not a safetensors one); nullopt when it cannot be read, parsed or
// names no shard: the opener its name implies then reports why.
std::optional<bool> shard_index_names_zt(const std::string& path);
// The same over the index's bytes (a file open_source has mapped).
std::optional<bool> shard_index_names_zt(std::span<const uint8_t> bytes, const std::string& path);

// The index JSON as transformers writes it: keys sorted, 2-space indent,
// trailing newline. Errors: invalid_argument (a name that is not UTF-8).
Result<std::string> shard_index_json(uint64_t total_size, const std::map<std::string, std::string>& weight_map);

}  // namespace zt
