// The SIMD kernels must match the scalar frame definitions (docs/codec.md)
// byte for byte, for every size (vector tails) and alignment, on every SIMD
// target compiled in, not only the one this CPU would pick.
#include "codec/transform/field_kernels.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstring>
#include <random>
#include <vector>

namespace z4ai::detail {
namespace {

// Reference: the bit layouts written as whole-word arithmetic, independent
// of the kernels' byte-wise formulation.
void ref_bf16_split(const uint8_t* src, size_t n, uint8_t* e, uint8_t* sm) {
  for (size_t i = 0; i < n; ++i) {
    uint16_t v = uint16_t(src[2 * i] | src[2 * i + 1] << 8);
    e[i] = uint8_t((v >> 7) & 0xFF);
    sm[i] = uint8_t((v >> 15) << 7 | (v & 0x7F));
  }
}
void ref_bf16_merge(const uint8_t* e, const uint8_t* sm, size_t n, uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) {
    uint16_t v = uint16_t((sm[i] >> 7) << 15 | e[i] << 7 | (sm[i] & 0x7F));
    dst[2 * i] = uint8_t(v);
    dst[2 * i + 1] = uint8_t(v >> 8);
  }
}
void ref_fp32_split(const uint8_t* src, size_t n, uint8_t* e, uint8_t* sm, uint8_t* m1, uint8_t* m0) {
  for (size_t i = 0; i < n; ++i) {
    uint32_t v;
    std::memcpy(&v, src + 4 * i, 4);
    e[i] = uint8_t(v >> 23);
    sm[i] = uint8_t((v >> 31) << 7 | ((v >> 16) & 0x7F));
    m1[i] = uint8_t(v >> 8);
    m0[i] = uint8_t(v);
  }
}
void ref_fp32_merge(const uint8_t* e, const uint8_t* sm, const uint8_t* m1, const uint8_t* m0, size_t n,
                    uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) {
    uint32_t v = uint32_t(sm[i] >> 7) << 31 | uint32_t(e[i]) << 23 | uint32_t(sm[i] & 0x7F) << 16 |
                 uint32_t(m1[i]) << 8 | m0[i];
    std::memcpy(dst + 4 * i, &v, 4);
  }
}

void ref_fp16_merge(const uint8_t* e, const uint8_t* lo, const uint8_t* hi, size_t n, uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) {
    const uint16_t v = uint16_t((hi[i] >> 2 & 1) << 15 | (e[i] & 0x1F) << 10 | (hi[i] & 0x3) << 8 | lo[i]);
    std::memcpy(dst + 2 * i, &v, 2);
  }
}

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(rng());
  return v;
}

// Around every vector length up to 512-bit (and twice that for pairs), plus large.
const std::vector<size_t> kSizes = {0,  1,  2,  3,  7,  8,  9,   15,  16,  17,  31,  32,  33,   63,
                                    64, 65, 95, 96, 97, 127, 128, 129, 255, 256, 257, 1000, 4099, 100003};

// Runs `body` once per SIMD target compiled into the kernels and supported here.
template <class F>
void for_each_target(F body) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    body();
  }
  hwy::SetSupportedTargetsForTest(0);
}

// A copy of `v` starting `misalign` bytes past an aligned address.
struct Shifted {
  std::vector<uint8_t> buf;
  size_t off;
  Shifted(const std::vector<uint8_t>& v, size_t misalign) : buf(v.size() + 64), off(misalign) {
    if (!v.empty()) std::memcpy(buf.data() + off, v.data(), v.size());
  }
  Shifted(size_t n, size_t misalign) : buf(n + 64, 0xCD), off(misalign) {}
  uint8_t* data() { return buf.data() + off; }
  std::vector<uint8_t> take(size_t n) const { return {buf.begin() + off, buf.begin() + off + n}; }
  // Bytes outside [off, off+n) must still hold the fill: no stray writes.
  bool untouched_outside(size_t n) const {
    for (size_t i = 0; i < buf.size(); ++i)
      if ((i < off || i >= off + n) && buf[i] != 0xCD) return false;
    return true;
  }
};

