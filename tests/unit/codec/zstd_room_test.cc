// zstd needs more room than the frame it finishes: given exactly the bytes a
// frame would take (or n - 1 for a plane of n), it fails frames that end just
// inside the buffer. These check that the coders keep such frames.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "codec/common/byte_io.h"
#include "codec/entropy/entropy.h"
#include "z4ai/chunked.h"

namespace z4ai::detail {
namespace {

constexpr int kLevel = 1;  // Z4AIMF01's default

// k random bytes, then n - k from a 4-letter alphabet: as k grows, the zstd
// frame of the plane creeps up to n bytes about a byte at a time.
std::vector<uint8_t> boundary_plane(size_t n, size_t k) {
  std::mt19937 rng{uint32_t(n)};
  std::vector<uint8_t> p(n);
  for (size_t i = 0; i < n; ++i) p[i] = uint8_t(i < k ? rng() : rng() % 4);
  return p;
}

std::vector<uint8_t> plain_zstd(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> z(zstd_bound(in.size()));
  z.resize(encode_zstd_plain_into(in, kLevel, z));
  return z;
}

// A plane of 256..511 bytes whose zstd frame is exactly `gap` bytes shorter.
std::vector<uint8_t> plane_coding_to(size_t gap) {
  for (size_t n = 256; n < 512; ++n)
    for (size_t k = 0; k < n; ++k) {
      auto p = boundary_plane(n, k);
      if (plain_zstd(p).size() == n - gap) return p;
    }
  return {};
}

TEST(ZstdRoom, ChunkedKeepsAPlaneThatZstdCodesToJustUnderItsSize) {
  for (size_t gap : {1, 2, 3, 8}) {
    const auto plane = plane_coding_to(gap);
    ASSERT_FALSE(plane.empty()) << "no plane coding to n - " << gap;
    const size_t n = plane.size();
    const auto z = plain_zstd(plane);
    for (uint32_t w : {1u, 2u}) {
      // Width 2: a random (stored) low byte, the boundary plane high.
      std::vector<uint8_t> data(n * w), lo = boundary_plane(n, n);
      for (size_t i = 0; i < n; ++i) {
        if (w == 2) data[2 * i] = lo[i];
        data[i * w + w - 1] = plane[i];
      }
      std::vector<uint8_t> want = {'Z', '4', 'A', 'I', 'M', 'F', '0', '1', 0, uint8_t(w), 1, 0, 0, 0};
      auto put = [&](uint32_t v) { want.resize(want.size() + 4), store_u32(&want[want.size() - 4], v); };
      put(uint32_t(n));
      want.push_back(0);  // no tail
      if (w == 2) {
        want.push_back(0);  // stored
        put(uint32_t(n));
        want.insert(want.end(), lo.begin(), lo.end());
      }
      want.push_back(1);  // zstd, n - gap bytes
      put(uint32_t(z.size()));
      want.insert(want.end(), z.begin(), z.end());
      chunked::Options o;
      o.width = w;
      auto frame = chunked::compress(data, o);
      ASSERT_TRUE(frame.ok());
      EXPECT_EQ(frame.value(), want) << "gap " << gap << " width " << w;
      auto back = chunked::decompress(frame.value());
      ASSERT_TRUE(back.ok()) << back.status().to_string();
      EXPECT_EQ(back.value(), data);
    }
  }
}

// max_bytes is the largest frame kept, whatever room zstd needs to finish it:
// a tiny plane (room = zstd's bound) and a multi-block stream (room =
// max_bytes + one block's bound, short of zstd's bound for the stream).
TEST(ZstdRoom, LongCoderKeepsAFrameOfExactlyMaxBytes) {
  for (size_t n : {size_t{300}, size_t{600'000}}) {
    const auto in = boundary_plane(n, n / 3);
    std::vector<uint8_t> free_run;
    ASSERT_TRUE(encode_zstd_long(in, kLevel, false, free_run));
    ASSERT_LT(free_run.size(), n);
    std::vector<uint8_t> capped = {7};  // appended after what is there
    ASSERT_TRUE(encode_zstd_long(in, kLevel, false, capped, free_run.size())) << n;
    EXPECT_EQ(std::vector<uint8_t>(capped.begin() + 1, capped.end()), free_run);
    std::vector<uint8_t> over = {7};
    EXPECT_FALSE(encode_zstd_long(in, kLevel, false, over, free_run.size() - 1));
    EXPECT_EQ(over, std::vector<uint8_t>{7});
  }
}

}  // namespace
}  // namespace z4ai::detail
