#include <gtest/gtest.h>

#include "container/cbor_decode.h"
#include "container/cbor_encode.h"
#include "container/limits.h"

namespace zt {
namespace {

std::vector<uint8_t> encode(const Value& v) {
  CborEncoder e;
  e.value(v);
  return e.take();
}

TEST(Cbor, RoundTripsEveryKind) {
  Value m = Value::map();
  m.set("u", Value::uint(UINT64_MAX));
  m.set("n", Value::integer(-5));
  m.set("big_neg", Value::negative(UINT64_MAX));
  m.set("f", Value::float64(1.5));
  m.set("t", Value::text("hé"));
  m.set("b", Value::bytes(std::string("\0\1", 2)));
  m.set("a", Value::array({Value::boolean(true), Value::null()}));
  auto bytes = encode(m);
  auto r = cbor_decode(bytes, "test");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->find("u")->as_uint(), UINT64_MAX);
  EXPECT_EQ(r->find("n")->as_int64(), -5);
  EXPECT_EQ(r->find("big_neg")->negative_arg(), UINT64_MAX);
  EXPECT_EQ(r->find("f")->as_double(), 1.5);
  EXPECT_EQ(r->find("t")->as_string(), "hé");
  EXPECT_EQ(r->find("b")->as_string().size(), 2u);
  EXPECT_TRUE(r->find("a")->as_array()[0].as_bool());
  EXPECT_EQ(encode(*r), bytes);  // deterministic re-encoding
}

TEST(Cbor, RejectsTrailingBytes) {
  std::vector<uint8_t> bytes = {0xa0, 0x00};
  auto r = cbor_decode(bytes, "manifest");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::malformed_manifest);
  EXPECT_NE(r.status().message().find("trailing"), std::string::npos);
}

TEST(Cbor, RejectsHugeClaimedArrayWithoutAllocating) {
  // 0x9b = array with a u64 length: claim 2^62 items in a 9-byte buffer.
  std::vector<uint8_t> bytes = {0x9b, 0x40, 0, 0, 0, 0, 0, 0, 0};
  auto r = cbor_decode(bytes, "manifest");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::malformed_manifest);
}

TEST(Cbor, RejectsHugeClaimedMap) {
  std::vector<uint8_t> bytes = {0xbb, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x01};
  EXPECT_EQ(cbor_decode(bytes, "m").status().code(), ErrorCode::malformed_manifest);
}

TEST(Cbor, RejectsDeepNesting) {
  std::vector<uint8_t> bytes(200000, 0x81);  // [[[[...
  bytes.push_back(0x00);
  auto r = cbor_decode(bytes, "manifest");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::limit_exceeded);
}

TEST(Cbor, RejectsDeepIndefiniteNesting) {
  std::vector<uint8_t> bytes(200000, 0x9f);
  EXPECT_EQ(cbor_decode(bytes, "m").status().code(), ErrorCode::limit_exceeded);
}

TEST(Cbor, RejectsTruncated) {
  std::vector<uint8_t> bytes = {0xa1, 0x61, 'a'};
  EXPECT_EQ(cbor_decode(bytes, "m").status().code(), ErrorCode::malformed_manifest);
  std::vector<uint8_t> str = {0x7b, 0x40, 0, 0, 0, 0, 0, 0, 0, 'x'};  // text claiming 2^62 bytes
  EXPECT_EQ(cbor_decode(str, "m").status().code(), ErrorCode::malformed_manifest);
}

TEST(Cbor, IndefiniteContainersAndStrings) {
  // {_ "a": (_ "x", "y")} as indefinite map + indefinite text.
  std::vector<uint8_t> bytes = {0xbf, 0x61, 'a', 0x7f, 0x61, 'x', 0x61, 'y', 0xff, 0xff};
  auto r = cbor_decode(bytes, "m");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->find("a")->as_string(), "xy");
}

TEST(Cbor, RejectsStrayBreak) {
  std::vector<uint8_t> bytes = {0xff};
  EXPECT_EQ(cbor_decode(bytes, "m").status().code(), ErrorCode::malformed_manifest);
}

TEST(Cbor, RejectsMixedIndefiniteChunks) {
  std::vector<uint8_t> bytes = {0x7f, 0x41, 'x', 0xff};
  EXPECT_EQ(cbor_decode(bytes, "m").status().code(), ErrorCode::malformed_manifest);
}

}  // namespace
}  // namespace zt