TEST(FieldKernels, Bf16SplitAndMergeMatchReference) {
  for_each_target([] {
    for (size_t n : kSizes) {
      SCOPED_TRACE(n);
      auto src = random_bytes(2 * n, uint32_t(n));
      std::vector<uint8_t> e(n), sm(n), back(2 * n);
      ref_bf16_split(src.data(), n, e.data(), sm.data());
      Shifted in(src, 1), ke(n, 3), ksm(n, 5);
      bf16_split_kernel(in.data(), n, ke.data(), ksm.data());
      EXPECT_EQ(ke.take(n), e);
      EXPECT_EQ(ksm.take(n), sm);
      EXPECT_TRUE(ke.untouched_outside(n) && ksm.untouched_outside(n));

      // Merge arbitrary streams (not only split output): every bit is used.
      auto re = random_bytes(n, uint32_t(n) + 1), rsm = random_bytes(n, uint32_t(n) + 2);
      ref_bf16_merge(re.data(), rsm.data(), n, back.data());
      Shifted a(re, 7), b(rsm, 2), out(2 * n, 1);
      bf16_merge_kernel(a.data(), b.data(), n, out.data());
      EXPECT_EQ(out.take(2 * n), back);
      EXPECT_TRUE(out.untouched_outside(2 * n));
    }
  });
}

TEST(FieldKernels, Fp16MergeMatchesReference) {
  for_each_target([] {
    for (size_t n : kSizes) {
      SCOPED_TRACE(n);
      // Arbitrary stream bytes: the merge must mask the bits it does not use.
      auto e = random_bytes(n, uint32_t(n) + 20), lo = random_bytes(n, uint32_t(n) + 21),
           hi = random_bytes(n, uint32_t(n) + 22);
      std::vector<uint8_t> back(2 * n);
      ref_fp16_merge(e.data(), lo.data(), hi.data(), n, back.data());
      Shifted a(e, 1), b(lo, 6), c(hi, 3), out(2 * n, 7);
      fp16_merge_kernel(a.data(), b.data(), c.data(), n, out.data());
      EXPECT_EQ(out.take(2 * n), back);
      EXPECT_TRUE(out.untouched_outside(2 * n));
    }
  });
}

// Sign split merges: whole-word reference, arbitrary bytes in every stream
// (sign bits past n included), all SIMD targets, sizes and alignments.
TEST(FieldKernels, SignMergesMatchReference) {
  for_each_target([] {
    for (size_t n : kSizes) {
      SCOPED_TRACE(n);
      auto signs = random_bytes((n + 7) / 8, uint32_t(n) + 30), e = random_bytes(n, uint32_t(n) + 31),
           mant = random_bytes(n, uint32_t(n) + 32), m1 = random_bytes(n, uint32_t(n) + 33),
           m0 = random_bytes(n, uint32_t(n) + 34);
      std::vector<uint8_t> want16(2 * n), want32(4 * n);
      for (size_t i = 0; i < n; ++i) {
        const uint32_t sign = (signs[i / 8] >> (i % 8)) & 1;
        const uint16_t v16 = uint16_t(sign << 15 | e[i] << 7 | (mant[i] & 0x7F));
        const uint32_t v32 = sign << 31 | uint32_t(e[i]) << 23 | uint32_t(mant[i] & 0x7F) << 16 | m1[i] << 8 | m0[i];
        std::memcpy(&want16[2 * i], &v16, 2);
        std::memcpy(&want32[4 * i], &v32, 4);
      }
      Shifted s(signs, 5), a(e, 1), b(mant, 2), c(m1, 7), dd(m0, 4), out16(2 * n, 3), out32(4 * n, 6);
      bf16_sign_merge_kernel(s.data(), a.data(), b.data(), n, out16.data());
      fp32_sign_merge_kernel(s.data(), a.data(), b.data(), c.data(), dd.data(), n, out32.data());
      EXPECT_EQ(out16.take(2 * n), want16);
      EXPECT_EQ(out32.take(4 * n), want32);
      EXPECT_TRUE(out16.untouched_outside(2 * n) && out32.untouched_outside(4 * n));
    }
  });
}

