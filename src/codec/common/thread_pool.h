// The codec's chunk-parallel loops use the library's one parallel_for
// (common/parallel_for.h); these names keep the codec's spelling.
#pragma once

#include "common/parallel_for.h"

namespace z4ai::detail {

using zt::parallel_for;
using zt::resolve_threads;

}  // namespace z4ai::detail
