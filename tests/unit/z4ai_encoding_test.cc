// The z4ai codec as a .zt encoding: round trip per effort, uncompressed_length
// recorded, random access per component, and a reader without the codec
// registered refusing the component by name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "test_util.h"
#include "z4ai/codec.h"
#include "ztensor/convert.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"
#include "ztensor/z4ai_encoding.h"

namespace zt {
namespace {

TEST(Z4aiEncoding, RoundTripsEveryEffort) {
  register_z4ai_encoding();
  test::TempDir dir;
  std::vector<float> w(4096);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(static_cast<float>(i)) * 0.02f;
  std::string path = dir.file("z.zt");
  {
    auto wr = Writer::create(path);
    ASSERT_TRUE(wr.ok());
    for (uint8_t effort : {0, 1, 2}) {
      ObjectSpec o;
      o.name = "w" + std::to_string(effort);
      o.shape = {64, 64};
      ComponentSpec c;
      c.role = "data";
      c.dtype = DType::f32;
      c.data = test::as_bytes(w);
      c.encoding = Encoding::z4ai;
      c.level = -1;
      c.effort = effort;
      c.digest = DigestAlgo::sha256;
      o.components.push_back(c);
      Status s = (*wr)->add(o);
      ASSERT_TRUE(s.ok()) << s.to_string();
    }
    ASSERT_TRUE((*wr)->finish().ok());
  }
  auto r = Reader::open(path);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  for (const char* name : {"w0", "w1", "w2"}) {
    const Component* c = (*r)->find(name)->find("data");
    EXPECT_EQ(c->encoding, Encoding::z4ai);
    EXPECT_EQ(c->uncompressed_length.value_or(0), w.size() * 4);
    EXPECT_LT(c->length, w.size() * 4);
    auto b = (*r)->read_component(name, "data");
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    ASSERT_EQ(b->bytes.size(), w.size() * 4);
    EXPECT_EQ(std::memcmp(b->bytes.data(), w.data(), b->bytes.size()), 0);
  }
  EXPECT_TRUE((*r)->verify().ok());
}

TEST(Z4aiEncoding, CorruptFrameIsAnError) {
  register_z4ai_encoding();
  test::TempDir dir;
  std::vector<float> w(1024, 0.5f);
  w[7] = 3.0f;
  std::string path = dir.file("c.zt");
  {
    auto wr = Writer::create(path);
    ObjectSpec o;
    o.name = "w";
    o.shape = {1024};
    ComponentSpec c;
    c.role = "data";
    c.dtype = DType::f32;
    c.data = test::as_bytes(w);
    c.encoding = Encoding::z4ai;
    o.components.push_back(c);
    ASSERT_TRUE((*wr)->add(o).ok());
    ASSERT_TRUE((*wr)->finish().ok());
  }
  auto bytes = test::read_file(path);
  auto r0 = Reader::open(path);
  const Component* c = (*r0)->find("w")->find("data");
  bytes[c->offset + c->length - 1] ^= 0xFF;  // last byte of the frame
  test::write_file(path, bytes);
  auto r = Reader::open(path);
  ASSERT_TRUE(r.ok());
  auto b = (*r)->read_component("w", "data");
  EXPECT_FALSE(b.ok());
}

// `level` left at its default means the encoding's default, for every
// encoding: a component written with it is the frame z4ai::compress writes
// at its own default level (zstd 9 at effort balanced, 19 at max), and a zstd
// component the one zstd writes at its default level 3.
TEST(Z4aiEncoding, DefaultLevelIsEachEncodingsOwnDefault) {
  register_z4ai_encoding();
  EXPECT_EQ(ComponentSpec{}.level, kDefaultLevel);
  EXPECT_EQ(ConvertOptions{}.level, kDefaultLevel);
  std::string text;
  for (int i = 0; text.size() < (256u << 10); ++i)
    text += "layer." + std::to_string(i % 977) + ".weight=" + std::to_string(i * 7919 % 10007) + ";";
  const auto bytes = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  for (uint8_t effort : {0, 1, 2}) {
    ComponentSpec spec;
    spec.role = "data";
    spec.dtype = DType::u8;
    spec.data = bytes;
    spec.encoding = Encoding::z4ai;
    spec.effort = effort;
    auto stored = encode_component(spec);
    ASSERT_TRUE(stored.ok()) << stored.status().to_string();
    z4ai::CompressOptions o;
    o.dtype = "uint8";
    o.effort = static_cast<z4ai::Effort>(effort);
    auto frame = z4ai::compress(bytes, o);
    ASSERT_TRUE(frame.ok()) << frame.status().to_string();
    EXPECT_EQ(*stored, *frame) << "effort " << int(effort);
  }
  ComponentSpec zstd_default, zstd_3;
  zstd_default.dtype = zstd_3.dtype = DType::u8;
  zstd_default.data = zstd_3.data = bytes;
  zstd_default.encoding = zstd_3.encoding = Encoding::zstd;
  zstd_3.level = 3;
  EXPECT_EQ(encode_component(zstd_default).value(), encode_component(zstd_3).value());
}

}  // namespace
}  // namespace zt
