// BLAKE2b as specified by RFC 7693 sections 2 and 3 (no key, no salt).
#include "codec/pypi/blake2b.h"

#include <cstring>

namespace z4ai::detail {
namespace {

constexpr uint64_t kIv[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
                             0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                             0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

// Message word schedule per round (RFC 7693 2.7); rounds 10 and 11 reuse 0 and 1.
constexpr uint8_t kSigma[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
};

constexpr size_t kBlock = 128;

uint64_t rotr(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

void mix(uint64_t* v, int a, int b, int c, int d, uint64_t x, uint64_t y) {
  v[a] = v[a] + v[b] + x;
  v[d] = rotr(v[d] ^ v[a], 32);
  v[c] = v[c] + v[d];
  v[b] = rotr(v[b] ^ v[c], 24);
  v[a] = v[a] + v[b] + y;
  v[d] = rotr(v[d] ^ v[a], 16);
  v[c] = v[c] + v[d];
  v[b] = rotr(v[b] ^ v[c], 63);
}

void compress(uint64_t* h, const uint8_t* block, uint64_t counter, bool last) {
  uint64_t m[16], v[16];
  for (int i = 0; i < 16; ++i) {
    m[i] = 0;
    for (int b = 0; b < 8; ++b) m[i] |= uint64_t(block[8 * i + b]) << (8 * b);
  }
  for (int i = 0; i < 8; ++i) {
    v[i] = h[i];
    v[i + 8] = kIv[i];
  }
  v[12] ^= counter;  // the counter's high word stays 0 below 2^64 bytes
  if (last) v[14] = ~v[14];
  for (int r = 0; r < 12; ++r) {
    const uint8_t* s = kSigma[r % 10];
    mix(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    mix(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    mix(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    mix(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    mix(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    mix(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    mix(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    mix(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; ++i) h[i] ^= v[i] ^ v[i + 8];
}

}  // namespace

std::vector<uint8_t> blake2b(std::span<const uint8_t> data, size_t digest_bytes) {
  uint64_t h[8];
  std::memcpy(h, kIv, sizeof h);
  h[0] ^= 0x01010000ULL ^ digest_bytes;
  size_t at = 0;
  // Every block but the last is compressed as not-final; an empty message is
  // one final zero block.
  while (data.size() - at > kBlock) {
    compress(h, data.data() + at, at + kBlock, false);
    at += kBlock;
  }
  uint8_t last[kBlock] = {};
  if (data.size() > at) std::memcpy(last, data.data() + at, data.size() - at);
  compress(h, last, data.size(), true);
  std::vector<uint8_t> out(digest_bytes);
  for (size_t i = 0; i < digest_bytes; ++i) out[i] = uint8_t(h[i / 8] >> (8 * (i % 8)));
  return out;
}

}  // namespace z4ai::detail
