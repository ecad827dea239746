#include "buffer.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <new>
#include <string>

namespace z4ai_py {

Buffer::Buffer(PyObject* obj, bool writable) {
  int flags = writable ? (PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) : PyBUF_C_CONTIGUOUS;
  if (PyObject_GetBuffer(obj, &view_, flags) != 0) throw nanobind::python_error();
}

Buffer::~Buffer() { PyBuffer_Release(&view_); }

void raise(const zt::Status& status) { throw Z4aiError(status); }

namespace {

void raise_python(zt::ErrorCode code, const std::string& message, int sys_errno = 0) {
  try {
    nanobind::object mod = nanobind::module_::import_("z4ai._errors");
    nanobind::object exc = mod.attr("error")(zt::error_code_name(code), message, sys_errno);
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  } catch (nanobind::python_error& e) {
    e.restore();
  }
}

}  // namespace

void init_errors() {
  nanobind::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Z4aiError& e) {
      raise_python(e.status().code(), e.status().message(), e.status().sys_errno());
    } catch (const std::bad_alloc&) {
      raise_python(zt::ErrorCode::limit_exceeded, "out of memory: the input asks for more than this machine holds");
    }
  });
}

}  // namespace z4ai_py
