// The z4ai codec as a .zt component encoding ("encoding": "z4ai", an
// extension of spec v1.2 documented in docs/format.md). Call once before
// reading or writing such components; later calls are no-ops.
#pragma once

namespace zt {

void register_z4ai_encoding();

}  // namespace zt
