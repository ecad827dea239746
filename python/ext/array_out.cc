#include "array_out.h"

// Arrays are built with the numpy C API: ~5x cheaper per array than a
// DLPack/buffer round trip, which matters when a file holds 10k tensors.
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "dtype_convert.h"
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

nb::object copy_on_write_array(const zt::Result<zt::CopyOnWriteBytes>& mapping) {
  if (!mapping.ok() && mapping.status().code() == zt::ErrorCode::unsupported) return nb::none();
  check(mapping.status());
  const zt::ComponentBytes bytes{mapping->bytes, mapping->owner, false};  // private to this process: writable
  return make_array(bytes, owner_capsule(bytes.owner), storage_dlpack_dtype(zt::DType::u8), {bytes.bytes.size()});
}

nb::object make_view(nb::handle dtype, const uint8_t* data, std::span<const int64_t> shape,
                     std::span<const int64_t> strides, bool writeable, nb::handle base) {
  alignas(64) static const uint8_t kEmpty[64] = {};
  std::vector<npy_intp> dims(shape.begin(), shape.end()), steps(strides.begin(), strides.end());
  auto* descr = reinterpret_cast<PyArray_Descr*>(dtype.ptr());
  Py_INCREF(descr);  // stolen below
  PyObject* arr = PyArray_NewFromDescr(&PyArray_Type, descr, static_cast<int>(dims.size()), dims.data(),
                                       steps.data(), const_cast<uint8_t*>(data ? data : kEmpty),
                                       writeable ? NPY_ARRAY_WRITEABLE : 0, nullptr);
  if (!arr) throw nb::python_error();
  nb::object result = nb::steal(arr);
  if (base.is_valid() && !base.is_none()) {
    Py_INCREF(base.ptr());
    if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(arr), base.ptr()) < 0) throw nb::python_error();
  }
  return result;
}

nb::object array_scalar(nb::object zero_d) {
  PyObject* s = PyArray_Return(reinterpret_cast<PyArrayObject*>(zero_d.release().ptr()));  // steals
  if (!s) throw nb::python_error();
  return nb::steal(s);
}

bool is_numpy_integer(PyObject* o) { return PyArray_IsScalar(o, Integer); }

int64_t dtype_itemsize(nb::handle dtype) {
  return static_cast<int64_t>(PyDataType_ELSIZE(reinterpret_cast<PyArray_Descr*>(dtype.ptr())));
}

ArrayLayout array_layout(nb::handle arr) {
  PyObject* a = PyArray_FROM_O(arr.ptr());  // a scalar becomes a 0-d array
  if (!a) throw nb::python_error();
  ArrayLayout out;
  out.array = nb::steal(a);
  auto* pa = reinterpret_cast<PyArrayObject*>(a);
  out.data = static_cast<const uint8_t*>(PyArray_DATA(pa));
  out.shape.assign(PyArray_DIMS(pa), PyArray_DIMS(pa) + PyArray_NDIM(pa));
  out.strides.assign(PyArray_STRIDES(pa), PyArray_STRIDES(pa) + PyArray_NDIM(pa));
  out.item = static_cast<size_t>(PyArray_ITEMSIZE(pa));
  return out;
}

}  // namespace ztpy
