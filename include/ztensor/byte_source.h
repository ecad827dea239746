// Positional reads from where a weight file lives: a local file (mapped or
// read with pread), an HTTP(S) URL (libcurl range requests), or a caller's
// callback (fsspec from Python). Readers that only need the header, the
// manifest and a few components read through this instead of mapping the
// whole file, so a remote or truncated file costs only what is asked for.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "ztensor/status.h"

namespace zt {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Total size in bytes, fixed when the source was opened.
  virtual uint64_t size() const = 0;
  // Reads exactly out.size() bytes starting at `offset`. Safe to call from
  // many threads at once. Errors: offset_out_of_range (past size()),
  // io_error (the store failed), length_mismatch (fewer bytes than size()
  // promised: the file was truncated or changed under us).
  virtual Status read_at(uint64_t offset, std::span<uint8_t> out) const = 0;
  // Path or URL (without credentials), for error messages.
  virtual const std::string& name() const = 0;
  // The whole content as one zero-copy view when the source is a local
  // mapping; empty otherwise. `owner` keeps the view valid.
  virtual std::span<const uint8_t> mapped() const { return {}; }
  virtual std::shared_ptr<const void> owner() const { return nullptr; }
};

}  // namespace zt
