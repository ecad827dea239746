// Writing a safetensors file from any TensorSource, in the layout the
// safetensors library produces: 8-byte LE header size, compact JSON header
// padded with spaces to a multiple of 8, then the tensors back to back.
#pragma once

#include <string>

#include "ztensor/convert.h"
#include "ztensor/source.h"

namespace zt {

// safetensors pads its JSON header with spaces so the data buffer starts
// 8-byte aligned.
inline constexpr uint64_t kSafetensorsHeaderAlignment = 8;

// Streams every object of `source` (dense only) to `out`, atomically.
// Tensors keep source order, stably sorted by element width (widest first,
// as safetensors orders them) so every tensor stays naturally aligned.
// Errors: unsupported (non-dense object, dtype/logical type safetensors
// cannot express), every read error of the source, io_error.
Result<ConvertStats> write_safetensors(const TensorSource& source, const std::string& out,
                                       const ProgressFn& progress = {});

}  // namespace zt
