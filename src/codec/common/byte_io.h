// Little-endian writing and a bounds-checked reader for frame parsing. The
// reader never reads past its span; callers check ok() / the returned bool.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace z4ai::detail {

inline void put_u8(std::vector<uint8_t>& out, uint8_t v) { out.push_back(v); }
inline void put_u16(std::vector<uint8_t>& out, uint16_t v) {
  for (int i = 0; i < 2; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
inline void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
inline void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
inline void put_bytes(std::vector<uint8_t>& out, std::span<const uint8_t> b) {
  out.insert(out.end(), b.begin(), b.end());
}
inline void store_u16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
}
inline void store_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline void store_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline uint16_t load_u16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }
inline uint32_t load_u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
inline uint64_t load_u64(const uint8_t* p) {
  return uint64_t(load_u32(p)) | uint64_t(load_u32(p + 4)) << 32;
}

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> data) : data_(data) {}
  size_t remaining() const { return data_.size() - pos_; }
  size_t position() const { return pos_; }
  bool u8(uint8_t& v) {
    if (remaining() < 1) return false;
    v = data_[pos_++];
    return true;
  }
  bool u16(uint16_t& v) {
    if (remaining() < 2) return false;
    v = uint16_t(data_[pos_] | data_[pos_ + 1] << 8);
    pos_ += 2;
    return true;
  }
  bool u32(uint32_t& v) {
    if (remaining() < 4) return false;
    v = load_u32(data_.data() + pos_);
    pos_ += 4;
    return true;
  }
  bool u64(uint64_t& v) {
    if (remaining() < 8) return false;
    v = load_u64(data_.data() + pos_);
    pos_ += 8;
    return true;
  }
  // A view of the next n bytes (no copy).
  bool bytes(uint64_t n, std::span<const uint8_t>& v) {
    if (remaining() < n) return false;
    v = data_.subspan(pos_, size_t(n));
    pos_ += size_t(n);
    return true;
  }

 private:
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
};

}  // namespace z4ai::detail
