// The manifest's shape helpers (ztensor/manifest.h).
#include <string>

#include "common/checked_math.h"
#include "ztensor/manifest.h"

namespace zt {

std::optional<uint64_t> element_count(const std::vector<uint64_t>& shape) { return checked_product(shape); }

std::string shape_text(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace zt
