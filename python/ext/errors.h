// Turning a zt::Status into a Python exception. The code -> class table
// lives in one place, ztensor/errors.py; C++ only carries the code name.
#pragma once

#include <exception>
#include <string>

#include <nanobind/nanobind.h>

#include "ztensor/status.h"

namespace ztpy {

// Thrown by the bindings; translated to ztensor.errors.<class> on the way out.
class StatusError : public std::exception {
 public:
  explicit StatusError(zt::Status status) : status_(std::move(status)) {}
  const char* what() const noexcept override { return status_.message().c_str(); }
  const zt::Status& status() const { return status_; }

 private:
  zt::Status status_;
};

[[noreturn]] inline void throw_status(zt::Status status) { throw StatusError(std::move(status)); }
inline void check(const zt::Status& status) {
  if (!status.ok()) throw_status(status);
}

void init_errors(nanobind::module_& m);

}  // namespace ztpy
