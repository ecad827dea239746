// Bounds-checked little-endian reads over untrusted GGUF bytes. Every read
// reports failure instead of running past the end. The bytes may be only a
// prefix of a file of `file_size` bytes (a remote file's header): sizes are
// then judged against the whole file, and a read past the prefix but within
// the file fails with ran_out() set, so the caller can fetch more and retry.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace zt::gguf {

class Cursor {
 public:
  explicit Cursor(std::span<const uint8_t> bytes) : bytes_(bytes), file_size_(bytes.size()) {}
  Cursor(std::span<const uint8_t> prefix, uint64_t file_size) : bytes_(prefix), file_size_(file_size) {}

  uint64_t pos() const { return pos_; }
  uint64_t remaining() const { return file_size_ - pos_; }
  bool ran_out() const { return ran_out_; }

  template <class T>
  bool read(T* out) {
    if (!available(sizeof(T))) return false;
    std::memcpy(out, bytes_.data() + pos_, sizeof(T));  // host is little-endian (checked in CMake)
    pos_ += sizeof(T);
    return true;
  }
  // A view of the next n bytes; false (nothing consumed) when fewer remain.
  bool take(uint64_t n, std::string_view* out) {
    if (!available(n)) return false;
    *out = std::string_view(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return true;
  }

 private:
  bool available(uint64_t n) {
    if (bytes_.size() - pos_ >= n) return true;
    if (remaining() >= n) ran_out_ = true;  // in the file, not yet fetched
    return false;
  }
  std::span<const uint8_t> bytes_;
  uint64_t file_size_;
  uint64_t pos_ = 0;
  bool ran_out_ = false;
};

}  // namespace zt::gguf
