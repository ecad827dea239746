// PyPI z4ai 0.x frames (legacy_format.h): hand-built frames pin the layout
// rules and the checks made before allocating; the frames that package
// actually writes are decoded in tests/python/test_pypi_z4ai_frames.py.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "codec/common/byte_io.h"
#include "codec/entropy/entropy.h"
#include "codec/entropy/pypi_rans.h"
#include "codec/pypi/blake2b.h"
#include "codec/pypi/legacy_format.h"
#include "z4ai/codec.h"
#include "z4ai/model_delta.h"

namespace z4ai::detail {
namespace {

std::string hex(const std::vector<uint8_t>& v) {
  std::string s;
  char b[3];
  for (uint8_t c : v) {
    std::snprintf(b, sizeof b, "%02x", c);
    s += b;
  }
  return s;
}

TEST(Blake2b, MatchesRfc7693Vectors) {
  const std::string abc = "abc";
  EXPECT_EQ(hex(blake2b({reinterpret_cast<const uint8_t*>(abc.data()), abc.size()}, 64)),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
            "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
  EXPECT_EQ(hex(blake2b({}, 64)),
            "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
            "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce");
}

// Z4AI v1, byte planes of width 2, stored streams, a 1-byte tail.
std::vector<uint8_t> z4ai_v1_planes(uint64_t second_plane_length) {
  std::vector<uint8_t> f = {'Z', '4', 'A', 'I', 1, 0, 1, 2, 2, 0, 0, 0};
  put_u32(f, 1);
  f.push_back(0xEE);  // tail
  const uint8_t planes[2][3] = {{1, 3, 5}, {2, 4, 6}};
  for (int p = 0; p < 2; ++p) {
    f.push_back(0);  // stored
    put_u64(f, p == 1 ? second_plane_length : 3);
    put_u64(f, 3);
    f.insert(f.end(), planes[p], planes[p] + 3);
  }
  return f;
}

TEST(LegacyFrame, BytePlanesAndTailDecode) {
  auto f = z4ai_v1_planes(3);
  auto info = peek(f);
  ASSERT_TRUE(info.ok()) << info.status().to_string();
  EXPECT_TRUE(info->pypi_layout);
  EXPECT_EQ(info->original_length, 7u);
  auto out = decompress(f);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(out.value(), (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 0xEE}));
}

TEST(LegacyFrame, StoredStreamLongerThanItsBytesIsRefusedByName) {
  auto out = decompress(z4ai_v1_planes(uint64_t{1} << 39));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), zt::ErrorCode::corrupt_stream);
  EXPECT_NE(out.status().message().find("PyPI z4ai 0.x Z4AI v1 frame"), std::string::npos) << out.status().message();
}

TEST(LegacyFrame, MaxOutputIsHonouredBeforeDecoding) {
  auto out = decompress(z4ai_v1_planes(3), 0, 6);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), zt::ErrorCode::limit_exceeded);
}

TEST(LegacyRans, TableNotSummingToScaleIsCorrupt) {
  std::vector<uint8_t> s;
  put_u64(s, 4);
  for (int i = 0; i < 256; ++i) put_u16(s, i == 7 ? 100 : 0);  // sums to 100, not 2^14
  for (int i = 0; i < 4; ++i) put_u32(s, 1u << 23);
  std::vector<uint8_t> out(4);
  EXPECT_EQ(decode_legacy_rans0(s, out).code(), zt::ErrorCode::corrupt_stream);
}

TEST(LegacyRans, SingleSymbolStreamDecodes) {
  // One symbol of frequency 2^14 codes in zero bits: four start states only.
  std::vector<uint8_t> s;
  put_u64(s, 10);
  for (int i = 0; i < 256; ++i) put_u16(s, i == 42 ? 1u << 14 : 0);
  for (int i = 0; i < 4; ++i) put_u32(s, 1u << 23);
  std::vector<uint8_t> out(10);
  ASSERT_TRUE(decode_legacy_rans0(s, out).ok());
  EXPECT_EQ(out, std::vector<uint8_t>(10, 42));
  std::vector<uint8_t> wrong(9);
  EXPECT_EQ(decode_legacy_rans0(s, wrong).code(), zt::ErrorCode::length_mismatch);
}

