// How a foreign-format source opened from a local file hands out bytes once
// the file is open. The file is mapped and its header parsed on open; after
// that another process may truncate it, and touching a mapped page past the
// new end kills the reader with SIGBUS. So:
// - a zero-copy view is handed out only after MappedFile::check_backed says
//   the file still holds it (io_error otherwise). What a view does when the
//   file shrinks after it was handed out is the mmap contract, stated in
//   docs/format.md: the caller's process gets SIGBUS on the next touch.
// - bytes the source decodes itself (inflate, gather, byte swap, typed
//   ONNX values, dequantization) and every read of a copy-on-read source
//   (conversions, `zt compress`) are read with pread into memory of their
//   own: a truncation at any time is an io_error.
// Sources over bytes in memory (no file) hand out plain views.
// (Not named FileBytes: ztensor/files.h has a zt::FileBytes, and two classes
// of one name break the one-definition rule: the linker kept one destructor.)
#pragma once

#include <memory>
#include <span>

#include "common/mapped_file.h"
#include "ztensor/reader.h"
#include "ztensor/status.h"

namespace zt {

class FileByteAccess {
 public:
  FileByteAccess() = default;  // bytes in memory
  FileByteAccess(std::shared_ptr<const MappedFile> file, bool copy_on_read)
      : file_(std::move(file)), copy_(copy_on_read && file_ != nullptr) {}

  // `span` lies in the file's mapping (or in memory when there is no file),
  // kept alive by `owner`. A view, checked as above; a pread copy when
  // copy-on-read. Errors: io_error (truncated since open), limit_exceeded.
  Result<ComponentBytes> read(std::span<const uint8_t> span, std::shared_ptr<const void> owner) const;
  // The same bytes to decode from: always a pread copy when there is a file.
  Result<ComponentBytes> read_to_decode(std::span<const uint8_t> span, std::shared_ptr<const void> owner) const;
  bool copy_on_read() const { return copy_; }
  const std::shared_ptr<const MappedFile>& file() const { return file_; }

 private:
  std::shared_ptr<const MappedFile> file_;
  bool copy_ = false;
};

}  // namespace zt
