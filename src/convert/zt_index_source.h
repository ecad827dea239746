// A sharded .zt set (`NAME.zt.index.json` + `NAME-00001-of-0000N.zt` ...)
// read as one TensorSource. Each shard is a complete .zt file opened as a
// zt::Reader (only its footer and manifest are read on open); reads go to
// the shard that owns the object.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ztensor/reader.h"
#include "ztensor/source.h"

namespace zt {

struct ShardIndex;

class ZtIndexSource final : public TensorSource {
 public:
  // Opens every shard the index names, in file-name order (= shard order),
  // and checks the map against them: each object in its listed shard, no
  // object twice, nothing listed missing. Errors: read_shard_index's, every
  // Reader::open error of a shard, invalid_structure for a disagreement.
  static Result<std::unique_ptr<ZtIndexSource>> open(const std::string& index_path, ReadOptions options = {});
  // The same from an index already read (open_source parses the mapped file).
  static Result<std::unique_ptr<ZtIndexSource>> open(const ShardIndex& index, ReadOptions options);

  const char* format_name() const override { return "zt_index"; }
  const Manifest& manifest() const override { return manifest_; }
  const Object* find(std::string_view name) const override;
  // Errors: not_found, then the owning shard's Reader errors.
  Result<ComponentBytes> read_component(const Object& object, std::string_view role) const override;
  void prefetch(const Object& object, std::string_view role) const override;
  Result<ComponentBytes> read_component_with_threads(const Object& object, std::string_view role,
                                                     unsigned threads) const override;
  Result<ComponentBytes> read_component_range(const Object& object, std::string_view role, uint64_t offset,
                                              uint64_t length) const override;
  // Every shard's digests, in shard order; the first failure names its shard.
  Status verify() const override;
  std::vector<std::string> shard_paths() const override { return paths_; }
  // The sum of the shards' sizes (the index file itself not counted).
  uint64_t file_size() const override;

 private:
  ZtIndexSource() = default;
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<Reader>> shards_;
  // Objects of every shard in shard order; file attributes merged by key
  // (the first shard's value wins, as for safetensors __metadata__).
  Manifest manifest_;
  struct Slot {
    size_t shard;       // index into shards_
    size_t merged;      // index into manifest_.objects
    const Object* own;  // the object in its shard's own manifest
  };
  std::unordered_map<std::string_view, Slot> owner_;  // keys view manifest_ names
};

}  // namespace zt
