// Round trip: any input, under options taken from its first byte, must come
// back byte-identical and give the same frame for 1 and 2 threads.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "z4ai/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char* kDtypes[] = {"", "bf16", "fp16", "fp32", "fp64", "f8_e4m3fn", "f8_e5m2", "int16", "int32", "int64"};
  z4ai::CompressOptions o;
  o.dtype = kDtypes[data[0] % 10];
  o.auto_select = (data[0] & 0x10) != 0;
  o.effort = (data[0] & 0x60) == 0x60 ? z4ai::Effort::balanced : z4ai::Effort::fast;
  std::span<const uint8_t> in(data + 1, size - 1);
  o.threads = 1;
  auto f1 = z4ai::compress(in, o);
  o.threads = 2;
  auto f2 = z4ai::compress(in, o);
  if (!f1.ok() || !f2.ok() || f1.value() != f2.value()) __builtin_trap();
  auto back = z4ai::decompress(f1.value(), 2);
  if (!back.ok() || back.value() != std::vector<uint8_t>(in.begin(), in.end())) __builtin_trap();
  return 0;
}
