#include "ztensor/atomic_file.h"

#include <fcntl.h>  // sync_file_range (Linux)
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace zt {
namespace {

Status io_error(const std::string& what, const std::string& path) {
  return Status(ErrorCode::io_error, what + " '" + path + "': " + std::strerror(errno));
}

std::string dir_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

Result<std::unique_ptr<AtomicFile>> AtomicFile::create(const std::string& dest_path, bool durable) {
  std::unique_ptr<AtomicFile> f(new AtomicFile());
  f->durable_ = durable;
  f->dest_ = dest_path;
  std::random_device rd;
  for (int attempt = 0; attempt < 16 && f->fd_ < 0; ++attempt) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, ".tmp-%08x", rd());
    f->tmp_ = dest_path + suffix;
    f->fd_ = ::open(f->tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (f->fd_ < 0 && errno != EEXIST) return io_error("cannot create temporary for", dest_path);
  }
  if (f->fd_ < 0) return io_error("cannot create temporary for", dest_path);
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
      return io_error("cannot write", tmp_);
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
      return io_error("cannot write", tmp_);
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
  if (durable_ && ::fsync(fd_) != 0) return io_error("cannot fsync", tmp_);
  if (::close(fd_) != 0) {
    fd_ = -1;
    return io_error("cannot close", tmp_);
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
