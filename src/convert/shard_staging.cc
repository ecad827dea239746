#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "convert/set_publish.h"
#include "ztensor/sharded_writer.h"

namespace zt {
namespace {

// Tries at removing a staging folder: a cancelled task may still create a
// file in it after a removal listed it; once the folder is gone it can
// create nothing (its writer fails and drops its temporary).
constexpr int kStagingRemoveAttempts = 20;

}  // namespace

Result<std::unique_ptr<ShardStaging>> ShardStaging::create(const std::string& path) {
  const std::string stem = set_stem(path);
  if (stem.empty() || stem.back() == '/')
    return Status(ErrorCode::invalid_argument, "'" + path + "' names no file to write the model to");
  const std::string folder = path_folder(stem);
  // Under the set lock: a sweep by another writer never sees this folder
  // before its lock file is held.
  ZT_ASSIGN_OR_RETURN(SetLock lock, SetLock::acquire(stem));
  sweep_staging(stem);
  std::string name = folder + "/" + staging_prefix(stem) + "XXXXXX";
  std::vector<char> buf(name.begin(), name.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data()))
    return Status::from_errno(ErrorCode::io_error, "cannot create a staging folder for the shards of '" + path +
                                                       "' in '" + folder + "'", errno);
  std::unique_ptr<ShardStaging> s(new ShardStaging());
  s->folder_ = buf.data();
  const std::string lock_path = s->folder_ + "/lock";
  s->lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (s->lock_fd_ < 0 || ::flock(s->lock_fd_, LOCK_EX | LOCK_NB) != 0)
    return Status::from_errno(ErrorCode::io_error, "cannot lock the staging folder '" + s->folder_ + "'", errno);
  return s;
}

ShardStaging::~ShardStaging() {
  std::error_code ec;
  for (int i = 0; i < kStagingRemoveAttempts && !folder_.empty(); ++i) {
    std::filesystem::remove_all(folder_, ec);
    if (!std::filesystem::exists(folder_, ec)) break;
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

}  // namespace zt
