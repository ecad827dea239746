#include "container/read_ahead.h"

#include <atomic>
#include <new>
#include <thread>

namespace zt {
namespace {

std::atomic<uint64_t> g_reads_ahead_taken{0};

}  // namespace

uint64_t reads_ahead_taken() { return g_reads_ahead_taken.load(); }

struct ReadAhead::Read {
  uint64_t offset = 0;
  uint64_t length = 0;
  std::shared_ptr<uint8_t[]> data;  // null when the allocation or the read failed
  std::thread thread;
};

ReadAhead::ReadAhead(ReadFn read) : read_(std::move(read)) {}

ReadAhead::~ReadAhead() {
  for (auto& r : reads_)
    if (r->thread.joinable()) r->thread.join();
}

void ReadAhead::start(uint64_t offset, uint64_t length) {
  if (length < kMinReadAheadBytes || length > SIZE_MAX) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (reads_.size() >= kMaxReadsAhead) return;
  for (const auto& r : reads_)
    if (r->offset == offset && r->length == length) return;
  auto read = std::make_unique<Read>();
  read->offset = offset;
  read->length = length;
  Read* at = read.get();
  // The thread writes only its own Read, which stays put until take() or the
  // destructor has joined it.
  read->thread = std::thread([this, at] {
    std::shared_ptr<uint8_t[]> data(new (std::nothrow) uint8_t[static_cast<size_t>(at->length)]);
    if (data && read_(at->offset, {data.get(), static_cast<size_t>(at->length)}).ok())
      at->data = std::move(data);
  });
  reads_.push_back(std::move(read));
}

std::optional<ComponentBytes> ReadAhead::take(uint64_t offset, uint64_t length) {
  std::unique_ptr<Read> found;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = reads_.begin(); it != reads_.end(); ++it) {
      if ((*it)->offset == offset && (*it)->length == length) {
        found = std::move(*it);
        reads_.erase(it);
        break;
      }
    }
  }
  if (!found) return std::nullopt;
  found->thread.join();
  if (!found->data) return std::nullopt;
  g_reads_ahead_taken.fetch_add(1);
  const uint8_t* p = found->data.get();
  return ComponentBytes{{p, static_cast<size_t>(length)}, std::move(found->data), false};
}

}  // namespace zt