TEST(FieldKernels, Fp32SplitAndMergeMatchReference) {
  for_each_target([] {
    for (size_t n : kSizes) {
      SCOPED_TRACE(n);
      auto src = random_bytes(4 * n, uint32_t(n) + 10);
      std::vector<uint8_t> e(n), sm(n), m1(n), m0(n);
      ref_fp32_split(src.data(), n, e.data(), sm.data(), m1.data(), m0.data());
      Shifted in(src, 3), ke(n, 1), ksm(n, 2), km1(n, 3), km0(n, 4);
      fp32_split_kernel(in.data(), n, ke.data(), ksm.data(), km1.data(), km0.data());
      EXPECT_EQ(ke.take(n), e);
      EXPECT_EQ(ksm.take(n), sm);
      EXPECT_EQ(km1.take(n), m1);
      EXPECT_EQ(km0.take(n), m0);
      EXPECT_TRUE(ke.untouched_outside(n) && ksm.untouched_outside(n) && km1.untouched_outside(n) &&
                  km0.untouched_outside(n));

      std::vector<std::vector<uint8_t>> r;
      for (uint32_t k = 0; k < 4; ++k) r.push_back(random_bytes(n, uint32_t(n) * 7 + k));
      std::vector<uint8_t> back(4 * n);
      ref_fp32_merge(r[0].data(), r[1].data(), r[2].data(), r[3].data(), n, back.data());
      Shifted a(r[0], 1), b(r[1], 0), c(r[2], 6), dd(r[3], 3), out(4 * n, 5);
      fp32_merge_kernel(a.data(), b.data(), c.data(), dd.data(), n, out.data());
      EXPECT_EQ(out.take(4 * n), back);
      EXPECT_TRUE(out.untouched_outside(4 * n));
    }
  });
}

TEST(FieldKernels, EveryBf16PatternRoundTrips) {
  for_each_target([] {
    std::vector<uint8_t> all(2 * 65536), e(65536), sm(65536), back(2 * 65536);
    for (uint32_t v = 0; v < 65536; ++v) {
      all[2 * v] = uint8_t(v);
      all[2 * v + 1] = uint8_t(v >> 8);
    }
    bf16_split_kernel(all.data(), 65536, e.data(), sm.data());
    bf16_merge_kernel(e.data(), sm.data(), 65536, back.data());
    EXPECT_EQ(back, all);
  });
}

TEST(FieldKernels, PlanesMatchReferenceForEveryWidth) {
  for_each_target([] {
    for (uint32_t width : {1u, 2u, 3u, 4u, 5u, 8u, 16u}) {
      for (size_t n : kSizes) {
        SCOPED_TRACE(::testing::Message() << "width " << width << " n " << n);
        auto src = random_bytes(width * n, width * 1000 + uint32_t(n));
        std::vector<Shifted> planes;
        std::vector<uint8_t*> w;
        for (uint32_t j = 0; j < width; ++j) planes.emplace_back(n, j % 7);
        for (auto& p : planes) w.push_back(p.data());
        Shifted in(src, 5);
        split_planes_kernel(in.data(), n, width, w.data());
        for (uint32_t j = 0; j < width; ++j) {
          std::vector<uint8_t> want(n);
          for (size_t i = 0; i < n; ++i) want[i] = src[i * width + j];
          EXPECT_EQ(planes[j].take(n), want) << "plane " << j;
          EXPECT_TRUE(planes[j].untouched_outside(n)) << "plane " << j;
        }
        std::vector<const uint8_t*> r(w.begin(), w.end());
        Shifted out(width * n, 3);
        join_planes_kernel(r.data(), n, width, out.data());
        EXPECT_EQ(out.take(width * n), src);
        EXPECT_TRUE(out.untouched_outside(width * n));
      }
    }
  });
}

// ---- Exponent nibble pairs.

