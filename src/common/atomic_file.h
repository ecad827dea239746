// A file published atomically: bytes go to a temporary beside the
// destination; commit() fsyncs and renames it into place. Destroying an
// uncommitted AtomicFile removes the temporary, so a failed or abandoned
// write never leaves a half-written file where the user asked for one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "ztensor/status.h"

namespace zt {

class AtomicFile {
 public:
  static Result<std::unique_ptr<AtomicFile>> create(const std::string& dest_path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  Status write(std::span<const uint8_t> bytes);
  Status write_zeros(size_t n);
  uint64_t position() const { return position_; }
  // fsync + rename onto the destination + fsync of the directory.
  Status commit();
  // Drop the temporary; the destination is untouched.
  void abort();

 private:
  AtomicFile() = default;
  Status flush();
  int fd_ = -1;
  std::string dest_, tmp_;
  uint64_t position_ = 0;
  std::unique_ptr<uint8_t[]> buf_;  // write coalescing for small pieces
  size_t buf_used_ = 0;
  static constexpr size_t kBufSize = 1 << 20;
};

}  // namespace zt
