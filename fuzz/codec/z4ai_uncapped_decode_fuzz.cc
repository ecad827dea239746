// Decode-only, with no output cap and on 2 to 4 threads: arbitrary bytes as a
// Z4AI or ZARA frame must decode or fail cleanly, and a frame may cost only
// what its stored bytes justify whatever length it declares.
//
// Input: one control byte, then the frame. Control bits 0-1 pick the thread
// count (2 + value % 3), bit 7 the magic (ZARA when set, Z4AI otherwise).
//
// The output is the caller's, sized by the frame's declared length (up to
// 1 TiB): it is a MAP_NORESERVE mapping, so it costs nothing until the
// decoder writes it, and a legitimate frame may declare far more than the
// malloc limit. What run_smoke.sh's limits then catch: -malloc_limit_mb any
// allocation a declared size drives (scratch, tables), -rss_limit_mb output
// pages touched before the frame's streams were checked against its bytes
// (each worker prefaulting a 256 MiB chunk its bytes cannot fill).
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "z4ai/codec.h"

namespace {

constexpr unsigned kMinThreads = 2;
constexpr unsigned kThreadChoices = 3;  // 2, 3 or 4 threads
constexpr uint8_t kZaraBit = 0x80;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const unsigned threads = kMinThreads + (data[0] & 3u) % kThreadChoices;
  std::vector<uint8_t> frame(data + 1, data + size);
  if (frame.size() >= 4) std::memcpy(frame.data(), (data[0] & kZaraBit) ? "ZARA" : "Z4AI", 4);
  auto info = z4ai::peek(frame);
  if (!info.ok()) {
    // The refusal must hold for decompress_into too, before it touches the output.
    if (z4ai::decompress_into(frame, {}, threads).ok()) __builtin_trap();
    return 0;
  }
  const size_t n = size_t(info->original_length);
  constexpr int kFlags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  void* map = n == 0 ? nullptr : mmap(nullptr, n, PROT_READ | PROT_WRITE, kFlags, -1, 0);
  if (map == MAP_FAILED) return 0;
  (void)z4ai::decompress_into(frame, std::span<uint8_t>(static_cast<uint8_t*>(map), n), threads);
  if (map) munmap(map, n);
  return 0;
}
