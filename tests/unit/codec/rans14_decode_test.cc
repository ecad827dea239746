// The 14-bit order-0 rANS decoder of methods 9 and 10 (rans14_decode.h), one
// stream and two at once, against a byte-at-a-time reference written from
// the layout: the same bytes and the same verdict on coded, truncated,
// mutated and random streams, any length and alignment, no stray writes.
#include "codec/entropy/rans14_decode.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "codec/entropy/rans14.h"

namespace z4ai::detail {
namespace {

constexpr size_t kTableAt = 8;               // after u64 n
constexpr size_t kPayloadAt = kTableAt + 512;  // the 4 states, then the bytes

// Reference: lane i % 4 for symbol i, renormalising a byte at a time.
// nullopt for a stream the layout rejects.
std::optional<std::vector<uint8_t>> reference(const std::vector<uint8_t>& in, const uint8_t* table, size_t n) {
  std::vector<uint8_t> out(n);
  if (n == 0) return out;
  uint32_t freq[256], cum[256], acc = 0;
  for (int s = 0; s < 256; ++s) freq[s] = table[2 * s] | table[2 * s + 1] << 8, cum[s] = acc, acc += freq[s];
  if (acc != 1u << 14 || in.size() < 16) return std::nullopt;
  uint32_t x[4];
  for (int l = 0; l < 4; ++l) {
    std::memcpy(&x[l], in.data() + 4 * l, 4);
    if (x[l] < (1u << 23) || x[l] >= (1u << 31)) return std::nullopt;
  }
  size_t p = 16;
  for (size_t i = 0; i < n; ++i) {
    uint32_t& s = x[i % 4];
    const uint32_t slot = s & 0x3FFF;
    int sym = 0;
    while (cum[sym] + freq[sym] <= slot) ++sym;
    out[i] = uint8_t(sym);
    s = freq[sym] * (s >> 14) + slot - cum[sym];
    while (s < (1u << 23)) {
      if (p >= in.size()) return std::nullopt;
      s = s << 8 | in[p++];
    }
  }
  for (uint32_t s : x)
    if (s != 1u << 23) return std::nullopt;
  if (p != in.size()) return std::nullopt;  // every byte consumed
  return out;
}

struct Coded {
  std::vector<uint8_t> table, payload;
  size_t n;
};

Coded code(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> out;
  EXPECT_TRUE(encode_rans14(in, out));
  if (out.size() < kPayloadAt) {  // no symbols: a head alone; any valid table
    std::vector<uint8_t> table(512, 0);
    table[1] = 0x40;
    return {table, {}, in.size()};
  }
  return {{out.begin() + kTableAt, out.begin() + kPayloadAt}, {out.begin() + kPayloadAt, out.end()}, in.size()};
}

std::vector<uint8_t> skewed(size_t n, double spread, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(100, spread);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(std::lround(std::clamp(g(rng), 0.0, 255.0)));
  return v;
}

// A copy at `misalign` bytes past an aligned address, with guard bytes around.
struct Placed {
  std::vector<uint8_t> buf;
  size_t off, n;
  Placed(const std::vector<uint8_t>& v, size_t misalign) : buf(v.size() + 80, 0xCD), off(misalign), n(v.size()) {
    if (n) std::memcpy(buf.data() + off, v.data(), n);
  }
  std::span<uint8_t> span() { return {buf.data() + off, n}; }
  std::vector<uint8_t> bytes() const { return {buf.begin() + off, buf.begin() + off + n}; }
  bool guards_intact() const {
    for (size_t i = 0; i < buf.size(); ++i)
      if ((i < off || i >= off + n) && buf[i] != 0xCD) return false;
    return true;
  }
};

// One stream, then as either half of a pair with `other`: the reference's verdict and bytes.
void expect_like_reference(const Coded& c, const Coded& other, size_t misalign) {
  SCOPED_TRACE(testing::Message() << c.n << " symbols, " << c.payload.size() << " bytes, misalign " << misalign);
  Rans14Model m, mo;
  ASSERT_TRUE(build_rans14_model(c.table.data(), m).ok());
  ASSERT_TRUE(build_rans14_model(other.table.data(), mo).ok());
  const auto want = reference(c.payload, c.table.data(), c.n);
  const auto want_other = reference(other.payload, other.table.data(), other.n);
  Placed in(c.payload, misalign), out(std::vector<uint8_t>(c.n, 0xCD), 3 + misalign);
  const zt::Status st = decode_rans14_stream(in.span(), m, out.span());
  EXPECT_EQ(st.ok(), want.has_value()) << st.message();
  if (!st.ok()) {
    EXPECT_EQ(st.code(), zt::ErrorCode::corrupt_stream);
  } else if (want) {
    EXPECT_EQ(out.bytes(), *want);
  }
  EXPECT_TRUE(out.guards_intact());

  for (int first = 0; first < 2; ++first) {
    Placed po(std::vector<uint8_t>(other.n, 0xCD), 1), pin(other.payload, 5);
    Placed o2(std::vector<uint8_t>(c.n, 0xCD), misalign);
    const zt::Status s2 = first ? decode_rans14_streams2(in.span(), m, o2.span(), pin.span(), mo, po.span())
                                : decode_rans14_streams2(pin.span(), mo, po.span(), in.span(), m, o2.span());
    EXPECT_EQ(s2.ok(), want.has_value() && want_other.has_value()) << s2.message();
    if (s2.ok()) {
      EXPECT_EQ(o2.bytes(), *want);
      EXPECT_EQ(po.bytes(), *want_other);
    }
    EXPECT_TRUE(o2.guards_intact() && po.guards_intact());
  }
}

const std::vector<size_t> kLengths = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 100, 1001, 4097, 65537};

TEST(Rans14Decode, CodedStreamsOfEveryLengthAndAlignmentMatchReference) {
  const Coded partner = code(skewed(5003, 20, 99));
  for (size_t n : kLengths)
    for (double spread : {0.3, 4.0, 60.0})
      expect_like_reference(code(skewed(n, spread, uint32_t(n))), partner, n % 8);
}

TEST(Rans14Decode, PairsOfUnequalLengthsAndOneSharedModel) {
  const Coded big = code(skewed(100000, 5, 1));
  for (size_t n : kLengths) expect_like_reference(code(skewed(n, 5, uint32_t(n) + 7)), big, 1);
  expect_like_reference(big, big, 0);  // one model for both (PyPI's chunked layout)
}

TEST(Rans14Decode, TruncatedMutatedAndExtendedStreamsGetTheReferenceVerdict) {
  std::mt19937 rng(5);
  const Coded partner = code(skewed(3000, 8, 2));
  for (size_t n : {size_t(17), size_t(1000), size_t(20000)}) {
    const Coded c = code(skewed(n, 8, uint32_t(n)));
    for (size_t cut : {size_t(1), size_t(2), size_t(7), size_t(9), c.payload.size() - 15}) {
      Coded t = c;
      t.payload.resize(c.payload.size() - std::min(cut, c.payload.size()));
      expect_like_reference(t, partner, cut % 8);
    }
    for (int trial = 0; trial < 40; ++trial) {
      Coded t = c;
      t.payload[rng() % t.payload.size()] ^= uint8_t(1 + rng() % 255);
      expect_like_reference(t, partner, size_t(trial) % 8);
    }
    Coded longer = c;
    longer.payload.insert(longer.payload.end(), {1, 2, 3});
    expect_like_reference(longer, partner, 2);
  }
}

// docs/codec.md: "Every state MUST end at exactly 2^23 with every byte consumed."
TEST(Rans14Decode, BytesAfterTheLastSymbolAreRefused) {
  const Coded c = code(skewed(1000, 8, 3));
  Rans14Model m;
  ASSERT_TRUE(build_rans14_model(c.table.data(), m).ok());
  std::vector<uint8_t> out(c.n);
  ASSERT_TRUE(decode_rans14_stream(c.payload, m, out).ok());
  std::vector<uint8_t> longer = c.payload;
  longer.push_back(0);
  const zt::Status st = decode_rans14_stream(longer, m, out);
  EXPECT_EQ(st.code(), zt::ErrorCode::corrupt_stream);
  EXPECT_NE(st.message().find("1 bytes after the last symbol"), std::string::npos) << st.message();
  std::vector<uint8_t> out_b(c.n);  // the two outputs must not overlap
  EXPECT_EQ(decode_rans14_streams2(c.payload, m, out, longer, m, out_b).code(), zt::ErrorCode::corrupt_stream);
}

TEST(Rans14Decode, RandomBytesUnderEveryKindOfTableGetTheReferenceVerdict) {
  std::mt19937 rng(6);
  for (int trial = 0; trial < 60; ++trial) {
    Coded c = code(skewed(257, 1.0 + trial, uint32_t(trial)));
    c.n = rng() % 300;
    c.payload.resize(16 + rng() % 200);
    for (auto& b : c.payload) b = uint8_t(rng());
    // States in range half the time, so decoding gets under way.
    if (trial % 2) c.payload[3] = uint8_t(0x01 + rng() % 0x7E), c.payload[7] = 0x40, c.payload[11] = 0x10, c.payload[15] = 0x7F;
    expect_like_reference(c, c, size_t(trial) % 8);
  }
}

TEST(Rans14Decode, TableThatDoesNotSumTo2To14IsRejected) {
  std::vector<uint8_t> table(512, 0);
  table[0] = 0xFF, table[1] = 0x3F;  // 16383
  Rans14Model m;
  EXPECT_EQ(build_rans14_model(table.data(), m).code(), zt::ErrorCode::corrupt_stream);
  table[0] = 0x00, table[1] = 0x40;  // one symbol takes every slot
  ASSERT_TRUE(build_rans14_model(table.data(), m).ok());
  EXPECT_EQ(m.slot[0], 0);
  EXPECT_EQ(m.slot[(1u << 14) - 1], 0);
}

}  // namespace
}  // namespace z4ai::detail
