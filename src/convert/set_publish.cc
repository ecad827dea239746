#include "convert/set_publish.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string_view>

#include "ztensor/test_pause.h"
#include "convert/shard_index.h"
#include "common/atomic_file.h"
#include "ztensor/sharded_writer.h"

namespace zt {
namespace {

// What follows a shard's number in a pending name, and the tag's length.
constexpr std::string_view kPendingMarker = "-pending-";
constexpr size_t kTagHexDigits = 8;
// Each retry of the set lock means another writer released it meanwhile
// (and removed the file we had opened); this many in a row is a fault.
constexpr int kMaxLockAttempts = 1000;
// The lock file inside a staging folder, held by the writer that made it.
constexpr const char* kStagingLockName = "lock";

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// "model-00002-of-00005.zt" for shard 2 of 5 (1-based, as transformers).
std::string shard_file_name(const std::string& base, size_t i, size_t n) {
  return base + "-" + shard_number_text(i) + "-of-" + shard_number_text(n) + ".zt";
}

std::string pending_file_name(const std::string& base, size_t i, size_t n, const std::string& tag) {
  return base + "-" + shard_number_text(i) + "-of-" + shard_number_text(n) + std::string(kPendingMarker) + tag + ".zt";
}

bool all_of_class(std::string_view s, int (*is)(int)) {
  return std::all_of(s.begin(), s.end(), [is](char c) { return is(static_cast<unsigned char>(c)) != 0; });
}

// NAME-?????-of-?????.zt, or its pending form: a shard of some set of NAME.
bool is_set_file(const std::string& file, const std::string& base) {
  if (file.compare(0, base.size(), base) != 0 || !ends_with(file, ".zt")) return false;
  const std::string_view rest = std::string_view(file).substr(base.size(), file.size() - base.size() - 3);
  constexpr size_t k = kShardNumberDigits;
  if (rest.size() < 5 + 2 * k || rest[0] != '-' || !all_of_class(rest.substr(1, k), isdigit) ||
      rest.substr(1 + k, 4) != "-of-" || !all_of_class(rest.substr(5 + k, k), isdigit))
    return false;
  const std::string_view tail = rest.substr(5 + 2 * k);
  return tail.empty() || (tail.size() == kPendingMarker.size() + kTagHexDigits && tail.starts_with(kPendingMarker) &&
                          all_of_class(tail.substr(kPendingMarker.size()), isxdigit));
}

std::string random_tag() {
  static thread_local std::mt19937 rng(std::random_device{}());
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(rng()));
  return buf;
}

Status io_error(const std::string& what, const std::string& path) {
  return Status::from_errno(ErrorCode::io_error, what + " '" + path + "'", errno);
}

void sync_dir(const std::string& dir, bool durable) {
  const int dfd = durable ? ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  if (dfd >= 0) {  // best effort on odd filesystems, as AtomicFile::publish
    ::fsync(dfd);
    ::close(dfd);
  }
}

// The shard files the index at `path` names now (empty: none, or unreadable).
std::set<std::string> files_named_by(const std::string& index_path) {
  struct stat st {};
  if (::stat(index_path.c_str(), &st) != 0) return {};
  auto index = read_shard_index(index_path, kZtIndexKind, kZtIndexNoun);
  return index.ok() ? index.value().files : std::set<std::string>{};
}

// The index naming shard i `names[i]`, sealed but not yet published.
Result<std::unique_ptr<AtomicFile>> sealed_index(const std::string& path,
                                                 const std::vector<std::vector<std::string>>& shard_objects,
                                                 const std::vector<std::string>& names, uint64_t total_size,
                                                 bool durable) {
  std::map<std::string, std::string> weight_map;
  for (size_t i = 0; i < names.size(); ++i)
    for (const auto& object : shard_objects[i]) weight_map.emplace(object, names[i]);
  ZT_ASSIGN_OR_RETURN(std::string json, shard_index_json(total_size, weight_map));
  ZT_ASSIGN_OR_RETURN(auto index, AtomicFile::create(path, durable));
  ZT_RETURN_IF_ERROR(index->write({reinterpret_cast<const uint8_t*>(json.data()), json.size()}));
  ZT_RETURN_IF_ERROR(index->seal());
  return index;
}

// Replaces each final name by a hard link to its pending shard (a link
// under a temporary name, renamed over the old shard), so the index that
// names the pending shards stays whole throughout. Errors: io_error (a
// filesystem without hard links among them).
Status promote(const std::string& prefix, const std::vector<std::string>& pending,
               const std::vector<std::string>& final_names, bool durable) {
  for (size_t i = 0; i < pending.size(); ++i) {
    const std::string dest = prefix + final_names[i];
    const std::string tmp = AtomicFile::temporary_name(dest, static_cast<long>(::getpid()));
    if (::link((prefix + pending[i]).c_str(), tmp.c_str()) != 0) return io_error("cannot link a shard to", tmp);
    if (::rename(tmp.c_str(), dest.c_str()) != 0) {
      Status s = io_error("cannot rename a shard onto", dest);
      ::unlink(tmp.c_str());
      return s;
    }
  }
  sync_dir(prefix.empty() ? "." : prefix, durable);
  return Status::Ok();
}

// Removes the files of NAME's sets that `keep` does not name, and the
// staging folders of dead writers. Best effort: the set is already whole.
void remove_leftovers(const std::string& stem, const std::set<std::string>& keep) {
  const std::string base = path_base(stem);
  std::error_code ec;
  for (std::filesystem::directory_iterator it(path_folder(stem), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (is_set_file(name, base) && !keep.count(name)) ::unlink(it->path().c_str());
  }
  sweep_staging(stem);
}

}  // namespace

std::string path_base(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string path_folder(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

std::string shard_number_text(size_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*zu", kShardNumberDigits, i);
  return buf;
}

std::string set_stem(const std::string& path) {
  if (ends_with(path, ".zt.index.json")) return path.substr(0, path.size() - std::string_view(".zt.index.json").size());
  return ends_with(path, ".zt") ? path.substr(0, path.size() - 3) : path;
}

std::string set_lock_path(const std::string& stem) { return stem + ".zt.lock"; }

std::string staging_prefix(const std::string& stem) { return "." + path_base(stem) + ".zt.shards-"; }

Result<SetLock> SetLock::acquire(const std::string& stem) {
  const std::string path = set_lock_path(stem);
  for (int attempt = 0; attempt < kMaxLockAttempts; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return io_error("cannot open the set lock", path);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      test_pause("set:lock-busy");  // another writer of NAME is publishing
      while (::flock(fd, LOCK_EX) != 0) {
        if (errno == EINTR) continue;
        Status s = io_error("cannot lock", path);
        ::close(fd);
        return s;
      }
    }
    // The holder before us removes the file on release: a lock on a file no
    // longer at `path` excludes no one, so take the one that is there now.
    struct stat held {}, now {};
    if (::fstat(fd, &held) == 0 && ::stat(path.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino)
      return SetLock(fd, path);
    ::close(fd);
  }
  return Status(ErrorCode::io_error, "cannot take the set lock '" + path + "': it changed hands " +
                                         std::to_string(kMaxLockAttempts) + " times in a row");
}

SetLock::~SetLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // before the close, while we still hold it
  ::close(fd_);
}

Result<std::vector<std::string>> publish_set(const std::string& stem,
                                             const std::vector<std::vector<std::string>>& shard_objects,
                                             uint64_t total_size, bool durable, const PublishShard& publish_shard) {
  const size_t n = shard_objects.size();
  const std::string base = path_base(stem);
  const std::string prefix = stem.substr(0, stem.size() - base.size());  // "" or ".../"
  const std::string index_path = stem + ".zt.index.json";
  std::vector<std::string> final_names(n);
  for (size_t i = 0; i < n; ++i) final_names[i] = shard_file_name(base, i + 1, n);

  ZT_ASSIGN_OR_RETURN(SetLock lock, SetLock::acquire(stem));
  const std::set<std::string> live = files_named_by(index_path);
  const bool reuse = std::any_of(final_names.begin(), final_names.end(), [&](const auto& f) { return live.count(f); });
  std::vector<std::string> placed = final_names;
  if (reuse) {
    const std::string tag = random_tag();
    for (size_t i = 0; i < n; ++i) placed[i] = pending_file_name(base, i + 1, n, tag);
  }
  // Sealed before any shard moves, so a failure here publishes nothing.
  ZT_ASSIGN_OR_RETURN(auto index, sealed_index(index_path, shard_objects, placed, total_size, durable));
  Status s;
  size_t moved = 0;
  while (moved < n && (s = publish_shard(moved, prefix + placed[moved])).ok()) {
    ++moved;
    test_pause("set:shard-placed");
  }
  if (s.ok()) s = index->publish();  // the switch: readers now find the new set
  if (!s.ok()) {  // take back what was renamed: a partial set must not stay visible
    for (size_t i = 0; i < moved; ++i) ::unlink((prefix + placed[i]).c_str());
    return s;
  }
  const std::vector<std::string>* current = &placed;
  if (reuse) {
    test_pause("set:pending-index");
    // Where hard links fail, the set stays published under its pending names.
    if (promote(prefix, placed, final_names, durable).ok()) {
      auto final_index = sealed_index(index_path, shard_objects, final_names, total_size, durable);
      if (final_index.ok() && final_index.value()->publish().ok()) current = &final_names;
    }
  }
  test_pause("set:published");
  // Whatever else is under NAME (a single NAME.zt, shards of an earlier set,
  // pending shards) would look like part of the set or shadow it.
  ::unlink((stem + ".zt").c_str());
  remove_leftovers(stem, std::set<std::string>(current->begin(), current->end()));
  std::vector<std::string> files;
  for (const auto& name : *current) files.push_back(prefix + name);
  files.push_back(index_path);
  return files;
}

Status publish_single(const std::string& stem, const std::function<Status()>& publish) {
  ZT_ASSIGN_OR_RETURN(SetLock lock, SetLock::acquire(stem));
  ZT_RETURN_IF_ERROR(publish());
  // The index goes first, so a reader finds either the whole earlier set or
  // no index, then its shards.
  ::unlink((stem + ".zt.index.json").c_str());
  remove_leftovers(stem, {});
  return Status::Ok();
}

void sweep_staging(const std::string& stem) {
  const std::string prefix = staging_prefix(stem);
  std::error_code ec;
  std::vector<std::filesystem::path> stale;
  for (std::filesystem::directory_iterator it(path_folder(stem), ec), end; !ec && it != end; it.increment(ec)) {
    const auto& entry = *it;
    std::error_code kind;
    if (!entry.path().filename().string().starts_with(prefix) || entry.is_symlink(kind) || !entry.is_directory(kind))
      continue;
    const int fd = ::open((entry.path() / kStagingLockName).c_str(), O_RDWR | O_CLOEXEC);
    const bool held = fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    if (fd >= 0) ::close(fd);
    if (!held) stale.push_back(entry.path());  // no lock file, or its writer is gone
  }
  for (const auto& folder : stale) std::filesystem::remove_all(folder, ec);
}

}  // namespace zt
