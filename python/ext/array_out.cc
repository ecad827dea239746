#include "array_out.h"

// Arrays are built with the numpy C API: ~5x cheaper per array than a
// DLPack/buffer round trip, which matters when a file holds 10k tensors.
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "errors.h"

namespace nb = nanobind;

namespace ztpy {

bool init_numpy() {
  if (_import_array() < 0) return false;
  return true;
}

nb::object owner_capsule(const std::shared_ptr<const void>& owner) {
  auto* holder = new std::shared_ptr<const void>(owner);
  return nb::capsule(holder, [](void* p) noexcept {
    delete static_cast<std::shared_ptr<const void>*>(p);
  });
}

static int numpy_typenum(nb::dlpack::dtype dtype) {
  using C = nb::dlpack::dtype_code;
  switch (static_cast<C>(dtype.code)) {
    case C::Float:
      return dtype.bits == 64 ? NPY_FLOAT64 : dtype.bits == 32 ? NPY_FLOAT32 : NPY_FLOAT16;
    case C::Int:
      return dtype.bits == 64 ? NPY_INT64 : dtype.bits == 32 ? NPY_INT32 : dtype.bits == 16 ? NPY_INT16 : NPY_INT8;
    case C::UInt:
      return dtype.bits == 64 ? NPY_UINT64 : dtype.bits == 32 ? NPY_UINT32 : dtype.bits == 16 ? NPY_UINT16 : NPY_UINT8;
    case C::Bool:
      return NPY_BOOL;
    case C::Complex:
      return dtype.bits == 128 ? NPY_COMPLEX128 : NPY_COMPLEX64;
    default:
      return NPY_UINT8;
  }
}

nb::object make_array(const zt::ComponentBytes& bytes, nb::handle capsule, nb::dlpack::dtype dtype,
                      const std::vector<size_t>& shape) {
  // Empty components may have no storage at all; numpy still wants a pointer.
  alignas(64) static const uint8_t kEmpty[64] = {};
  const uint8_t* data = bytes.bytes.empty() ? kEmpty : bytes.bytes.data();
  std::vector<npy_intp> dims(shape.begin(), shape.end());
  int flags = NPY_ARRAY_C_CONTIGUOUS;
  // A decoded buffer belongs to this array alone, so writing to it is safe;
  // views of the mapping are read-only.
  if (!bytes.zero_copy && !bytes.bytes.empty()) flags |= NPY_ARRAY_WRITEABLE;
  PyArray_Descr* descr = PyArray_DescrFromType(numpy_typenum(dtype));  // stolen below
  PyObject* arr = PyArray_NewFromDescr(&PyArray_Type, descr, static_cast<int>(dims.size()), dims.data(),
                                       nullptr, const_cast<uint8_t*>(data), flags, nullptr);
  if (!arr) throw nb::python_error();
  nb::object result = nb::steal(arr);
  Py_INCREF(capsule.ptr());
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(arr), capsule.ptr()) < 0)
    throw nb::python_error();  // the base reference was stolen even on failure
  return result;
}

}  // namespace ztpy
