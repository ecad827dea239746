#include "common/checksum.h"

#include <openssl/evp.h>

#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>
#endif

namespace zt {
namespace {

constexpr uint32_t kCrc32cPoly = 0x82F63B78u;  // reflected Castagnoli polynomial

struct Crc32cTable {
  uint32_t t[8][256];
  Crc32cTable() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1) ? kCrc32cPoly : 0);
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
  }
};

uint32_t crc32c_portable(uint32_t crc, const uint8_t* p, size_t n) {
  static const Crc32cTable tab;
  while (n >= 8) {  // slicing-by-8
    uint64_t v;
    std::memcpy(&v, p, 8);
    v ^= crc;
    crc = tab.t[7][v & 0xFF] ^ tab.t[6][(v >> 8) & 0xFF] ^ tab.t[5][(v >> 16) & 0xFF] ^
          tab.t[4][(v >> 24) & 0xFF] ^ tab.t[3][(v >> 32) & 0xFF] ^ tab.t[2][(v >> 40) & 0xFF] ^
          tab.t[1][(v >> 48) & 0xFF] ^ tab.t[0][v >> 56];
    p += 8;
    n -= 8;
  }
  while (n--) crc = (crc >> 8) ^ tab.t[0][(crc ^ *p++) & 0xFF];
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(uint32_t crc, const uint8_t* p, size_t n) {
  uint64_t c = crc;
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c = _mm_crc32_u64(c, v);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n--) c32 = _mm_crc32_u8(c32, *p++);
  return c32;
}

bool has_sse42() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  return (c & bit_SSE4_2) != 0;
}
#endif

}  // namespace

uint32_t crc32c_update(uint32_t crc, std::span<const uint8_t> bytes) {
  crc = ~crc;
#if defined(__x86_64__)
  static const bool sse42 = has_sse42();
  crc = sse42 ? crc32c_sse42(crc, bytes.data(), bytes.size())
              : crc32c_portable(crc, bytes.data(), bytes.size());
#else
  crc = crc32c_portable(crc, bytes.data(), bytes.size());
#endif
  return ~crc;
}

struct Sha256::Impl {
  EVP_MD_CTX* ctx = nullptr;
};

Sha256::Sha256() : impl_(new Impl) {
  impl_->ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(impl_->ctx, EVP_sha256(), nullptr);
}

Sha256::~Sha256() { EVP_MD_CTX_free(impl_->ctx); }

void Sha256::update(std::span<const uint8_t> bytes) {
  EVP_DigestUpdate(impl_->ctx, bytes.data(), bytes.size());
}

std::array<uint8_t, 32> Sha256::finish() {
  std::array<uint8_t, 32> out{};
  unsigned len = 0;
  EVP_DigestFinal_ex(impl_->ctx, out.data(), &len);
  return out;
}

std::array<uint8_t, 32> sha256(std::span<const uint8_t> bytes) {
  Sha256 h;
  h.update(bytes);
  return h.finish();
}

std::string to_hex(std::span<const uint8_t> bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string s(bytes.size() * 2, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    s[2 * i] = kDigits[bytes[i] >> 4];
    s[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return s;
}

}  // namespace zt
