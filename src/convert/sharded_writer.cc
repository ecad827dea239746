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

#include "convert/shard_index.h"
#include "common/atomic_file.h"

namespace zt {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string shard_number(size_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*zu", kShardNumberDigits, i);
  return buf;
}

// "model-00002-of-00005.zt" for shard 2 of 5 (1-based, as transformers).
std::string shard_file_name(const std::string& base, size_t i, size_t n) {
  return base + "-" + shard_number(i) + "-of-" + shard_number(n) + ".zt";
}

std::string base_name(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string dir_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

// NAME-?????-of-?????.zt: a shard of some set under NAME.
bool is_shard_of(const std::string& file, const std::string& base) {
  const std::string_view rest = std::string_view(file).substr(std::min(file.size(), base.size()));
  constexpr size_t kDigits = kShardNumberDigits;
  if (file.compare(0, base.size(), base) != 0 || rest.size() != 1 + kDigits + 4 + kDigits + 3) return false;
  auto digits = [](std::string_view s) {
    for (char c : s)
      if (c < '0' || c > '9') return false;
    return true;
  };
  return rest[0] == '-' && digits(rest.substr(1, kDigits)) && rest.substr(1 + kDigits, 4) == "-of-" &&
         digits(rest.substr(5 + kDigits, kDigits)) && rest.substr(5 + 2 * kDigits) == ".zt";
}

// Removes NAME-?????-of-?????.zt files of an earlier set that are not in
// `keep`: beside a new set (or a new single NAME.zt) they would look like
// part of it. Best effort: what was just published is already complete.
void remove_stale_shards(const std::string& stem, const std::set<std::string>& keep) {
  const std::string base = base_name(stem);
  if (base.empty()) return;
  try {
    for (const auto& entry : std::filesystem::directory_iterator(dir_of(stem))) {
      const std::string name = entry.path().filename().string();
      if (is_shard_of(name, base) && !keep.count(name)) ::unlink(entry.path().c_str());
    }
  } catch (const std::filesystem::filesystem_error&) {
  }
}

// A single NAME.zt replaces an earlier sharded NAME: its index goes first,
// so a reader finds either that whole set or no index, then its shards.
void drop_earlier_set(const std::string& stem) {
  ::unlink((stem + ".zt.index.json").c_str());
  remove_stale_shards(stem, {});
}

// NAME (with its folder) and where a one-shard result goes, from the
// path given: NAME.zt or NAME.zt.index.json.
struct SetNames {
  std::string stem, single;
};
SetNames set_names(const std::string& path) {
  if (ends_with(path, ".zt.index.json")) {
    const std::string stem = path.substr(0, path.size() - std::string_view(".zt.index.json").size());
    return {stem, stem + ".zt"};
  }
  return {ends_with(path, ".zt") ? path.substr(0, path.size() - 3) : path, path};
}

// Publishes a complete set of n > 1 shards under `stem`: the index (shard
// i holds shard_objects[i]) is written first, then publish_shard(i, final
// name) renames each shard into place, the index last; shards of an earlier
// set under the same stem are removed. On error the shards already renamed
// are removed again. Returns the shards then the index.
Result<std::vector<std::string>> publish_set(const std::string& stem,
                                             const std::vector<std::vector<std::string>>& shard_objects,
                                             uint64_t total_size, bool durable,
                                             const std::function<Status(size_t, const std::string&)>& publish_shard) {
  const size_t n = shard_objects.size();
  const std::string base = base_name(stem);
  const std::string folder_prefix = stem.substr(0, stem.size() - base.size());  // "" or ".../"
  std::vector<std::string> files;
  std::map<std::string, std::string> weight_map;
  for (size_t i = 0; i < n; ++i) {
    const std::string name = shard_file_name(base, i + 1, n);
    files.push_back(folder_prefix + name);
    for (const auto& object : shard_objects[i]) weight_map.emplace(object, name);
  }
  const std::string index_path = stem + ".zt.index.json";
  // The index is written before any shard is published, so a failure here
  // still publishes nothing.
  ZT_ASSIGN_OR_RETURN(std::string json, shard_index_json(total_size, weight_map));
  ZT_ASSIGN_OR_RETURN(auto index, AtomicFile::create(index_path, durable));
  ZT_RETURN_IF_ERROR(index->write({reinterpret_cast<const uint8_t*>(json.data()), json.size()}));
  ZT_RETURN_IF_ERROR(index->seal());
  // An earlier set's index would name the new shards as they are renamed
  // over the old ones one by one (a mixed set): drop it before the first.
  ::unlink(index_path.c_str());
  Status s;
  size_t published = 0;
  while (published < n && (s = publish_shard(published, files[published])).ok()) ++published;
  if (s.ok()) s = index->publish();
  if (!s.ok()) {  // take back what was renamed: a partial set must not stay visible
    for (size_t i = 0; i < published; ++i) ::unlink(files[i].c_str());
    return s;
  }
  // Shards of an earlier set with another count would sit beside the new
  // set looking like part of it, and a single NAME.zt of an earlier write
  // would shadow it; the new index is in place, so drop them.
  std::set<std::string> current;
  for (const auto& f : files) current.insert(base_name(f));
  ::unlink((stem + ".zt").c_str());
  remove_stale_shards(stem, current);
  files.push_back(index_path);
  return files;
}

// Renames a staged shard onto `dest`, as AtomicFile::publish renames its
// temporary (the folder fsynced when durable).
Status rename_staged(const std::string& staged, const std::string& dest, bool durable) {
  if (::rename(staged.c_str(), dest.c_str()) != 0)
    return Status(ErrorCode::io_error, "cannot rename staged shard '" + staged + "' onto '" + dest +
                                           "': " + std::strerror(errno));
  const int dfd = durable ? ::open(dir_of(dest).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
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
  const SetNames names = set_names(path);
  if (staged.size() == 1) {
    ZT_RETURN_IF_ERROR(rename_staged(staged[0], names.single, durable));
    drop_earlier_set(names.stem);
    return std::vector<std::string>{names.single};
  }
  if (base_name(names.stem).empty())
    return Status(ErrorCode::invalid_argument, "'" + path + "' names no file to write the model to");
  return publish_set(names.stem, shard_objects, total_size, durable, [&](size_t i, const std::string& dest) {
    return rename_staged(staged[i], dest, durable);
  });
}

Result<std::unique_ptr<ShardedWriter>> ShardedWriter::create(const std::string& path, Value attributes,
                                                             uint64_t max_shard_size, bool durable) {
  std::unique_ptr<ShardedWriter> w(new ShardedWriter());
  const SetNames names = set_names(path);
  w->stem_ = names.stem;
  w->single_ = names.single;
  if (max_shard_size != 0 && base_name(w->stem_).empty())
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
      max_shard_size_ == 0 ? single_ : stem_ + "-" + shard_number(shards_.size() + 1) + ".zt";
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
  if (s.ok() && shards_.size() == 1) s = shards_[0]->publish(single_);
  if (!s.ok() || shards_.size() == 1) {
    abort();
    if (!s.ok()) return s;
    drop_earlier_set(stem_);
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
