// Digests over stored bytes: SHA-256 (OpenSSL) and CRC-32C (Castagnoli).
// CRC-32C has no C library in Debian, so it is a small table/SSE4.2 routine.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace zt {

uint32_t crc32c_update(uint32_t crc, std::span<const uint8_t> bytes);
inline uint32_t crc32c(std::span<const uint8_t> bytes) { return crc32c_update(0, bytes); }

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::span<const uint8_t> bytes);
  std::array<uint8_t, 32> finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

std::array<uint8_t, 32> sha256(std::span<const uint8_t> bytes);

std::string to_hex(std::span<const uint8_t> bytes);

}  // namespace zt
