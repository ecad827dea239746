#include "ztensor/sharded_writer.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <set>
#include <string_view>

#include "convert/shard_index.h"
#include "ztensor/atomic_file.h"

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

Result<std::unique_ptr<ShardedWriter>> ShardedWriter::create(const std::string& path, Value attributes,
                                                             uint64_t max_shard_size, bool durable) {
  std::unique_ptr<ShardedWriter> w(new ShardedWriter());
  if (ends_with(path, ".zt.index.json")) {
    w->stem_ = path.substr(0, path.size() - std::string_view(".zt.index.json").size());
    w->single_ = w->stem_ + ".zt";
  } else {
    w->stem_ = ends_with(path, ".zt") ? path.substr(0, path.size() - 3) : path;
    w->single_ = path;
  }
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
  // current + size > limit, without overflow.
  const bool overflows = size > max_shard_size_ - std::min(max_shard_size_, current_size_);
  if (max_shard_size_ != 0 && !shard_objects_.back().empty() && overflows) {
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
    // NAME.zt replaces an earlier sharded NAME: its index goes first, so a
    // reader finds either that whole set or no index, then its shards.
    ::unlink((stem_ + ".zt.index.json").c_str());
    remove_stale_shards(stem_, {});
    return std::vector<std::string>{single_};
  }
  const size_t n = shards_.size();
  const std::string base = base_name(stem_);
  const std::string folder_prefix = stem_.substr(0, stem_.size() - base.size());  // "" or ".../"
  std::vector<std::string> files;
  std::map<std::string, std::string> weight_map;
  for (size_t i = 0; i < n; ++i) {
    const std::string name = shard_file_name(base, i + 1, n);
    files.push_back(folder_prefix + name);
    for (const auto& object : shard_objects_[i]) weight_map.emplace(object, name);
  }
  const std::string index_path = stem_ + ".zt.index.json";
  // The index is written before any shard is published, so a failure here
  // still publishes nothing.
  auto index = [&]() -> Result<std::unique_ptr<AtomicFile>> {
    ZT_ASSIGN_OR_RETURN(std::string json, shard_index_json(total_size_, weight_map));
    ZT_ASSIGN_OR_RETURN(auto f, AtomicFile::create(index_path, durable_));
    ZT_RETURN_IF_ERROR(f->write({reinterpret_cast<const uint8_t*>(json.data()), json.size()}));
    ZT_RETURN_IF_ERROR(f->seal());
    return f;
  }();
  if (!index.ok()) {
    abort();
    return index.status();
  }
  // An earlier set's index would name the new shards as they are renamed
  // over the old ones one by one (a mixed set): drop it before the first.
  ::unlink(index_path.c_str());
  size_t published = 0;
  while (published < n && (s = shards_[published]->publish(files[published])).ok()) ++published;
  if (s.ok()) s = index.value()->publish();
  if (!s.ok()) {  // take back what was renamed: a partial set must not stay visible
    for (size_t i = 0; i < published; ++i) ::unlink(files[i].c_str());
    abort();
    return s;
  }
  shards_.clear();
  shard_objects_.clear();
  std::set<std::string> current;
  for (const auto& f : files) current.insert(base_name(f));
  ::unlink(single_.c_str());  // a single NAME.zt of an earlier write would shadow the set
  remove_stale_shards(stem_, current);
  files.push_back(index_path);
  return files;
}

}  // namespace zt
