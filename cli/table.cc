#include "table.h"

#include <algorithm>
#include <cstdio>

namespace zt::cli {

void print_aligned(const char* title, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& r : rows) {
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::printf("%s:\n", title);
  for (const auto& r : rows) {
    std::string line = " ";
    for (size_t i = 0; i < r.size(); ++i) {
      line += " " + r[i];
      if (i + 1 < r.size()) line.append(width[i] - r[i].size(), ' ');
    }
    std::printf("%s\n", line.c_str());
  }
}

}  // namespace zt::cli
