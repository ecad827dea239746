// Writing a model as Hugging Face-style .zt shards: NAME-00001-of-0000N.zt
// ... plus NAME.zt.index.json ({"metadata": {"total_size"}, "weight_map"}),
// each shard a complete .zt v1.2 file. The set appears atomically: shards
// are written to temporaries, renamed into place only once all are
// complete, the index last; a failure or abort() publishes nothing. Writers
// of one NAME publish one at a time (a lock file NAME.zt.lock, present only
// while one publishes), and a kill at any step leaves an index naming a
// complete set, old or new (docs/scale.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ztensor/status.h"
#include "ztensor/value.h"
#include "ztensor/writer.h"

namespace zt {

// How many decimal digits a shard number has in its file name (HF's
// "model-00001-of-00002.safetensors").
inline constexpr int kShardNumberDigits = 5;

// A shard size as Hugging Face writes it: an integer count of bytes
// ("5000000000"), or an integer with a unit, case-insensitive: KB/MB/GB/TB
// are powers of 10, KiB/MiB/GiB/TiB powers of 2 ("5GB", "500MB", "2GiB").
// As in transformers, a lowercase final "b" after a decimal unit means
// bits ("5Gb" = 625000000 bytes). Errors: invalid_argument naming the text.
Result<uint64_t> parse_byte_size(std::string_view text);

// The transformers rule (see ShardedWriter): whether an object of `size`
// decoded bytes starts a new shard after `current_size` bytes in the
// current one (`current_empty`: it holds no object yet).
inline bool starts_new_shard(uint64_t max_shard_size, uint64_t current_size, bool current_empty, uint64_t size) {
  const uint64_t room = max_shard_size - (current_size < max_shard_size ? current_size : max_shard_size);
  return max_shard_size != 0 && !current_empty && size > room;  // current + size > limit, without overflow
}

// The shards ShardedWriter would make of objects of these decoded sizes,
// in order: per shard, the indices of its objects. For writing each shard
// elsewhere (one Dask task per shard) and publishing the set with
// publish_staged_shards().
std::vector<std::vector<size_t>> plan_shards(const std::vector<uint64_t>& object_sizes, uint64_t max_shard_size);

// Publishes shards written elsewhere as ShardedWriter::finish() publishes
// its own: `staged[i]`, a complete .zt file on the filesystem of `path`
// (e.g. written by a worker into a folder beside it) holding the objects
// `shard_objects[i]`, is renamed to NAME-0000{i+1}-of-0000N.zt, the index
// (with `total_size`) is published last, and shards of an earlier set under
// NAME are removed; one staged file becomes `path` alone. On error nothing
// new is left under the final names (staged files not yet renamed stay
// where they are). Returns the published files as finish() does.
// Errors: invalid_argument (sizes disagree, no shard), io_error.
Result<std::vector<std::string>> publish_staged_shards(const std::string& path, const std::vector<std::string>& staged,
                                                       const std::vector<std::vector<std::string>>& shard_objects,
                                                       uint64_t total_size, bool durable = true);

// A staging folder beside the set NAME, where other processes (Dask
// workers) write the shards of one sharded write before
// publish_staged_shards: ".NAME.zt.shards-XXXXXX" holding a lock file this
// object keeps locked, so other writers of NAME can tell it is in use.
// Folders whose writer died (the lock is free) are removed by the next
// write of NAME: when a ShardStaging is created, and when a set or NAME.zt
// is published.
class ShardStaging {
 public:
  // `path` is NAME.zt or NAME.zt.index.json. Errors: invalid_argument (no
  // NAME), io_error (the folder cannot be created).
  static Result<std::unique_ptr<ShardStaging>> create(const std::string& path);
  // Removes the folder and what it holds (retrying while a cancelled task
  // still creates files in it), then releases the lock.
  ~ShardStaging();
  ShardStaging(const ShardStaging&) = delete;
  ShardStaging& operator=(const ShardStaging&) = delete;
  const std::string& folder() const { return folder_; }

 private:
  ShardStaging() = default;
  std::string folder_;
  int lock_fd_ = -1;
};

class ShardedWriter {
 public:
  // `path` is NAME.zt (or NAME.zt.index.json). `max_shard_size` bounds each
  // shard's decoded component bytes (0 = no limit: one file). The rule is
  // transformers': objects stay in order; a new shard starts when the next
  // object would take the current one past the limit and the current one is
  // not empty, so an object larger than the limit gets a shard of its own;
  // no object is split. When everything fits in one shard the result is the
  // single file NAME.zt with no index, as transformers does. `attributes`
  // go into every shard. Errors: invalid_argument, io_error.
  static Result<std::unique_ptr<ShardedWriter>> create(const std::string& path, Value attributes = {},
                                                       uint64_t max_shard_size = 0, bool durable = true);
  ~ShardedWriter();
  ShardedWriter(const ShardedWriter&) = delete;
  ShardedWriter& operator=(const ShardedWriter&) = delete;

  // Writer::add into the current shard (or a new one, per the rule above).
  // Errors: Writer::add's; invalid_argument for a name already in any shard.
  Status add(const ObjectSpec& object);
  // Publishes the set: the shards, then the index; then removes shards of an
  // earlier set under the same NAME with a different count
  // (NAME-?????-of-?????.zt not in the new set). Returns the published
  // files: NAME.zt alone, or the shards in order followed by the index.
  // Errors: io_error (nothing new is left under the final names).
  Result<std::vector<std::string>> finish();
  // Drops every temporary; nothing is published.
  void abort();
  size_t object_count() const { return names_.size(); }

 private:
  ShardedWriter() = default;
  Status start_shard();
  std::string stem_;       // NAME (with its folder)
  std::string single_;     // where a one-shard result goes
  Value attributes_;
  uint64_t max_shard_size_ = 0;
  bool durable_ = true;
  std::vector<std::unique_ptr<Writer>> shards_;  // all sealed but the last
  std::vector<std::vector<std::string>> shard_objects_;
  uint64_t current_size_ = 0;  // decoded bytes in the last shard
  uint64_t total_size_ = 0;
  std::unordered_set<std::string> names_;
};

}  // namespace zt
