// RAII view of any Python object supporting the buffer protocol (bytes,
// bytearray, memoryview, NumPy arrays), plus error translation. The view pins
// the memory so the codec can run with the GIL released.
#pragma once

#include <Python.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "ztensor/status.h"

namespace z4ai_py {

class Buffer {
 public:
  // writable=true requires a writable, C-contiguous buffer (for out=).
  Buffer(PyObject* obj, bool writable);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  std::span<const uint8_t> bytes() const { return {static_cast<const uint8_t*>(view_.buf), size_t(view_.len)}; }
  std::span<uint8_t> writable() { return {static_cast<uint8_t*>(view_.buf), size_t(view_.len)}; }

 private:
  Py_buffer view_{};
};

// Raised to Python as z4ai.Z4aiError (a ValueError); message starts with the
// error code name ("digest_mismatch: ...").
struct Z4aiError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void raise(const zt::Status& status);
inline void check(const zt::Status& status) {
  if (!status.ok()) raise(status);
}

}  // namespace z4ai_py
