#include "value_convert.h"

#include <string>

#include "errors.h"

namespace nb = nanobind;

namespace ztpy {
namespace {

// Attributes are small; a deeper structure is almost surely a cycle.
constexpr int kMaxAttributeDepth = 64;

nb::object to_python(const zt::Value& v, int depth) {
  using K = zt::Value::Kind;
  switch (v.kind()) {
    case K::null: return nb::none();
    case K::boolean: return nb::bool_(v.as_bool());
    case K::uint: return nb::steal(PyLong_FromUnsignedLongLong(v.as_uint()));
    case K::nint: {
      if (v.fits_int64()) return nb::steal(PyLong_FromLongLong(v.as_int64()));
      // -1 - n with n >= 2^63: compute in Python integers.
      nb::object n = nb::steal(PyLong_FromUnsignedLongLong(v.negative_arg()));
      nb::object one = nb::int_(1);
      nb::object neg = nb::steal(PyNumber_Negative(n.ptr()));
      return nb::steal(PyNumber_Subtract(neg.ptr(), one.ptr()));
    }
    case K::float64: return nb::float_(v.as_double());
    case K::text: return nb::str(v.as_string().data(), v.as_string().size());
    case K::bytes: return nb::bytes(v.as_string().data(), v.as_string().size());
    case K::array: {
      nb::list out;
      for (const auto& item : v.as_array()) out.append(to_python(item, depth + 1));
      return out;
    }
    case K::map: {
      nb::dict out;
      for (const auto& [k, item] : v.as_map()) {
        nb::object key = to_python(k, depth + 1);
        if (nb::isinstance<nb::list>(key)) key = nb::tuple(key);  // lists are unhashable
        out[key] = to_python(item, depth + 1);
      }
      return out;
    }
  }
  return nb::none();
}

[[noreturn]] void bad(const std::string& why) {
  throw_status(zt::Status(zt::ErrorCode::invalid_argument, "attributes: " + why));
}

zt::Value from_int(nb::handle obj) {
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
  if (overflow == 0) {
    if (x == -1 && PyErr_Occurred()) throw nb::python_error();
    return zt::Value::integer(x);
  }
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(obj.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      bad("integer above 2**64-1 cannot be stored in CBOR");
    }
    return zt::Value::uint(u);
  }
  // Below INT64_MIN: CBOR holds -1 - n for n < 2**64.
  nb::object one = nb::int_(1);
  nb::object neg = nb::steal(PyNumber_Negative(obj.ptr()));
  nb::object n = nb::steal(PyNumber_Subtract(neg.ptr(), one.ptr()));
  unsigned long long u = PyLong_AsUnsignedLongLong(n.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    bad("integer below -2**64 cannot be stored in CBOR");
  }
  return zt::Value::negative(u);
}

zt::Value from_python(nb::handle obj, int depth) {
  if (depth > kMaxAttributeDepth) bad("nesting deeper than 64 levels (a cycle?)");
  if (obj.is_none()) return zt::Value::null();
  if (PyBool_Check(obj.ptr())) return zt::Value::boolean(obj.ptr() == Py_True);
  if (PyLong_Check(obj.ptr())) return from_int(obj);
  if (PyFloat_Check(obj.ptr())) return zt::Value::float64(PyFloat_AsDouble(obj.ptr()));
  if (PyUnicode_Check(obj.ptr())) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(obj.ptr(), &n);
    if (!s) throw nb::python_error();
    return zt::Value::text(std::string(s, static_cast<size_t>(n)));
  }
  if (PyBytes_Check(obj.ptr()))
    return zt::Value::bytes(std::string(PyBytes_AsString(obj.ptr()), PyBytes_Size(obj.ptr())));
  if (PyDict_Check(obj.ptr())) {
    zt::Value::Map map;
    for (auto [k, v] : nb::borrow<nb::dict>(obj))
      map.emplace_back(from_python(k, depth + 1), from_python(v, depth + 1));
    return zt::Value::map(std::move(map));
  }
  if (PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr())) {
    zt::Value::Array arr;
    for (nb::handle item : obj) arr.push_back(from_python(item, depth + 1));
    return zt::Value::array(std::move(arr));
  }
  // numpy scalars and arrays, Mapping types, other int/float-likes.
  if (nb::hasattr(obj, "tolist")) return from_python(obj.attr("tolist")(), depth + 1);
  if (nb::hasattr(obj, "items")) {
    nb::object d = nb::steal(PyDict_New());
    if (PyDict_Update(d.ptr(), obj.ptr()) != 0) throw nb::python_error();
    return from_python(d, depth);
  }
  if (PyIndex_Check(obj.ptr())) return from_int(nb::steal(PyNumber_Index(obj.ptr())));
  if (nb::hasattr(obj, "__float__")) return zt::Value::float64(nb::cast<double>(nb::float_(obj)));
  bad(std::string("cannot store a value of type ") + nb::type_name(obj.type()).c_str());
}

}  // namespace

nb::object value_to_python(const zt::Value& v) { return to_python(v, 0); }
zt::Value python_to_value(nb::handle obj) { return from_python(obj, 0); }

}  // namespace ztpy
