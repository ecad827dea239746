// Frames declare, the decoder checks: a frame whose declared
// output its stored bytes cannot produce is rejected before the output is
// allocated (peek / decoded_length fail, which decoders call first), and a
// caller's max_output refuses a larger declaration with limit_exceeded.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "test_data.h"
#include "z4ai/chunked.h"
#include "z4ai/codec.h"
#include "z4ai/delta.h"

namespace z4ai {
namespace {

void put32(std::vector<uint8_t>& f, uint32_t v) {
  for (int i = 0; i < 4; ++i) f.push_back(uint8_t(v >> (8 * i)));
}
void put64(std::vector<uint8_t>& f, uint64_t v) {
  for (int i = 0; i < 8; ++i) f.push_back(uint8_t(v >> (8 * i)));
}

// Z4AI header: mode, declared length, chunk size and count (digest 0).
std::vector<uint8_t> z4ai_header(uint8_t mode, uint64_t length, uint32_t chunk_bytes, uint32_t n_chunks) {
  std::vector<uint8_t> f = {'Z', '4', 'A', 'I', 2, 0, mode, 0};
  put64(f, length);
  put64(f, 0);
  put32(f, chunk_bytes);
  put32(f, n_chunks);
  return f;
}

// The 112-byte frame: 16 chunks of 256 MiB (4 GiB) with 1-byte bodies.
std::vector<uint8_t> tiny_chunks_frame(uint32_t body_bytes) {
  auto f = z4ai_header(0, uint64_t{16} << 28, 256u << 20, 16);
  for (int i = 0; i < 16; ++i) put32(f, body_bytes);
  f.resize(f.size() + 16 * body_bytes, 0xff);
  return f;
}

// A zstd frame of `blocks` RLE blocks of 128 KiB each, declaring
// `content_size` in its header (single segment, 8-byte content size).
std::vector<uint8_t> zstd_rle_frame(uint64_t content_size, uint32_t blocks) {
  std::vector<uint8_t> z = {0x28, 0xb5, 0x2f, 0xfd, 0xe0};  // magic; FHD: FCS 8 bytes, single segment
  put64(z, content_size);
  for (uint32_t b = 0; b < blocks; ++b) {
    const uint32_t h = (b + 1 == blocks ? 1u : 0u) | (1u << 1) | ((128u << 10) << 3);
    z.push_back(uint8_t(h));
    z.push_back(uint8_t(h >> 8));
    z.push_back(uint8_t(h >> 16));
    z.push_back(0);
  }
  return z;
}

TEST(DeclaredSize, ChunkBodiesShorterThanAnyChunkAreRejectedByPeek) {
  auto f = tiny_chunks_frame(1);
  ASSERT_EQ(f.size(), 112u);
  auto info = peek(f);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), zt::ErrorCode::corrupt_stream);
  EXPECT_NE(info.status().message().find("chunk 0"), std::string::npos) << info.status().message();
}

TEST(DeclaredSize, ChunkLengthPastTheFrameIsRejectedByPeek) {
  auto f = tiny_chunks_frame(12);
  std::memset(f.data() + 32, 0xff, 4);  // chunk 0 claims 4 GiB of coded bytes
  auto info = peek(f);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), zt::ErrorCode::corrupt_stream);
  EXPECT_NE(info.status().message().find("left in the frame"), std::string::npos) << info.status().message();
}

TEST(DeclaredSize, WholeZstdFrameMustProduceTheDeclaredLength) {
  // 1 TB declared (also in the zstd frame's own content size), two RLE blocks stored.
  const uint64_t tb = uint64_t{1} << 40;
  auto f = z4ai_header(1, tb, 0, 0);
  auto z = zstd_rle_frame(tb, 2);
  f.insert(f.end(), z.begin(), z.end());
  auto info = peek(f);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), zt::ErrorCode::length_mismatch);
  EXPECT_NE(info.status().message().find("at most 262144"), std::string::npos) << info.status().message();
  EXPECT_FALSE(decompress(f).ok());
}

TEST(DeclaredSize, WholeZstdFrameThatHoldsItsLengthPassesPeek) {
  auto f = z4ai_header(1, 256u << 10, 0, 0);
  auto z = zstd_rle_frame(256u << 10, 2);
  f.insert(f.end(), z.begin(), z.end());
  auto info = peek(f);
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->original_length, 256u << 10);
}

TEST(DeclaredSize, ChunkedPlaneMustProduceItsElements) {
  // Z4AIMF01, width 1, one chunk of 2^32-1 elements whose zstd plane holds two RLE blocks.
  std::vector<uint8_t> f = {'Z', '4', 'A', 'I', 'M', 'F', '0', '1', 0, 1};
  put32(f, 1);
  put32(f, 0xffffffffu);
  f.push_back(0);  // tail_len
  auto z = zstd_rle_frame(0xffffffffu, 2);
  f.push_back(1);  // zstd
  put32(f, uint32_t(z.size()));
  f.insert(f.end(), z.begin(), z.end());
  auto n = chunked::decoded_length(f);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), zt::ErrorCode::length_mismatch);
  EXPECT_FALSE(chunked::decompress(f).ok());
}

TEST(DeclaredSize, MaxOutputRefusesALargerDeclaration) {
  const auto data = testing::gaussian_bf16(20'000);
  CompressOptions o;
  o.dtype = "bf16";
  auto frame = compress(data, o).value();
  auto r = decompress(frame, 0, data.size() - 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), zt::ErrorCode::limit_exceeded);
  EXPECT_NE(r.status().message().find(std::to_string(data.size())), std::string::npos);
  EXPECT_EQ(decompress(frame, 0, data.size()).value(), data);

  auto cf = chunked::compress(data, {}).value();
  EXPECT_EQ(chunked::decompress(cf, 0, 100).status().code(), zt::ErrorCode::limit_exceeded);
  EXPECT_EQ(chunked::decompress(cf, 0, data.size()).value(), data);

  auto df = compress_delta(data, data, o).value();
  EXPECT_EQ(decompress_delta(df, data, 0, 100).status().code(), zt::ErrorCode::limit_exceeded);
}

TEST(DeclaredSize, DeltaInnerFrameMustDeclareTheHeaderLength) {
  const auto data = testing::gaussian_bf16(1000);
  CompressOptions o;
  o.dtype = "bf16";
  auto df = compress_delta(data, data, o).value();
  df[24] ^= 1;  // header original length no longer the inner frame's
  EXPECT_FALSE(peek(df).ok());
}

}  // namespace
}  // namespace z4ai
