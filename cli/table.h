// Plain-text output shared by the commands: shapes as "[2, 3]" and
// column-aligned tables.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace zt::cli {

// "[2, 3]"; "[]" for a scalar.
std::string shape_text(const std::vector<uint64_t>& shape);

// Prints "<title>:" then every row indented by two spaces, each column
// padded to its widest cell (the first row is the header).
void print_aligned(const char* title, const std::vector<std::vector<std::string>>& rows);

}  // namespace zt::cli
