// The protobuf wire reader on hand-written bytes: varint limits, lengths
// against the remaining bytes, refused group wire types.
#include <gtest/gtest.h>

#include <vector>

#include "convert/onnx/protobuf_wire.h"

namespace zt::pb {
namespace {

using B = std::vector<uint8_t>;

TEST(ProtobufWire, VarintsUpToSixtyFourBits) {
  B max = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  size_t pos = 0;
  auto v = read_varint(max, &pos);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, UINT64_MAX);
  EXPECT_EQ(pos, 10u);
  B over = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
  pos = 0;
  EXPECT_EQ(read_varint(over, &pos).status().code(), ErrorCode::malformed_manifest);
  B eleven = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  pos = 0;
  EXPECT_EQ(read_varint(eleven, &pos).status().code(), ErrorCode::malformed_manifest);
  B truncated = {0x80, 0x80};
  pos = 0;
  EXPECT_EQ(read_varint(truncated, &pos).status().code(), ErrorCode::malformed_manifest);
}

TEST(ProtobufWire, FieldsOfEveryWireType) {
  B msg = {0x08, 0x96, 0x01,                    // 1: varint 150
           0x12, 0x02, 'h', 'i',                // 2: "hi"
           0x1d, 0x01, 0x00, 0x00, 0x00,        // 3: fixed32 1
           0x21, 2, 0, 0, 0, 0, 0, 0, 0};       // 4: fixed64 2
  Reader r(msg, "test");
  auto a = r.next();
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->number, 1u);
  EXPECT_EQ(a->value, 150u);
  auto b = r.next();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(std::string(b->bytes.begin(), b->bytes.end()), "hi");
  auto c = r.next();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->value, 1u);
  EXPECT_EQ(c->bytes.size(), 4u);
  auto d = r.next();
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->value, 2u);
  EXPECT_TRUE(r.done());
}

TEST(ProtobufWire, HostileFieldsFailCleanly) {
  B len_past_end = {0x12, 0x05, 'a'};
  EXPECT_EQ(Reader(len_past_end, "t").next().status().code(), ErrorCode::malformed_manifest);
  B huge_len = {0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  EXPECT_EQ(Reader(huge_len, "t").next().status().code(), ErrorCode::malformed_manifest);
  B group = {0x0b};
  EXPECT_EQ(Reader(group, "t").next().status().code(), ErrorCode::unsupported);
  B end_group = {0x0c};
  EXPECT_EQ(Reader(end_group, "t").next().status().code(), ErrorCode::unsupported);
  B field_zero = {0x00, 0x01};
  EXPECT_EQ(Reader(field_zero, "t").next().status().code(), ErrorCode::malformed_manifest);
  B wire7 = {0x0f};
  EXPECT_EQ(Reader(wire7, "t").next().status().code(), ErrorCode::malformed_manifest);
  B short_fixed = {0x1d, 0x01};
  EXPECT_EQ(Reader(short_fixed, "t").next().status().code(), ErrorCode::malformed_manifest);
}

TEST(ProtobufWire, CountVarintsRejectsPartialValue) {
  B run = {0x01, 0x96, 0x01, 0x7f};
  EXPECT_EQ(count_varints(run).value(), 3u);
  B partial = {0x01, 0x96};
  EXPECT_EQ(count_varints(partial).status().code(), ErrorCode::malformed_manifest);
}

}  // namespace
}  // namespace zt::pb
