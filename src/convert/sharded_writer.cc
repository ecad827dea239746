#include "ztensor/sharded_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <algorithm>
#include <filesystem>
#include <set>
#include <string_view>

#include "ztensor/test_pause.h"
#include "convert/set_publish.h"
#include "common/atomic_file.h"

namespace zt {
namespace {

// Where a one-shard result goes: the path given, or NAME.zt for an index.
std::string single_path(const std::string& path) {
  const std::string stem = set_stem(path);
  return stem == path ? path : stem + ".zt";
}

// Renames a staged shard onto `dest`, as AtomicFile::publish renames its
// temporary (the folder fsynced when durable).
Status rename_staged(const std::string& staged, const std::string& dest, bool durable) {
  if (::rename(staged.c_str(), dest.c_str()) != 0)
    return Status(ErrorCode::io_error, "cannot rename staged shard '" + staged + "' onto '" + dest +
                                           "': " + std::strerror(errno));
  const int dfd = durable ? ::open(path_folder(dest).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  if (dfd >= 0) {  // best effort on odd filesystems
    ::fsync(dfd);
    ::close(dfd);
  }
  return Status::Ok();
}

uint64_t decoded_size(const ObjectSpec& object) {
  uint64_t n = 0;
  for (const auto& c : object.components) n += c.decoded_size();
  return n;
}

}  // namespace

Result<uint64_t> parse_byte_size(std::string_view text) {
  const auto bad = [&] {
    return Status(ErrorCode::invalid_argument, "size '" + std::string(text) +
                                                   "' is not an integer count of bytes or an integer followed by "
                                                   "KB, MB, GB, TB, KiB, MiB, GiB or TiB (e.g. '5GB')");
  };
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return bad();
  uint64_t n = 0;
  for (size_t i = 0; i < digits; ++i) {
    if (n > (UINT64_MAX - 9) / 10) return bad();
    n = n * 10 + static_cast<uint64_t>(text[i] - '0');
  }
  std::string_view unit = text.substr(digits);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (unit.empty()) return n;
  std::string upper(unit);
  for (char& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  struct Unit {
    const char* name;
    uint64_t bytes;
  };
  static constexpr Unit kUnits[] = {{"KB", 1000ull},          {"MB", 1000ull * 1000},
                                    {"GB", 1000ull * 1000 * 1000}, {"TB", 1000ull * 1000 * 1000 * 1000},
                                    {"KIB", 1ull << 10},       {"MIB", 1ull << 20},
                                    {"GIB", 1ull << 30},       {"TIB", 1ull << 40}};
  for (const Unit& u : kUnits) {
    if (upper != u.name) continue;
    if (n > UINT64_MAX / u.bytes) return bad();
    const bool bits = upper.size() == 2 && unit.back() == 'b';  // transformers: "5Gb" is gigabits
    return bits ? n * u.bytes / 8 : n * u.bytes;
  }
  return bad();
}

std::vector<std::vector<size_t>> plan_shards(const std::vector<uint64_t>& object_sizes, uint64_t max_shard_size) {
  std::vector<std::vector<size_t>> shards(1);
  uint64_t current = 0;
  for (size_t i = 0; i < object_sizes.size(); ++i) {
    if (starts_new_shard(max_shard_size, current, shards.back().empty(), object_sizes[i])) {
      shards.emplace_back();
      current = 0;
    }
    shards.back().push_back(i);
    current += object_sizes[i];
  }
  return shards;
}

Result<std::vector<std::string>> publish_staged_shards(const std::string& path, const std::vector<std::string>& staged,
                                                       const std::vector<std::vector<std::string>>& shard_objects,
                                                       uint64_t total_size, bool durable) {
  if (staged.empty() || staged.size() != shard_objects.size())
    return Status(ErrorCode::invalid_argument, "publish of '" + path + "': " + std::to_string(staged.size()) +
                                                   " staged shards for " + std::to_string(shard_objects.size()) +
                                                   " lists of objects");
  test_pause("set:staged-publish");
  const std::string stem = set_stem(path);
  if (staged.size() == 1) {
    const std::string single = single_path(path);
    ZT_RETURN_IF_ERROR(publish_single(stem, [&] { return rename_staged(staged[0], single, durable); }));
    return std::vector<std::string>{single};
  }
  if (path_base(stem).empty())
    return Status(ErrorCode::invalid_argument, "'" + path + "' names no file to write the model to");
  return publish_set(stem, shard_objects, total_size, durable, [&](size_t i, const std::string& dest) {
    return rename_staged(staged[i], dest, durable);
  });
}

Result<std::unique_ptr<ShardedWriter>> ShardedWriter::create(const std::string& path, Value attributes,
                                                             uint64_t max_shard_size, bool durable) {
  std::unique_ptr<ShardedWriter> w(new ShardedWriter());
  w->stem_ = set_stem(path);
  w->single_ = single_path(path);
  if (max_shard_size != 0 && path_base(w->stem_).empty())
    return Status(ErrorCode::invalid_argument, "'" + path + "' names no file to write the model to");
  w->attributes_ = std::move(attributes);
  w->max_shard_size_ = max_shard_size;
  w->durable_ = durable;
  ZT_RETURN_IF_ERROR(w->start_shard());  // an unwritable folder fails here, as Writer::create does
  return w;
}

ShardedWriter::~ShardedWriter() { abort(); }

void ShardedWriter::abort() {
  for (auto& s : shards_) s->abort();
  shards_.clear();
  shard_objects_.clear();
}

Status ShardedWriter::start_shard() {
  // The final names need the shard count: until finish() a shard's
  // temporary is named after its number alone.
  const std::string provisional =
      max_shard_size_ == 0 ? single_ : stem_ + "-" + shard_number_text(shards_.size() + 1) + ".zt";
  if (!shards_.empty()) ZT_RETURN_IF_ERROR(shards_.back()->seal());
  ZT_ASSIGN_OR_RETURN(auto w, Writer::create(provisional, attributes_, durable_));
  shards_.push_back(std::move(w));
  shard_objects_.emplace_back();
  current_size_ = 0;
  return Status::Ok();
}

Status ShardedWriter::add(const ObjectSpec& object) {
  if (shards_.empty()) return Status(ErrorCode::invalid_argument, "sharded writer is closed");
  if (names_.count(object.name))
    return Status(ErrorCode::invalid_argument, "object '" + object.name + "' was already added");
  const uint64_t size = decoded_size(object);
  if (starts_new_shard(max_shard_size_, current_size_, shard_objects_.back().empty(), size)) {
    Status s = start_shard();
    if (!s.ok()) {
      abort();
      return s;
    }
  }
  ZT_RETURN_IF_ERROR(shards_.back()->add(object));
  names_.insert(object.name);
  shard_objects_.back().push_back(object.name);
  current_size_ += size;
  total_size_ += size;
  return Status::Ok();
}

Result<std::vector<std::string>> ShardedWriter::finish() {
  if (shards_.empty()) return Status(ErrorCode::invalid_argument, "sharded writer is closed");
  Status s = shards_.back()->seal();
  if (s.ok() && shards_.size() == 1) s = publish_single(stem_, [this] { return shards_[0]->publish(single_); });
  if (!s.ok() || shards_.size() == 1) {
    abort();
    if (!s.ok()) return s;
    return std::vector<std::string>{single_};
  }
  auto files = publish_set(stem_, shard_objects_, total_size_, durable_, [this](size_t i, const std::string& dest) {
    return shards_[i]->publish(dest);
  });
  if (!files.ok()) {
    abort();
    return files.status();
  }
  shards_.clear();
  shard_objects_.clear();
  return files;
}

}  // namespace zt
