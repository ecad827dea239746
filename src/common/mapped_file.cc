#include "common/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace zt {

Result<std::shared_ptr<const MappedFile>> MappedFile::open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise block until a
  // writer appears; the S_ISREG check below refuses it. Regular files ignore it.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Status::from_errno(ErrorCode::io_error, "cannot open '" + path + "'", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Status::from_errno(ErrorCode::io_error, "cannot stat '" + path + "'", e);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status(ErrorCode::io_error, "'" + path + "' is not a regular file");
  }
  std::shared_ptr<MappedFile> f(new MappedFile());
  f->path_ = path;
  f->size_ = static_cast<size_t>(st.st_size);
  if (f->size_ > 0) {
    void* p = ::mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      return Status::from_errno(ErrorCode::io_error, "cannot mmap '" + path + "'", e);
    }
    f->data_ = static_cast<const uint8_t*>(p);
  }
  f->fd_ = fd;  // the mapping would stay valid without it; check_backed needs the inode
  return std::shared_ptr<const MappedFile>(std::move(f));
}

Status MappedFile::check_backed(uint64_t end) const {
  if (fd_ < 0) return Status::Ok();
  struct stat st {};
  if (::fstat(fd_, &st) != 0)
    return Status::from_errno(ErrorCode::io_error, "cannot stat '" + path_ + "'", errno);
  if (static_cast<uint64_t>(st.st_size) < end)
    return Status(ErrorCode::io_error, "'" + path_ + "' was truncated to " + std::to_string(st.st_size) +
                                           " bytes while open (mapped " + std::to_string(size_) + ", need " +
                                           std::to_string(end) + ")");
  return Status::Ok();
}

Status MappedFile::read_at(uint64_t offset, std::span<uint8_t> out) const {
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::from_errno(ErrorCode::io_error, "cannot read '" + path_ + "'", errno);
    if (n == 0)
      return Status(ErrorCode::io_error, "'" + path_ + "' was truncated while open: no bytes at offset " +
                                             std::to_string(offset + done) + " (mapped " + std::to_string(size_) + ")");
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Result<CopyOnWriteBytes> MappedFile::map_copy_on_write() const {
  if (size_ == 0) return CopyOnWriteBytes{};
  ZT_RETURN_IF_ERROR(check_backed(size_));
  void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_, 0);
  if (p == MAP_FAILED) return Status::from_errno(ErrorCode::io_error, "cannot mmap '" + path_ + "'", errno);
  std::shared_ptr<void> owner(p, [size = size_](void* q) { ::munmap(q, size); });
  return CopyOnWriteBytes{{static_cast<uint8_t*>(p), size_}, std::move(owner)};
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace zt
