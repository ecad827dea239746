// Opening any weight format for the bindings (ztensor.open, ztensor.convert).
#pragma once

#include <memory>
#include <string>

#include "ztensor/source.h"
#include "ztensor/status.h"

namespace ztpy {

// zt::open_source, except that a file no parser claims goes to the .zt
// reader, so junk gives bad_magic (FormatError) naming every format tried.
// Call with the GIL released.
zt::Result<std::unique_ptr<zt::TensorSource>> open_any_source(const std::string& path, bool verify_on_read);

}  // namespace ztpy
