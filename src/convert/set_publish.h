// Publishing a sharded .zt set under NAME (NAME-0000i-of-0000N.zt and
// NAME.zt.index.json) as one unit, for ShardedWriter::finish and
// publish_staged_shards (shards written locally or by Dask workers).
//
// - Writers of one NAME exclude each other: every publish, and the creation
//   of a staging folder, holds an flock on NAME.zt.lock (removed again on
//   release), so two sets are never renamed into place at once.
// - A reader always finds a complete set behind the index: new shards never
//   take a name the live index uses before the index is switched. When the
//   new set has the old set's shard count (the same names), the shards go in
//   under pending names (NAME-0000i-of-0000N-pending-<tag>.zt), an index
//   naming those is switched in, each final name is then replaced by a hard
//   link to its pending shard, and an index naming the final names is
//   switched in last.
// - What killed writers left (shards of an older set, pending shards no
//   index names, staging folders whose lock is free) is removed by the next
//   publish of NAME, under the lock. AtomicFile removes named temporaries of
//   dead writers itself.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "ztensor/status.h"

namespace zt {

// NAME with its folder, from NAME.zt or NAME.zt.index.json.
std::string set_stem(const std::string& path);
// What follows the last '/' of a path; the folder before it ("." for none).
std::string path_base(const std::string& path);
std::string path_folder(const std::string& path);
// A shard's number as its file name writes it ("00002").
std::string shard_number_text(size_t i);
// The lock file of the set NAME.
std::string set_lock_path(const std::string& stem);
// "." + NAME + ".zt.shards-": how staging folders of NAME begin.
std::string staging_prefix(const std::string& stem);

// The set lock of one NAME, held by this process while the object lives.
class SetLock {
 public:
  // Blocks until no other writer of NAME holds it. Errors: io_error.
  static Result<SetLock> acquire(const std::string& stem);
  SetLock(SetLock&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) { other.fd_ = -1; }
  SetLock& operator=(SetLock&&) = delete;
  ~SetLock();

 private:
  SetLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
};

// Renames the i-th complete shard onto `dest` (a temporary's or a staged file's).
using PublishShard = std::function<Status(size_t i, const std::string& dest)>;

// Publishes n > 1 shards (shard i holds shard_objects[i]) as the set NAME,
// under the set lock, and removes what an earlier set or a killed writer
// left. Returns the shard paths in order, then the index. On error before
// the index is switched nothing new is left under NAME.
Result<std::vector<std::string>> publish_set(const std::string& stem,
                                             const std::vector<std::vector<std::string>>& shard_objects,
                                             uint64_t total_size, bool durable, const PublishShard& publish_shard);

// Publishes one file as NAME.zt (`publish` renames it there), under the set
// lock, then removes an earlier set's index and shards.
Status publish_single(const std::string& stem, const std::function<Status()>& publish);

// Removes the staging folders of NAME whose writer is gone (its lock file
// is not held). Call with the set lock held.
void sweep_staging(const std::string& stem);

}  // namespace zt
