// A shape as "[2, 3]" ("[]" for a scalar): error messages and the CLI's
// tables print shapes the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>
#include "ztensor/export.h"

ZT_API_BEGIN
namespace zt {

inline std::string shape_text(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace zt
ZT_API_END
