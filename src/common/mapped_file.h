// Read-only memory mapping of a whole file. Shared by every view handed out,
// so a numpy array that borrows the bytes keeps the mapping alive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "ztensor/buffers.h"
#include "ztensor/status.h"

namespace zt {

class MappedFile {
 public:
  // Maps `path` read-only. An empty file maps to an empty span.
  static Result<std::shared_ptr<const MappedFile>> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Whether the file still holds the first `end` bytes of the mapping. A
  // file truncated by another process after it was mapped kills the reader
  // with SIGBUS on the next touch past its new end; readers check first and
  // return io_error naming both sizes. (A truncation racing the touch itself
  // is not caught.)
  Status check_backed(uint64_t end) const;
  // Copies bytes [offset, offset + out.size()) with pread instead of touching
  // the mapping, so a file truncated meanwhile is an io_error, never SIGBUS.
  Status read_at(uint64_t offset, std::span<uint8_t> out) const;
  // The mapped inode (not whatever the path names now) mapped again, whole
  // and copy-on-write. Errors: io_error when the file was truncated meanwhile
  // or mmap fails.
  Result<CopyOnWriteBytes> map_copy_on_write() const;

 private:
  MappedFile() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  int fd_ = -1;  // kept open for check_backed (fstat of the mapped inode)
  std::string path_;
};

}  // namespace zt
