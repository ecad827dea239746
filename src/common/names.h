// The rule every reader and writer applies to a name taken from or written to
// a file (objects, tensors, components, archive members).
#pragma once

#include <string_view>

#include "ztensor/status.h"

namespace zt {

// An object, tensor or component name may not hold a NUL byte: C strings
// (the C API, most tools) end there, so "a\0b" would read as "a" and could
// shadow or hide another object. `what` names it in the message
// ("object", "safetensors tensor"). Errors: `code` (invalid_structure for
// readers of a file, invalid_argument for writers).
Status check_name(std::string_view name, std::string_view what, ErrorCode code = ErrorCode::invalid_structure);

}  // namespace zt
