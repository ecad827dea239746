// Plain-text output shared by the commands: column-aligned tables (shapes
// print with zt::shape_text, ztensor/manifest.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ztensor/manifest.h"

namespace zt::cli {

// Prints "<title>:" then every row indented by two spaces, each column
// padded to its widest cell (the first row is the header).
void print_aligned(const char* title, const std::vector<std::vector<std::string>>& rows);

}  // namespace zt::cli
