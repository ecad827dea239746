// XXH3-64 of decoded data, stored in Z4AI/ZARA/delta frames (libxxhash).
#pragma once

#include <cstdint>
#include <memory>
#include <span>

namespace z4ai::detail {

uint64_t xxh3_64(std::span<const uint8_t> bytes);

// The same digest fed piece by piece, in order: a single-threaded decoder
// hashes each chunk while it is still in cache.
class Xxh3Stream {
 public:
  Xxh3Stream();
  ~Xxh3Stream();
  Xxh3Stream(const Xxh3Stream&) = delete;
  Xxh3Stream& operator=(const Xxh3Stream&) = delete;
  void update(std::span<const uint8_t> bytes);
  uint64_t digest() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace z4ai::detail
