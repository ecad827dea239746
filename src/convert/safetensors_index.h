// Sharded safetensors models: `model.safetensors.index.json` names the shard
// holding each tensor ({"metadata": {...}, "weight_map": {name: file}}).
// Shards are opened strictly (SafetensorsFile) and must agree with the map.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "convert/safetensors_reader.h"
#include "convert/shard_index.h"
#include "ztensor/status.h"

namespace zt {

// The index format and its limits are shared with sharded .zt (shard_index.h).
inline constexpr uint64_t kMaxSafetensorsIndexBytes = kMaxShardIndexBytes;
static_assert(kMaxShardIndexBytes == kMaxSafetensorsHeaderBytes, "an index is capped like a safetensors header");
inline constexpr int kMaxSafetensorsIndexDepth = kMaxShardIndexDepth;

// One safetensors file, or every shard of an index, as one tensor source.
struct SafetensorsSource {
  std::vector<std::string> paths;                        // one per shard
  std::vector<std::unique_ptr<SafetensorsFile>> shards;  // same order
  // __metadata__ of the shards merged in shard order (first value wins).
  std::vector<std::pair<std::string, std::string>> metadata;
  bool has_metadata = false;
  std::vector<std::string> warnings;  // e.g. shards disagreeing on metadata

  uint64_t tensor_count() const;
  uint64_t tensor_bytes() const;
};

// Parses an index and opens its shards (sorted by file name; each tensor in
// data order). Shard names must be plain file names in the index's folder.
// Errors: io_error, limit_exceeded, malformed_manifest (bad JSON),
// wrong_type, missing_field (weight_map), invalid_structure (duplicate key,
// shard path leaving the folder, tensor missing from its shard or absent
// from the map), and every SafetensorsFile error of a shard.
// `copy_on_read` (local shards): every tensor read is a pread copy (file_bytes.h).
Result<SafetensorsSource> open_safetensors_index(const std::string& index_path, bool copy_on_read = false);
// The same from an index already read (open_source parses the mapped file).
Result<SafetensorsSource> open_safetensors_index(const ShardIndex& index, bool copy_on_read);
// A single file (a path or an http(s) URL) as a one-shard source.
Result<SafetensorsSource> open_safetensors_file(const std::string& path, bool copy_on_read = false);
// A local file already mapped, named by its mapping's path.
Result<SafetensorsSource> open_safetensors_file(std::shared_ptr<const MappedFile> file, bool copy_on_read);
// The same over positional reads; the path is the source's name.
Result<SafetensorsSource> open_safetensors_file(std::shared_ptr<const ByteSource> source);

}  // namespace zt