TEST(LegacyRans, DeclaredLengthBeyondWhatTheBytesCanCodeIsRefusedBeforeDecoding) {
  // Two symbols of probability 1/2: one bit each, so 40 coded bytes cannot
  // produce a million symbols. The frame is refused by peek, before any
  // output exists.
  std::vector<uint8_t> s;
  put_u64(s, 1'000'000);
  for (int i = 0; i < 256; ++i) put_u16(s, i < 2 ? 1u << 13 : 0);
  for (int i = 0; i < 10; ++i) put_u32(s, 1u << 23);
  std::vector<uint8_t> f = {'Z', '4', 'A', 'I', 1, 0, 0, 1, 1, 0, 0, 0};
  put_u32(f, 0);
  f.push_back(3);  // rANS order-0
  put_u64(f, 1'000'000);
  put_u64(f, s.size());
  f.insert(f.end(), s.begin(), s.end());
  auto info = peek(f);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), zt::ErrorCode::length_mismatch) << info.status().to_string();
}

TEST(LegacyRans, OrderOneDeclaredLengthIsBoundedByItsModel) {
  // Context 0 codes symbols 0 and 1 at probability 1/2 (one bit each); a
  // 16-byte chunk cannot hold a million of them.
  std::vector<uint8_t> model = {0, 2, 0, 0, 0, 8, 1, 0, 8}, blob;
  ASSERT_TRUE(encode_zstd(model, 3, blob));
  std::vector<uint8_t> s = {'R', '1', 1, 0};
  put_u32(s, 1'000'000);
  put_u32(s, uint32_t(blob.size()));
  put_u16(s, 1);
  s.insert(s.end(), blob.begin(), blob.end());
  put_u32(s, 12);        // chunk length
  put_u32(s, 8);         // its one substream
  put_u32(s, 1u << 23);  // state
  put_u32(s, 0);
  EXPECT_EQ(check_legacy_rans1_declared(s, 1'000'000).code(), zt::ErrorCode::length_mismatch);
  EXPECT_TRUE(check_legacy_rans1_declared(s, 1'000'000 - 1).code() == zt::ErrorCode::length_mismatch);
  std::vector<uint8_t> out(40);
  s[4] = 40, s[5] = s[6] = s[7] = 0;  // n = 40: within the bound, decodes or fails cleanly
  EXPECT_TRUE(check_legacy_rans1_declared(s, 40).ok());
  (void)decode_legacy_rans1(s, out);
}

TEST(LegacyModelDelta, PypiLayoutIsRecognisedNotMisreadAsReservedBytes) {
  std::vector<uint8_t> f = {'Z', '4', 'D', 'M', 1};
  const std::string header = R"({"x":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}})";
  put_u64(f, header.size());
  f.insert(f.end(), header.begin(), header.end());
  put_u64(f, 0);                                      // data_len
  for (int i = 0; i < 8; ++i) f.push_back(0);         // BLAKE2b-64 of the base data
  put_u32(f, 1);
  put_u16(f, 1);
  f.push_back('x');
  put_u64(f, 0);
  put_u64(f, 0);
  f.push_back(2);  // copy
  EXPECT_TRUE(is_legacy_model_delta(f));
  auto info = peek_model_delta(f);
  ASSERT_TRUE(info.ok()) << info.status().to_string();
  EXPECT_EQ(info->target_length, 8 + header.size());
  std::vector<uint8_t> base(8);  // empty header "" is not JSON: base rejected, not the frame
  auto out = decompress_model_delta(f, base);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message().find("reserved bytes"), std::string::npos) << out.status().message();
}

}  // namespace
}  // namespace z4ai::detail