uint8_t ref_nibble(uint8_t e, uint8_t base) {
  int sym = (e - base) & 0xFF;
  return uint8_t(sym <= 14 ? sym : 15);
}
// Returns the escapes; pairs is resized to ceil(n/2).
std::vector<uint8_t> ref_pack(const std::vector<uint8_t>& exp, uint8_t base, std::vector<uint8_t>& pairs) {
  std::vector<uint8_t> esc;
  pairs.assign((exp.size() + 1) / 2, 0);
  for (size_t i = 0; i < exp.size(); ++i) {
    uint8_t nib = ref_nibble(exp[i], base);
    if (nib == 15) esc.push_back(exp[i]);
    pairs[i / 2] |= uint8_t(nib << (4 * (i % 2)));
  }
  return esc;
}
std::vector<uint8_t> ref_unpack(const uint8_t* pairs, const uint8_t* esc, uint8_t base, size_t n) {
  std::vector<uint8_t> exp(n);
  for (size_t i = 0; i < n; ++i) {
    uint8_t nib = (pairs[i / 2] >> (4 * (i % 2))) & 0xF;
    exp[i] = nib == 15 ? *esc++ : uint8_t(nib + base);
  }
  return exp;
}

// Exponent streams: clustered just above `base` with a `escape_pct` share
// far away (escape_pct 100: all escapes), plus the boundary symbols 14, 15.
std::vector<uint8_t> exponents(size_t n, uint8_t base, int escape_pct, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> e(n);
  for (auto& x : e) {
    if (int(rng() % 100) < escape_pct) x = uint8_t(base + 15 + rng() % 241);  // sym 15..255
    else x = uint8_t(base + rng() % 15);                                        // sym 0..14
  }
  if (n > 3 && escape_pct < 100) e[n / 2] = uint8_t(base + 14), e[n / 3] = uint8_t(base + 15);
  return e;
}

// bf16 elements whose exponent field is `exp` and whose other bits are random.
std::vector<uint8_t> bf16_with_exponents(const std::vector<uint8_t>& exp, uint32_t seed) {
  auto bytes = random_bytes(2 * exp.size(), seed);
  for (size_t i = 0; i < exp.size(); ++i) {
    uint16_t v = uint16_t(bytes[2 * i] | bytes[2 * i + 1] << 8);
    v = uint16_t((v & 0x807F) | exp[i] << 7);
    bytes[2 * i] = uint8_t(v), bytes[2 * i + 1] = uint8_t(v >> 8);
  }
  return bytes;
}
std::vector<uint8_t> fp32_with_exponents(const std::vector<uint8_t>& exp, uint32_t seed) {
  auto bytes = random_bytes(4 * exp.size(), seed);
  for (size_t i = 0; i < exp.size(); ++i) {
    uint32_t v;
    std::memcpy(&v, &bytes[4 * i], 4);
    v = (v & 0x807FFFFFu) | uint32_t(exp[i]) << 23;
    std::memcpy(&bytes[4 * i], &v, 4);
  }
  return bytes;
}

struct PairCase {
  uint8_t base;
  int escape_pct;
};
// base 0 and 250 make exp - base wrap; 100 % is an all-escape stream.
const std::vector<PairCase> kPairCases = {{120, 0}, {113, 1}, {0, 5}, {250, 30}, {127, 100}};

TEST(ExponentPairs, PackMatchesReference) {
  for_each_target([] {
    for (const auto& pc : kPairCases) {
      for (size_t n : kSizes) {
        SCOPED_TRACE(::testing::Message() << "base " << int(pc.base) << " esc% " << pc.escape_pct << " n " << n);
        auto exp = exponents(n, pc.base, pc.escape_pct, uint32_t(n) + pc.base);
        std::vector<uint8_t> want_pairs;
        auto want_esc = ref_pack(exp, pc.base, want_pairs);
        Shifted in(exp, 3), pairs((n + 1) / 2, 1), esc(n, 2);
        size_t k = pack_exponent_pairs(in.data(), n, pc.base, pairs.data(), esc.data());
        EXPECT_EQ(pairs.take((n + 1) / 2), want_pairs);
        ASSERT_EQ(k, want_esc.size());
        EXPECT_EQ(esc.take(k), want_esc);
        EXPECT_TRUE(pairs.untouched_outside((n + 1) / 2));
        EXPECT_TRUE(esc.untouched_outside(k));
        size_t counted = 0;
        EXPECT_TRUE(count_pair_escapes(pairs.data(), n, &counted));
        EXPECT_EQ(counted, k);
      }
    }
  });
}

