// Bounds-checked little-endian reads over untrusted GGUF bytes. Every read
// reports failure instead of running past the end.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace zt::gguf {

class Cursor {
 public:
  explicit Cursor(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  uint64_t pos() const { return pos_; }
  uint64_t remaining() const { return bytes_.size() - pos_; }

  template <class T>
  bool read(T* out) {
    if (remaining() < sizeof(T)) return false;
    std::memcpy(out, bytes_.data() + pos_, sizeof(T));  // host is little-endian (checked in CMake)
    pos_ += sizeof(T);
    return true;
  }
  // A view of the next n bytes; false (nothing consumed) when fewer remain.
  bool take(uint64_t n, std::string_view* out) {
    if (remaining() < n) return false;
    *out = std::string_view(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return true;
  }

 private:
  std::span<const uint8_t> bytes_;
  uint64_t pos_ = 0;
};

}  // namespace zt::gguf
