// Stored bytes of components read on threads of their own before the
// decoder asks for them (read_components names the next component when it
// starts one), so the link or the disk keeps working while every core
// decodes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "ztensor/reader.h"
#include "ztensor/status.h"

namespace zt {

// At most this many reads ahead are held at once: the memory window is that
// many components' stored bytes, whatever the model's size.
inline constexpr size_t kMaxReadsAhead = 2;
// Smaller components are fetched when asked: their round trip is short, and
// a thread per read would cost more than it hides.
inline constexpr uint64_t kMinReadAheadBytes = uint64_t{1} << 20;

// Reads ahead that a caller took, process-wide (tests: a read went through
// the window, not the caller's own read).
uint64_t reads_ahead_taken();

class ReadAhead {
 public:
  // Reads exactly out.size() bytes at offset (a ByteSource's or a file's
  // read_at), from any thread.
  using ReadFn = std::function<Status(uint64_t offset, std::span<uint8_t> out)>;
  explicit ReadAhead(ReadFn read);
  ~ReadAhead();  // waits for the reads in flight
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // Starts reading [offset, offset + length) unless it is too small, already
  // started, or the window is full.
  void start(uint64_t offset, uint64_t length);
  // The bytes of a read of exactly this range started before (waiting for
  // it to finish); nullopt when none was started or it failed: the caller
  // then reads the range itself and meets the error with its own retries.
  std::optional<ComponentBytes> take(uint64_t offset, uint64_t length);

 private:
  struct Read;
  ReadFn read_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Read>> reads_;
};

}  // namespace zt
