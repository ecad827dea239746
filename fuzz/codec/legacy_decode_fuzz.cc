// Decode-only: arbitrary bytes as any PyPI z4ai 0.2.0 frame (Z4AI/ZARA v1,
// ZSP1, ZPL1, Z4DL, Z4DM v1; legacy_format.h) must decode or fail cleanly.
// The first byte picks the layout and is replaced by its magic, so mutations
// reach every parser; the BLAKE2b reference digests the fuzzer cannot forge
// are recomputed for the fixed reference / base, as model_delta_fuzz does.
#include <cstdint>
#include <cstring>
#include <vector>

#include "codec/pypi/blake2b.h"
#include "fuzz_limits.h"
#include "z4ai/codec.h"
#include "z4ai/delta.h"
#include "z4ai/model_delta.h"

namespace {

constexpr const char* kMagics[] = {"Z4AI\x01", "ZARA\x01", "ZSP1", "ZPL1", "Z4DL\x02", "Z4DM\x01"};

// One tensor "t" of 4096 bytes; corpus/legacy_decode_fuzz/ seeds use it as
// the reference (Z4DL) and the base (Z4DM).
constexpr char kBaseHeader[] = R"({"t":{"dtype":"F32","shape":[1024],"data_offsets":[0,4096]}})";
constexpr size_t kBaseHeaderLen = sizeof(kBaseHeader) - 1;

std::vector<uint8_t> reference() {
  std::vector<uint8_t> r(4096);
  for (size_t i = 0; i < r.size(); ++i) r[i] = uint8_t(i * 7 + (i >> 8));
  return r;
}

std::vector<uint8_t> base() {
  std::vector<uint8_t> b(8 + kBaseHeaderLen);
  for (int i = 0; i < 8; ++i) b[i] = uint8_t(uint64_t(kBaseHeaderLen) >> (8 * i));
  std::memcpy(b.data() + 8, kBaseHeader, kBaseHeaderLen);
  const auto r = reference();
  b.insert(b.end(), r.begin(), r.end());
  return b;
}

uint64_t load_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<uint8_t> ref = reference(), st = base();
  if (size < 1) return 0;
  const char* magic = kMagics[data[0] % 6];
  std::vector<uint8_t> frame(data + 1, data + size);
  const size_t m = std::strlen(magic);
  if (frame.size() < m) return 0;
  std::memcpy(frame.data(), magic, m);
  if (magic[2] == 'D' && magic[3] == 'L' && frame.size() >= 32) {
    const auto d = z4ai::detail::blake2b(ref, 16);
    std::memcpy(frame.data() + 16, d.data(), 16);
  }
  if (magic[2] == 'D' && magic[3] == 'M') {
    if (frame.size() >= 13) {
      // hlen, header, data_len, digest; hlen is checked before any sum so
      // a huge one cannot wrap `at` to just before the buffer.
      const uint64_t hlen = load_u64(frame.data() + 5);
      const uint64_t at = hlen <= frame.size() ? 13 + hlen + 8 : 0;
      if (at != 0 && at + 8 <= frame.size()) {
        const auto d = z4ai::detail::blake2b(std::span(st).subspan(8 + kBaseHeaderLen), 8);
        std::memcpy(frame.data() + at, d.data(), 8);
      }
    }
    auto r = z4ai::decompress_model_delta(frame, st, 1, kFuzzMaxOutputBytes);
    if (r.ok() && (r->size() > kFuzzMaxOutputBytes || r->size() != z4ai::peek_model_delta(frame)->target_length))
      __builtin_trap();
    return 0;
  }
  auto r = magic[2] == 'D' ? z4ai::decompress_delta(frame, ref, 1, kFuzzMaxOutputBytes)
                           : z4ai::decompress(frame, 1, kFuzzMaxOutputBytes);
  if (r.ok() && (r->size() > kFuzzMaxOutputBytes || r->size() != z4ai::peek(frame)->original_length))
    __builtin_trap();
  return 0;
}