TEST(ExponentPairs, FusedSplitsMatchSplitThenPack) {
  for_each_target([] {
    for (const auto& pc : kPairCases) {
      for (size_t n : kSizes) {
        SCOPED_TRACE(::testing::Message() << "base " << int(pc.base) << " esc% " << pc.escape_pct << " n " << n);
        auto exp = exponents(n, pc.base, pc.escape_pct, uint32_t(n) * 3 + pc.base);
        std::vector<uint8_t> want_pairs;
        auto want_esc = ref_pack(exp, pc.base, want_pairs);
        const size_t np = (n + 1) / 2;

        auto b16 = bf16_with_exponents(exp, uint32_t(n) + 1);
        std::vector<uint8_t> e(n), sm(n);
        ref_bf16_split(b16.data(), n, e.data(), sm.data());
        ASSERT_EQ(e, exp);
        Shifted in(b16, 1), pairs(np, 2), esc(n, 3), ksm(n, 4);
        size_t k = bf16_split_paired(in.data(), n, pc.base, pairs.data(), esc.data(), ksm.data());
        EXPECT_EQ(pairs.take(np), want_pairs);
        ASSERT_EQ(k, want_esc.size());
        EXPECT_EQ(esc.take(k), want_esc);
        EXPECT_EQ(ksm.take(n), sm);
        EXPECT_TRUE(pairs.untouched_outside(np) && esc.untouched_outside(k) && ksm.untouched_outside(n));

        auto f32 = fp32_with_exponents(exp, uint32_t(n) + 2);
        std::vector<uint8_t> sm4(n), m1(n), m0(n);
        ref_fp32_split(f32.data(), n, e.data(), sm4.data(), m1.data(), m0.data());
        ASSERT_EQ(e, exp);
        Shifted in4(f32, 3), pairs4(np, 0), esc4(n, 1), ksm4(n, 2), km1(n, 5), km0(n, 6);
        k = fp32_split_paired(in4.data(), n, pc.base, pairs4.data(), esc4.data(), ksm4.data(), km1.data(), km0.data());
        EXPECT_EQ(pairs4.take(np), want_pairs);
        ASSERT_EQ(k, want_esc.size());
        EXPECT_EQ(esc4.take(k), want_esc);
        EXPECT_EQ(ksm4.take(n), sm4);
        EXPECT_EQ(km1.take(n), m1);
        EXPECT_EQ(km0.take(n), m0);
        EXPECT_TRUE(pairs4.untouched_outside(np) && esc4.untouched_outside(k) && ksm4.untouched_outside(n) &&
                    km1.untouched_outside(n) && km0.untouched_outside(n));
      }
    }
  });
}

