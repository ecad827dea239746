#include "buffer.h"

#include <nanobind/nanobind.h>

namespace z4ai_py {

Buffer::Buffer(PyObject* obj, bool writable) {
  int flags = writable ? (PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) : PyBUF_C_CONTIGUOUS;
  if (PyObject_GetBuffer(obj, &view_, flags) != 0) throw nanobind::python_error();
}

Buffer::~Buffer() { PyBuffer_Release(&view_); }

void raise(const zt::Status& status) { throw Z4aiError(status.to_string()); }

}  // namespace z4ai_py
