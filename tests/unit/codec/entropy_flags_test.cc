// htscodecs streams carry header flags; the decoder accepts only those our
// encoders write. PACK/RLE/STRIPE made htscodecs allocate buffers sized by the
// stream's own claims (a fuzzer input asked for 657 MB), so they are refused.
#include <gtest/gtest.h>

#include <vector>

#include "codec/entropy/entropy.h"

namespace z4ai::detail {
namespace {

std::vector<uint8_t> sample() {
  std::vector<uint8_t> v(200000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>((i * 7) % 13);
  return v;
}

TEST(EntropyFlags, StreamsOurEncodersWriteDecode) {
  const auto in = sample();
  for (int order : {0, 1}) {
    std::vector<uint8_t> rans, arith, out(in.size());
    ASSERT_TRUE(encode_rans(in, order, rans));
    EXPECT_TRUE(decode_rans(rans, out).ok());
    EXPECT_EQ(out, in);
    ASSERT_TRUE(encode_arith(in, order, arith));
    EXPECT_TRUE(decode_arith(arith, out).ok());
    EXPECT_EQ(out, in);
  }
}

TEST(EntropyFlags, PackRleStripeAndNoSizeFlagsAreRefused) {
  const auto in = sample();
  std::vector<uint8_t> rans, arith, out(in.size());
  ASSERT_TRUE(encode_rans(in, 0, rans));
  ASSERT_TRUE(encode_arith(in, 0, arith));
  for (uint8_t flag : {0x80, 0x40, 0x10, 0x08}) {  // PACK, RLE, NOSZ, STRIPE
    auto r = rans, a = arith;
    r[0] |= flag;
    a[0] |= flag;
    auto rs = decode_rans(r, out);
    auto as = decode_arith(a, out);
    EXPECT_EQ(rs.code(), zt::ErrorCode::corrupt_stream) << int(flag);
    EXPECT_EQ(as.code(), zt::ErrorCode::corrupt_stream) << int(flag);
    EXPECT_NE(rs.message().find("header flags"), std::string::npos) << rs.message();
  }
}


// Order 1, decoded size 16, compressed frequency table declared as ~2^35 bytes
// (5 varint bytes): htscodecs would allocate that before decoding the table.
TEST(EntropyFlags, Order1TableDeclaringGigabytesIsRefusedBeforeHtscodecs) {
  const std::vector<uint8_t> stream = {0x01, 0x10, 0x01, 0x87, 0xff, 0xff, 0xff, 0x7f, 0x04, 1, 2, 3, 4,
                                       0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  std::vector<uint8_t> out(16);
  auto s = decode_rans(stream, out);
  EXPECT_EQ(s.code(), zt::ErrorCode::corrupt_stream);
  EXPECT_NE(s.message().find("frequency table"), std::string::npos) << s.message();
}

// Real order-1 streams (their tables compressed or not) still decode: large,
// skewed input makes htscodecs compress the table.
TEST(EntropyFlags, Order1StreamsWithTheirTablesDecode) {
  std::vector<uint8_t> in(1 << 20);
  for (size_t i = 0; i < in.size(); ++i) in[i] = uint8_t((i * 2654435761u) >> 27) ^ uint8_t(i / 4096);
  std::vector<uint8_t> rans, out(in.size());
  ASSERT_TRUE(encode_rans(in, 1, rans));
  ASSERT_TRUE(decode_rans(rans, out).ok());
  EXPECT_EQ(out, in);
}

}  // namespace
}  // namespace z4ai::detail
