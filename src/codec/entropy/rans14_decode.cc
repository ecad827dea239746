#include "codec/entropy/rans14_decode.h"

#include <cstring>
#include <string>

#include "codec/common/byte_io.h"
#include "codec/entropy/pypi_rans.h"

namespace z4ai::detail {
namespace {

constexpr int kBits = kRans14ScaleBits;
constexpr uint32_t kMask = (1u << kBits) - 1;
constexpr uint32_t kLow = kRans14Low;
constexpr size_t kLanes = kRans14Lanes;
// A group is one step per lane; each step reads at most 2 bytes.
constexpr size_t kGroupBytes = 2 * kLanes;

zt::Status corrupt(const std::string& what) {
  return {zt::ErrorCode::corrupt_stream, "PyPI z4ai rANS stream: " + what};
}

// One stream's decoder: its states, read position and output position.
struct Lanes {
  uint32_t x[kLanes];
  const uint8_t* p;
  const uint8_t* end;
  uint8_t* o;
  size_t left;  // symbols still to decode
  // A whole group fits: 4 symbols to go and 8 bytes to read.
  bool group_fits() const { return left >= kLanes && size_t(end - p) >= kGroupBytes; }
};

zt::Status start(std::span<const uint8_t> in, std::span<uint8_t> out, Lanes& s) {
  s.o = out.data();
  s.left = out.size();
  if (out.empty()) return {};
  if (in.size() < 4 * kLanes) return corrupt("stream of " + std::to_string(in.size()) + " bytes has no 4 states");
  for (size_t l = 0; l < kLanes; ++l) {
    s.x[l] = load_u32(in.data() + 4 * l);
    if (s.x[l] < kLow || s.x[l] >= (1u << 31)) return corrupt("initial state out of range");
  }
  s.p = in.data() + 4 * kLanes;
  s.end = in.data() + in.size();
  return {};
}

// One step on a state in [2^23, 2^31): emits its symbol and renormalises
// (the step leaves x >= 2^9). p[0] and p[1] must be readable.
inline uint32_t step(const Rans14Model& m, uint32_t x, const uint8_t*& p, uint8_t* o) {
  const size_t slot = x & kMask;
  const uint8_t sym = m.slot[slot];
  x = m.freq[sym] * (x >> kBits) + uint32_t(slot) - m.cum[sym];
  *o = sym;
  return renorm_bytewise(x, p);
}

// Whole groups on S streams in lockstep while each has one to go; states
// in locals so they stay in registers.
template <size_t S>
void groups(const Rans14Model* const* m, Lanes* s) {
  uint32_t x[S][kLanes];
  const uint8_t* p[S];
  uint8_t* o[S];
  for (size_t k = 0; k < S; ++k) {
    for (size_t l = 0; l < kLanes; ++l) x[k][l] = s[k].x[l];
    p[k] = s[k].p, o[k] = s[k].o;
  }
  size_t done = 0;  // symbols per stream
  const auto fits = [&] {
    for (size_t k = 0; k < S; ++k)
      if (s[k].left - done < kLanes || size_t(s[k].end - p[k]) < kGroupBytes) return false;
    return true;
  };
  for (; fits(); done += kLanes)
    for (size_t k = 0; k < S; ++k)
      for (size_t l = 0; l < kLanes; ++l) x[k][l] = step(*m[k], x[k][l], p[k], o[k] + done + l);
  for (size_t k = 0; k < S; ++k) {
    for (size_t l = 0; l < kLanes; ++l) s[k].x[l] = x[k][l];
    s[k].p = p[k], s[k].o = o[k] + done, s[k].left -= done;
  }
}

// The rest of one stream: whole groups, then byte-checked steps (lane i % 4
// for symbol i, the group boundary kept), then the final states.
zt::Status finish(const Rans14Model& m, Lanes& s) {
  const Rans14Model* mp = &m;
  groups<1>(&mp, &s);
  StateReader r{s.p, s.end};
  for (size_t i = 0; i < s.left; ++i) {
    uint32_t& x = s.x[i % kLanes];
    const uint32_t slot = x & kMask;
    const uint8_t sym = m.slot[slot];
    s.o[i] = sym;
    x = r.renorm(m.freq[sym] * (x >> kBits) + slot - m.cum[sym]);
  }
  s.p = r.p;
  if (r.overrun) return corrupt("stream runs past its coded bytes");
  for (uint32_t x : s.x)
    if (x != kLow) return corrupt("final state is not the encoder's start state");
  // docs/codec.md: every byte consumed, so a stream has one encoding and hides nothing after it.
  if (s.p != s.end) return corrupt(std::to_string(s.end - s.p) + " bytes after the last symbol");
  return {};
}

}  // namespace

zt::Status build_rans14_model(const uint8_t* table, Rans14Model& m) {
  uint32_t acc = 0;
  for (int s = 0; s < 256; ++s) {
    m.freq[s] = uint16_t(table[2 * s] | table[2 * s + 1] << 8);
    m.cum[s] = uint16_t(acc);  // used only once the sum is 2^14
    acc += m.freq[s];
  }
  if (acc != (1u << kBits))
    return corrupt("frequency table sums to " + std::to_string(acc) + ", not " + std::to_string(1u << kBits));
  for (int s = 0; s < 256; ++s) std::memset(m.slot + m.cum[s], s, m.freq[s]);
  return {};
}

zt::Status decode_rans14_stream(std::span<const uint8_t> in, const Rans14Model& m, std::span<uint8_t> out) {
  if (out.empty()) return {};
  Lanes s{};
  ZT_RETURN_IF_ERROR(start(in, out, s));
  return finish(m, s);
}

zt::Status decode_rans14_streams2(std::span<const uint8_t> in_a, const Rans14Model& m_a, std::span<uint8_t> out_a,
                                  std::span<const uint8_t> in_b, const Rans14Model& m_b, std::span<uint8_t> out_b) {
  if (out_a.empty() || out_b.empty()) {
    ZT_RETURN_IF_ERROR(decode_rans14_stream(in_a, m_a, out_a));
    return decode_rans14_stream(in_b, m_b, out_b);
  }
  Lanes s[2] = {};
  ZT_RETURN_IF_ERROR(start(in_a, out_a, s[0]));
  ZT_RETURN_IF_ERROR(start(in_b, out_b, s[1]));
  const Rans14Model* m[2] = {&m_a, &m_b};
  groups<2>(m, s);
  ZT_RETURN_IF_ERROR(finish(m_a, s[0]));
  return finish(m_b, s[1]);
}

}  // namespace z4ai::detail
