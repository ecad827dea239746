// Whole files for front ends such as `zt compress`: read one mapped, write
// one atomically. How (mmap, a temporary beside the destination, fsync and
// rename) is the library's own business.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "ztensor/status.h"

namespace zt {

// A file's bytes, read-only; `owner` keeps them valid.
struct FileBytes {
  std::span<const uint8_t> bytes;
  std::shared_ptr<const void> owner;
};

// Maps `path` read-only (an empty file gives an empty span). Errors: io_error
// naming the file (with its errno).
Result<FileBytes> map_file(const std::string& path);

// Writes `bytes` to a temporary beside `path`, fsyncs it and renames it into
// place: on any error nothing appears at `path` and a file already there is
// untouched. Errors: io_error.
Status write_file_atomically(const std::string& path, std::span<const uint8_t> bytes);

// Removes the named temporaries that this process's unfinished atomic writes
// of `path` (write_file_atomically, a conversion, ...) left beside it, for a
// process about to exit on a signal, which runs no destructor. Temporaries
// the kernel keeps unnamed (O_TMPFILE) die with the process anyway.
void remove_own_temporaries(const std::string& path);

}  // namespace zt
