// A file published atomically: bytes go to a temporary beside the
// destination; commit() fsyncs and renames it into place (a non-durable
// file skips the fsyncs: the rename keeps it all-or-nothing against a crash of
// the process, not of the machine). Destroying an
// uncommitted AtomicFile removes the temporary, so a failed or abandoned
// write never leaves a half-written file where the user asked for one.
//
// A killed writer leaves nothing either: where the filesystem has O_TMPFILE
// the temporary is an unnamed inode (the kernel frees it), named only for
// the instant between linkat and rename in commit(). Elsewhere it is
// "<dest>.tmp-<pid>-<host>-<random>", and create() removes such files in
// the destination's folder whose writer pid on this host is gone.
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
  static Result<std::unique_ptr<AtomicFile>> create(const std::string& dest_path, bool durable = true);
  // What follows the destination's name in a named temporary's name.
  static constexpr const char* kTempMarker = ".tmp-";
  // The name a writer with process id `pid` on this host gives a named
  // temporary of `dest_path` (random tail).
  static std::string temporary_name(const std::string& dest_path, long pid);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  Status write(std::span<const uint8_t> bytes);
  Status write_zeros(size_t n);
  uint64_t position() const { return position_; }
  // fsync + rename onto the destination + fsync of the directory (durable),
  // or the rename alone. The same as seal() then publish().
  Status commit();
  // commit() in two steps, for a set of files that appears together (the
  // shards of a sharded .zt): seal() flushes, fsyncs (durable) and closes
  // the temporary, which stays unpublished, and is still removed by abort()
  // or the destructor; publish() renames it onto `dest` (empty: the
  // destination given to create()). Errors: io_error.
  Status seal();
  Status publish(const std::string& dest = {});
  // Drop the temporary; the destination is untouched.
  void abort();

 private:
  AtomicFile() = default;
  Status flush();
  void start_writeback();
  int fd_ = -1;
  bool durable_ = true;
  bool unnamed_ = false;  // an O_TMPFILE inode, not yet linked
  std::string dest_, tmp_;
  uint64_t position_ = 0;
  std::unique_ptr<uint8_t[]> buf_;  // write coalescing for small pieces
  size_t buf_used_ = 0;
  uint64_t written_ = 0;          // bytes handed to the kernel
  uint64_t writeback_from_ = 0;   // first byte not yet scheduled for writeback
  static constexpr size_t kBufSize = 1 << 20;
  // Schedule writeback every this many bytes so the final fsync has little
  // left to do and disk writes overlap with encoding.
  static constexpr uint64_t kWritebackChunk = 32ull << 20;
};

}  // namespace zt
