// libFuzzer target for the .npy reader (header literal, dtypes, byte order
// and Fortran-order conversion).
#include <cstdlib>

#include "ztensor/numpy_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = zt::open_npy_memory({data, size}, nullptr);
  if (!r.ok()) return 0;
  const auto& o = r.value()->manifest().objects.at(0);
  auto b = r.value()->read_component(o, "data");
  if (!b.ok() || b->bytes.size() != o.components.at(0).second.length) std::abort();
  return 0;
}
