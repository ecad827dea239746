#include "bytes_frame.h"

#include <algorithm>
#include <cstring>

namespace nb = nanobind;

namespace z4ai_py {

BytesFrame::~BytesFrame() {
  if (bytes_) {
    nb::gil_scoped_acquire acquire;
    Py_DECREF(bytes_);
  }
}

bool BytesFrame::resize_to(size_t capacity) {
  if (capacity > size_t(PY_SSIZE_T_MAX)) return false;
  nb::gil_scoped_acquire acquire;
  if (!bytes_) {
    bytes_ = PyBytes_FromStringAndSize(nullptr, Py_ssize_t(capacity));
  } else if (_PyBytes_Resize(&bytes_, Py_ssize_t(capacity)) != 0) {
    bytes_ = nullptr;  // freed by _PyBytes_Resize on failure
  }
  if (!bytes_) {
    PyErr_Clear();
    capacity_ = size_ = 0;
    return false;
  }
  capacity_ = capacity;
  return true;
}

void BytesFrame::reserve(size_t bytes) {
  // Only before anything is written: a failed resize would lose the bytes.
  if (!bytes_ && bytes > 0) (void)resize_to(bytes);
}

bool BytesFrame::append(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return true;
  if (bytes.size() > capacity_ - size_ && !resize_to(std::max(size_ + bytes.size(), capacity_ + capacity_ / 2)))
    return false;
  std::memcpy(PyBytes_AS_STRING(bytes_) + size_, bytes.data(), bytes.size());
  size_ += bytes.size();
  return true;
}

uint8_t* BytesFrame::data() { return bytes_ ? reinterpret_cast<uint8_t*>(PyBytes_AS_STRING(bytes_)) : nullptr; }

nb::object BytesFrame::take() {
  if (!bytes_) return nb::steal(PyBytes_FromStringAndSize(nullptr, 0));
  if (size_ != capacity_ && _PyBytes_Resize(&bytes_, Py_ssize_t(size_)) != 0) {
    bytes_ = nullptr;
    throw nb::python_error();
  }
  PyObject* out = bytes_;
  bytes_ = nullptr;
  capacity_ = size_ = 0;
  return nb::steal(out);
}

}  // namespace z4ai_py
