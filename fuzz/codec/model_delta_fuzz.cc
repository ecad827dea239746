// Decode-only: arbitrary bytes as a Z4DM frame against a fixed base must
// decode or fail cleanly. The input is patched so that the fuzzer gets past
// the two digests it cannot forge: the base data length and digest are set to
// the fixed base's (when the header fields are present) and the trailer
// digest is recomputed, so mutations reach the entry parser and inner frames.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include <xxhash.h>

#include "fuzz_limits.h"
#include "z4ai/model_delta.h"

namespace {

void store_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}
uint64_t load_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

// Two tensors over a 4096-byte data buffer; the seeds in
// corpus/model_delta_fuzz/ were made against this exact base.
constexpr char kBaseHeader[] =
    R"({"a":{"dtype":"BF16","shape":[1024],"data_offsets":[0,2048]},)"
    R"("b":{"dtype":"U8","shape":[2048],"data_offsets":[2048,4096]}})";
constexpr size_t kBaseHeaderLen = sizeof(kBaseHeader) - 1;

std::vector<uint8_t> make_base() {
  std::vector<uint8_t> base(8 + kBaseHeaderLen + 4096);
  store_u64(base.data(), kBaseHeaderLen);
  std::memcpy(base.data() + 8, kBaseHeader, kBaseHeaderLen);
  for (size_t i = 0; i < 4096; ++i) base[8 + kBaseHeaderLen + i] = uint8_t(i * 7 + (i >> 9));
  return base;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<uint8_t> base = make_base();
  std::vector<uint8_t> frame(data, data + size);
  if (frame.size() >= 8) std::memcpy(frame.data(), "Z4DM\x01\0\0\0", 8);
  if (frame.size() >= 16) {
    const uint64_t hlen = load_u64(frame.data() + 8);
    const uint64_t at = 16 + hlen + 8;  // base data_len, then its digest
    if (hlen < frame.size() && at + 16 <= frame.size()) {
      const uint8_t* base_data = base.data() + 8 + kBaseHeaderLen;
      store_u64(frame.data() + at, 4096);
      store_u64(frame.data() + at + 8, XXH3_64bits(base_data, 4096));
    }
  }
  if (frame.size() >= 16) store_u64(frame.data() + frame.size() - 8, XXH3_64bits(frame.data(), frame.size() - 8));
  auto r = z4ai::decompress_model_delta(frame, base, 1, kFuzzMaxOutputBytes);
  if (r.ok() && (r->size() > kFuzzMaxOutputBytes || r->size() != z4ai::peek_model_delta(frame)->target_length))
    __builtin_trap();
  return 0;
}
