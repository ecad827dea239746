// The .npy header literal parser on the subset numpy writes and its edges.
#include <gtest/gtest.h>

#include "convert/numpy/npy_header.h"

namespace zt::npy {
namespace {

Result<Header> literal(const std::string& text) {
  Header h;
  Status s = parse_literal(text, "t", &h);
  if (!s.ok()) return s;
  return h;
}

TEST(NpyLiteral, AcceptsWhatNumpyWrites) {
  auto h = literal("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }          \n");
  ASSERT_TRUE(h.ok()) << h.status().to_string();
  EXPECT_EQ(h->descr, "<f4");
  EXPECT_FALSE(h->fortran_order);
  EXPECT_EQ(h->shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_TRUE(literal("{'descr':'|b1','fortran_order':True,'shape':()}").ok());
  EXPECT_EQ(literal("{\"shape\": (7,), \"descr\": \">i8\", \"fortran_order\": False}")->shape,
            (std::vector<uint64_t>{7}));
  EXPECT_EQ(literal("{'descr': '<f4', 'fortran_order': False, 'shape': (3L, 4L)}")->shape,
            (std::vector<uint64_t>{3, 4}));  // Python 2 longs
}

TEST(NpyLiteral, RefusesEverythingElse) {
  const char* bad[] = {
      "",
      "{",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)",
      "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': [2]}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (02,)}",
      "{'descr': '<f\\x34', 'fortran_order': False, 'shape': (2,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,,)}",
      "{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}",
      "[{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}]",
  };
  for (const char* t : bad) EXPECT_EQ(literal(t).status().code(), ErrorCode::malformed_manifest) << t;
  EXPECT_EQ(literal("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (2,)}").status().code(),
            ErrorCode::unsupported);
}

TEST(NpyHeader, DtypesAndByteOrder) {
  auto make = [](const std::string& descr) {
    std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2,), }";
    std::vector<uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<uint8_t>(h.size()), 0};
    b.insert(b.end(), h.begin(), h.end());
    return parse_header(b, "t");
  };
  auto c = make(">c8");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->dtype, DType::f32);
  EXPECT_EQ(c->type, LogicalType::complex64);
  EXPECT_TRUE(c->big_endian);
  EXPECT_EQ(c->swap_width, 4u);
  EXPECT_EQ(c->data_bytes, 16u);
  EXPECT_FALSE(make(">u1")->big_endian);  // one byte: nothing to swap
  EXPECT_EQ(make("|f4").status().code(), ErrorCode::unsupported);
  EXPECT_EQ(make("<f16").status().code(), ErrorCode::unsupported);  // long double
  EXPECT_EQ(make("<M8[ns]").status().code(), ErrorCode::unsupported);
}

}  // namespace
}  // namespace zt::npy
