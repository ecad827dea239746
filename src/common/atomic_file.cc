#include "common/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>  // O_TMPFILE, sync_file_range (Linux)
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string_view>

namespace zt {
namespace {

Status io_error(const std::string& what, const std::string& path) {
  return Status::from_errno(ErrorCode::io_error, what + " '" + path + "'", errno);
}

std::string dir_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// 8 hex digits naming this host, so a writer on another machine sharing the
// folder (NFS) never has its temporaries judged by our process table.
const std::string& host_tag() {
  static const std::string tag = [] {
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    uint32_t h = 2166136261u;  // FNV-1a
    for (const char* p = name; *p; ++p) h = (h ^ static_cast<uint8_t>(*p)) * 16777619u;
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", h);
    return std::string(buf);
  }();
  return tag;
}

std::string own_temporary_name(const std::string& dest) { return AtomicFile::temporary_name(dest, ::getpid()); }

bool all_hex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// The writer pid of "<dest>.tmp-<pid>-<host>-<random>" when the name is ours
// and was made on this host, else 0.
long temporary_owner(std::string_view name) {
  auto at = name.rfind(AtomicFile::kTempMarker);
  if (at == std::string_view::npos || at == 0) return 0;
  std::string_view rest = name.substr(at + std::strlen(AtomicFile::kTempMarker));
  auto d1 = rest.find('-');
  auto d2 = d1 == std::string_view::npos ? d1 : rest.find('-', d1 + 1);
  if (d2 == std::string_view::npos) return 0;
  std::string_view pid = rest.substr(0, d1), host = rest.substr(d1 + 1, d2 - d1 - 1), rnd = rest.substr(d2 + 1);
  if (pid.empty() || pid.size() > 9 || !std::all_of(pid.begin(), pid.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return 0;
  if (host != host_tag() || rnd.size() != 8 || !all_hex(rnd)) return 0;
  return std::strtol(std::string(pid).c_str(), nullptr, 10);
}

// A writer killed with SIGKILL cannot remove its named temporary; the next
// writer into the folder does, once that writer's pid is gone.
void remove_stale_temporaries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;  // the create that follows reports the problem
  const int saved = errno;
  while (const dirent* e = ::readdir(d)) {
    long pid = temporary_owner(e->d_name);
    if (pid <= 0 || pid == static_cast<long>(::getpid())) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    ::unlinkat(::dirfd(d), e->d_name, 0);
  }
  ::closedir(d);
  errno = saved;
}

}  // namespace

std::string AtomicFile::temporary_name(const std::string& dest_path, long pid) {
  static thread_local std::mt19937 rng(std::random_device{}());
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, "%s%ld-%s-%08x", kTempMarker, pid, host_tag().c_str(),
                static_cast<unsigned>(rng()));
  return dest_path + suffix;
}

Result<std::unique_ptr<AtomicFile>> AtomicFile::create(const std::string& dest_path, bool durable) {
  std::unique_ptr<AtomicFile> f(new AtomicFile());
  f->durable_ = durable;
  f->dest_ = dest_path;
  const std::string dir = dir_of(dest_path);
  remove_stale_temporaries(dir);
  // An unnamed inode in the destination's folder: if this process is killed,
  // the kernel frees it and nothing is left behind. commit() names it.
  // linkat through /proc/self/fd needs procfs; without it, or on a
  // filesystem without O_TMPFILE, a named temporary is used instead.
#ifdef O_TMPFILE
  if (::access("/proc/self/fd", X_OK) == 0) {
    f->fd_ = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    f->unnamed_ = f->fd_ >= 0;
  }
#endif
  if (f->fd_ < 0) {
    for (int attempt = 0; attempt < 16 && f->fd_ < 0; ++attempt) {
      f->tmp_ = own_temporary_name(dest_path);
      f->fd_ = ::open(f->tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (f->fd_ < 0 && errno != EEXIST) {
        f->tmp_.clear();
        return io_error("cannot create temporary for", dest_path);
      }
    }
    if (f->fd_ < 0) {
      f->tmp_.clear();
      return io_error("cannot create temporary for", dest_path);
    }
  }
  f->buf_.reset(new uint8_t[kBufSize]);
  return f;
}

AtomicFile::~AtomicFile() { abort(); }

Status AtomicFile::flush() {
  size_t done = 0;
  while (done < buf_used_) {
    ssize_t n = ::write(fd_, buf_.get() + done, buf_used_ - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error("cannot write the temporary of", dest_);
    }
    done += static_cast<size_t>(n);
  }
  written_ += buf_used_;
  buf_used_ = 0;
  start_writeback();
  return Status::Ok();
}

void AtomicFile::start_writeback() {
#ifdef SYNC_FILE_RANGE_WRITE
  // Without a final fsync, forcing writeback would only slow the writer down.
  if (!durable_ || written_ - writeback_from_ < kWritebackChunk) return;
  // Asynchronous: starts writeback of the finished range and returns.
  ::sync_file_range(fd_, static_cast<off_t>(writeback_from_), static_cast<off_t>(written_ - writeback_from_),
                    SYNC_FILE_RANGE_WRITE);
  writeback_from_ = written_;
#endif
}

Status AtomicFile::write(std::span<const uint8_t> bytes) {
  if (fd_ < 0) return Status(ErrorCode::invalid_argument, "write to a closed file '" + dest_ + "'");
  if (bytes.empty()) return Status::Ok();  // an empty span may carry a null pointer
  position_ += bytes.size();
  if (buf_used_ + bytes.size() <= kBufSize) {
    std::memcpy(buf_.get() + buf_used_, bytes.data(), bytes.size());
    buf_used_ += bytes.size();
    return Status::Ok();
  }
  ZT_RETURN_IF_ERROR(flush());
  if (bytes.size() < kBufSize / 2) {
    std::memcpy(buf_.get(), bytes.data(), bytes.size());
    buf_used_ = bytes.size();
    return Status::Ok();
  }
  size_t done = 0;  // large pieces skip the buffer
  while (done < bytes.size()) {
    ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error("cannot write the temporary of", dest_);
    }
    done += static_cast<size_t>(n);
    written_ += static_cast<size_t>(n);
    start_writeback();
  }
  return Status::Ok();
}

Status AtomicFile::write_zeros(size_t n) {
  static const uint8_t kZeros[64] = {};
  while (n > 0) {
    size_t k = n < sizeof kZeros ? n : sizeof kZeros;
    ZT_RETURN_IF_ERROR(write({kZeros, k}));
    n -= k;
  }
  return Status::Ok();
}

Status AtomicFile::commit() {
  ZT_RETURN_IF_ERROR(seal());
  return publish();
}

Status AtomicFile::seal() {
  if (fd_ < 0) return Status(ErrorCode::invalid_argument, "seal of a closed file '" + dest_ + "'");
  ZT_RETURN_IF_ERROR(flush());
  if (durable_ && ::fsync(fd_) != 0) return io_error("cannot fsync", tmp_.empty() ? dest_ : tmp_);
  if (unnamed_) {
    // linkat cannot replace an existing file: link under a temporary name,
    // then rename that onto the destination as the named path does.
    char fd_path[64];
    std::snprintf(fd_path, sizeof fd_path, "/proc/self/fd/%d", fd_);
    for (int attempt = 0; attempt < 16 && tmp_.empty(); ++attempt) {
      std::string name = own_temporary_name(dest_);
      if (::linkat(AT_FDCWD, fd_path, AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) tmp_ = name;
      else if (errno != EEXIST) return io_error("cannot link the temporary of", dest_);
    }
    if (tmp_.empty()) return io_error("cannot link the temporary of", dest_);
    unnamed_ = false;
  }
  if (::close(fd_) != 0) {
    fd_ = -1;
    return io_error("cannot close the temporary of", dest_);
  }
  fd_ = -1;
  return Status::Ok();
}

Status AtomicFile::publish(const std::string& dest) {
  if (fd_ >= 0 || tmp_.empty())
    return Status(ErrorCode::invalid_argument, "publish of a file that is not sealed '" + dest_ + "'");
  if (!dest.empty()) dest_ = dest;
  if (::rename(tmp_.c_str(), dest_.c_str()) != 0) {
    Status s = io_error("cannot rename temporary onto", dest_);
    ::unlink(tmp_.c_str());
    tmp_.clear();
    return s;
  }
  tmp_.clear();
  int dfd = durable_ ? ::open(dir_of(dest_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  if (dfd >= 0) {  // make the rename durable; best effort on odd filesystems
    ::fsync(dfd);
    ::close(dfd);
  }
  return Status::Ok();
}

void AtomicFile::abort() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!tmp_.empty()) {
    ::unlink(tmp_.c_str());
    tmp_.clear();
  }
}

}  // namespace zt
