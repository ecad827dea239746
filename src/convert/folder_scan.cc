#include "convert/folder_scan.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>

namespace zt {
namespace {

namespace fs = std::filesystem;

// huggingface_hub's cache keeps a revision as <repo>/snapshots/<revision>/,
// whose files are relative links to <repo>/blobs/<hash>.
constexpr std::string_view kHfSnapshotsFolder = "snapshots";
constexpr std::string_view kHfBlobsFolder = "blobs";
// Subfolders deeper than this are refused (the walk recurses once per level).
constexpr int kMaxFolderDepth = 64;

const char* special_kind(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  return "not a regular file or folder";
}

// Whether canonical `p` is `root` or lies under it (both canonical).
bool lies_under(const fs::path& p, const fs::path& root) {
  auto it = p.begin();
  for (const auto& part : root) {
    if (it == p.end() || *it != part) return false;
    ++it;
  }
  return true;
}

class Scanner {
 public:
  Scanner(std::string in_dir, fs::path real_in, fs::path blobs, fs::path skip)
      : in_dir_(std::move(in_dir)), real_in_(std::move(real_in)), blobs_(std::move(blobs)), skip_(std::move(skip)) {}

  Status walk(const std::string& rel_dir, int depth) {
    if (depth > kMaxFolderDepth)
      return Status(ErrorCode::limit_exceeded, where(rel_dir) + "nests folders deeper than " +
                                                   std::to_string(kMaxFolderDepth) + " levels");
    std::error_code ec;
    std::vector<std::string> names;
    const std::string dir = rel_dir.empty() ? in_dir_ : in_dir_ + "/" + rel_dir;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      names.push_back(it->path().filename().string());
    if (ec) return Status(ErrorCode::io_error, "cannot list folder '" + dir + "': " + ec.message());
    std::sort(names.begin(), names.end());
    for (const auto& name : names) ZT_RETURN_IF_ERROR(add(rel_dir.empty() ? name : rel_dir + "/" + name, depth));
    return Status::Ok();
  }

  std::vector<FolderEntry> entries;

 private:
  std::string where(const std::string& rel) const { return "model folder '" + in_dir_ + "': '" + rel + "' "; }

  Status add(const std::string& rel, int depth) {
    FolderEntry e{rel, in_dir_ + "/" + rel, false, depth == 0};
    struct stat st {};
    if (::lstat(e.path.c_str(), &st) != 0)
      return Status::from_errno(ErrorCode::io_error, "cannot stat '" + e.path + "'", errno);
    if (S_ISDIR(st.st_mode)) {
      std::error_code ec;
      if (!skip_.empty() && fs::equivalent(e.path, skip_, ec)) return Status::Ok();  // the output, inside the input
      e.folder = true;
      entries.push_back(e);
      return walk(rel, depth + 1);
    }
    if (S_ISLNK(st.st_mode)) ZT_RETURN_IF_ERROR(check_link(rel, e.path));
    else if (!S_ISREG(st.st_mode))
      return Status(ErrorCode::unsupported, where(rel) + "is " + special_kind(st.st_mode) +
                                                ": folder conversion copies regular files only");
    entries.push_back(std::move(e));
    return Status::Ok();
  }

  // A link is read through, so what it reaches must be a regular file this
  // folder may hand out (see folder_scan.h).
  Status check_link(const std::string& rel, const std::string& path) const {
    struct stat target {};
    if (::stat(path.c_str(), &target) != 0)
      return Status::from_errno(ErrorCode::io_error, where(rel) + "is a link that cannot be followed", errno);
    if (S_ISDIR(target.st_mode))
      return Status(ErrorCode::unsupported, where(rel) + "is a link to a folder: folder conversion follows links "
                                                         "to files only (copy the folder in instead)");
    if (!S_ISREG(target.st_mode))
      return Status(ErrorCode::unsupported, where(rel) + "is a link to " + special_kind(target.st_mode) +
                                                ": folder conversion copies regular files only");
    std::error_code ec;
    const fs::path real = fs::canonical(path, ec);
    if (ec) return Status(ErrorCode::io_error, where(rel) + "is a link that cannot be resolved: " + ec.message());
    if (lies_under(real, real_in_) || (!blobs_.empty() && lies_under(real, blobs_))) return Status::Ok();
    return Status(ErrorCode::invalid_structure,
                  where(rel) + "is a link to '" + real.string() +
                      "', outside the folder: its content would be copied into the output (only links inside "
                      "the folder, or from a Hugging Face cache snapshot into its blobs/, are followed)");
  }

  std::string in_dir_;
  fs::path real_in_, blobs_, skip_;
};

}  // namespace

Result<std::vector<FolderEntry>> scan_model_folder(const std::string& in_dir, const std::string& skip) {
  std::error_code ec;
  const fs::path real_in = fs::canonical(in_dir, ec);
  if (ec) return Status(ErrorCode::io_error, "cannot resolve model folder '" + in_dir + "': " + ec.message());
  fs::path blobs;
  if (real_in.parent_path().filename() == kHfSnapshotsFolder) {
    blobs = fs::canonical(real_in.parent_path().parent_path() / kHfBlobsFolder, ec);
    if (ec) blobs.clear();  // not a cache after all: no blobs/ beside snapshots/
  }
  fs::path skip_path;
  if (!skip.empty() && fs::exists(skip, ec)) skip_path = skip;
  Scanner scanner(in_dir, real_in, blobs, skip_path);
  ZT_RETURN_IF_ERROR(scanner.walk("", 0));
  return std::move(scanner.entries);
}

}  // namespace zt