// Decoding arbitrary (untrusted) pair bytes: the count is exact, the merge
// reads exactly that many escapes (the buffer is sized to it, so ASan sees
// any overread) and matches the reference.
TEST(ExponentPairs, MergeOfArbitraryPairsMatchesReference) {
  for_each_target([] {
    for (int fill : {-1, 0x00, 0xFF, 0xF0, 0x0F}) {  // -1: random bytes
      for (size_t n : kSizes) {
        SCOPED_TRACE(::testing::Message() << "fill " << fill << " n " << n);
        const size_t np = (n + 1) / 2;
        auto pairs = fill < 0 ? random_bytes(np, uint32_t(n) + 5) : std::vector<uint8_t>(np, uint8_t(fill));
        if (n % 2) pairs[np - 1] &= 0x0F;
        size_t c = 0;
        ASSERT_TRUE(count_pair_escapes(pairs.data(), n, &c));
        size_t want_c = 0;
        for (size_t i = 0; i < n; ++i) want_c += ((pairs[i / 2] >> (4 * (i % 2))) & 0xF) == 15;
        ASSERT_EQ(c, want_c);
        const uint8_t base = uint8_t(fill < 0 ? 200 : 100);
        std::vector<uint8_t> esc = random_bytes(c, uint32_t(n) + 6);
        auto exp = ref_unpack(pairs.data(), esc.data(), base, n);

        auto sm = random_bytes(n, uint32_t(n) + 7);
        std::vector<uint8_t> want(2 * n);
        ref_bf16_merge(exp.data(), sm.data(), n, want.data());
        Shifted p(pairs, 1), s(sm, 2), out(2 * n, 3);
        bf16_merge_paired(p.data(), esc.data(), base, s.data(), n, out.data());
        EXPECT_EQ(out.take(2 * n), want);
        EXPECT_TRUE(out.untouched_outside(2 * n));

        auto m1 = random_bytes(n, uint32_t(n) + 8), m0 = random_bytes(n, uint32_t(n) + 9);
        std::vector<uint8_t> want4(4 * n);
        ref_fp32_merge(exp.data(), sm.data(), m1.data(), m0.data(), n, want4.data());
        Shifted q1(m1, 5), q0(m0, 6), out4(4 * n, 7);
        fp32_merge_paired(p.data(), esc.data(), base, s.data(), q1.data(), q0.data(), n, out4.data());
        EXPECT_EQ(out4.take(4 * n), want4);
        EXPECT_TRUE(out4.untouched_outside(4 * n));
      }
    }
  });
}

TEST(ExponentPairs, SplitThenMergeRoundTrips) {
  for_each_target([] {
    for (const auto& pc : kPairCases) {
      for (size_t n : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65), size_t(100001)}) {
        SCOPED_TRACE(::testing::Message() << "base " << int(pc.base) << " esc% " << pc.escape_pct << " n " << n);
        auto exp = exponents(n, pc.base, pc.escape_pct, uint32_t(n) + 11);
        const size_t np = (n + 1) / 2;
        auto b16 = bf16_with_exponents(exp, 1);
        std::vector<uint8_t> pairs(np), esc(n), sm(n), back(2 * n);
        size_t k = bf16_split_paired(b16.data(), n, pc.base, pairs.data(), esc.data(), sm.data());
        size_t c = 0;
        ASSERT_TRUE(count_pair_escapes(pairs.data(), n, &c));
        ASSERT_EQ(c, k);
        esc.resize(k);
        bf16_merge_paired(pairs.data(), esc.data(), pc.base, sm.data(), n, back.data());
        EXPECT_EQ(back, b16);

        auto f32 = fp32_with_exponents(exp, 2);
        std::vector<uint8_t> esc4(n), m1(n), m0(n), back4(4 * n);
        k = fp32_split_paired(f32.data(), n, pc.base, pairs.data(), esc4.data(), sm.data(), m1.data(), m0.data());
        ASSERT_TRUE(count_pair_escapes(pairs.data(), n, &c));
        ASSERT_EQ(c, k);
        esc4.resize(k);
        fp32_merge_paired(pairs.data(), esc4.data(), pc.base, sm.data(), m1.data(), m0.data(), n, back4.data());
        EXPECT_EQ(back4, f32);
      }
    }
  });
}

TEST(ExponentPairs, NonzeroPadNibbleIsRejected) {
  std::vector<uint8_t> pairs = {0x21, 0x10};  // n = 3: the pad is the high nibble of byte 1
  size_t c = 77;
  EXPECT_FALSE(count_pair_escapes(pairs.data(), 3, &c));
  EXPECT_EQ(c, 77u);
  pairs[1] = 0x0F;
  EXPECT_TRUE(count_pair_escapes(pairs.data(), 3, &c));
  EXPECT_EQ(c, 1u);
  // Even n has no pad: byte 1's high nibble is element 3.
  pairs[1] = 0xF0;
  EXPECT_TRUE(count_pair_escapes(pairs.data(), 4, &c));
  EXPECT_EQ(c, 1u);
}

}  // namespace
}  // namespace z4ai::detail
