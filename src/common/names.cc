#include "common/names.h"

#include <string>

namespace zt {

Status check_name(std::string_view name, std::string_view what, ErrorCode code) {
  if (name.find('\0') == std::string_view::npos) return Status::Ok();
  return Status(code, std::string(what) + " '" + std::string(name) +
                          "' holds a NUL byte: names must not (C strings and the C API end at it)");
}

}  // namespace zt
