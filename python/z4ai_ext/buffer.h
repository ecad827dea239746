// RAII view of any Python object supporting the buffer protocol (bytes,
// bytearray, memoryview, NumPy arrays), plus error translation. The view pins
// the memory so the codec can run with the GIL released.
#pragma once

#include <Python.h>

#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <utility>

#include <nanobind/nanobind.h>

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

// Thrown by the bindings; raised to Python through z4ai._errors.error as a
// z4ai.Z4aiError that is also the ztensor.ZTensorError class of its code,
// with .code (message "digest_mismatch: ...", as before .code existed).
class Z4aiError : public std::exception {
 public:
  explicit Z4aiError(zt::Status status) : status_(std::move(status)) {}
  const char* what() const noexcept override { return status_.message().c_str(); }
  const zt::Status& status() const { return status_; }

 private:
  zt::Status status_;
};

// Registers the translation of Z4aiError and std::bad_alloc (limit_exceeded,
// never a bare MemoryError) for the whole extension module: an out-of-memory
// in either package's call is then both a z4ai.Z4aiError and a
// ztensor.LimitError, so callers of either catch it.
void init_errors();

// Defines the codec's functions in `m` (ztensor._core._z4ai).
void init_module(nanobind::module_& m);

[[noreturn]] void raise(const zt::Status& status);
inline void check(const zt::Status& status) {
  if (!status.ok()) raise(status);
}

}  // namespace z4ai_py
