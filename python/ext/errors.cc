#include "errors.h"

#include <nanobind/stl/string.h>


namespace nb = nanobind;

namespace ztpy {

// Builds the exception through ztensor.errors.from_status so Python and C++
// agree on which class a code maps to.
static void raise_status(const zt::Status& status) {
  // Status(code, message) escapes bytes that are not printable UTF-8, so
  // the message converts to str whatever a hostile file put in it.
  try {
    nb::object mod = nb::module_::import_("ztensor.errors");
    nb::object exc = mod.attr("from_status")(zt::error_code_name(status.code()), status.message(), status.sys_errno());
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  } catch (nb::python_error& e) {
    e.restore();
  }
}

void init_errors(nb::module_& m) {
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const StatusError& e) {
      raise_status(e.status());
    }
    // std::bad_alloc: the codec's translator (z4ai_ext/buffer.cc) makes it limit_exceeded for both
    // packages' calls, never a bare MemoryError.
  });
  m.def("error_code_name", [](int code) { return zt::error_code_name(static_cast<zt::ErrorCode>(code)); },
        "Stable name of a numeric zt::ErrorCode.");
  // ztensor/error_codes.def as (number, name, Python class name) rows:
  // ztensor.errors makes its code -> class table from them.
  nb::list codes;
#define ZT_ERROR_CODE(name, number, c_name, python_class, meaning) \
  codes.append(nb::make_tuple(number, #name, #python_class));
#include "ztensor/error_codes.def"
#undef ZT_ERROR_CODE
  m.attr("ERROR_CODES") = nb::tuple(codes);
}

}  // namespace ztpy
