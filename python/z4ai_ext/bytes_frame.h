// z4ai::FrameBuffer over a Python bytes object: compress writes the frame
// into the bytes object it returns, so the frame is never held twice. The
// object grows and finally shrinks to the frame's size with _PyBytes_Resize
// (realloc: for a large object glibc moves or trims the mapping, no copy).
#pragma once

#include <Python.h>

#include <cstdint>
#include <span>

#include <nanobind/nanobind.h>

#include "z4ai/codec.h"

namespace z4ai_py {

class BytesFrame final : public z4ai::FrameBuffer {
 public:
  BytesFrame() = default;
  BytesFrame(const BytesFrame&) = delete;
  BytesFrame& operator=(const BytesFrame&) = delete;
  ~BytesFrame() override;

  // Called with the GIL released, like the coder; they take it to resize.
  void reserve(size_t bytes) override;
  bool append(std::span<const uint8_t> bytes) override;
  uint8_t* data() override;
  size_t size() const override { return size_; }
  void clear() override { size_ = 0; }

  // The frame as a bytes object of its exact size; needs the GIL.
  nanobind::object take();

 private:
  bool resize_to(size_t capacity);

  PyObject* bytes_ = nullptr;  // owned; `capacity_` bytes long
  size_t capacity_ = 0;
  size_t size_ = 0;
};

}  // namespace z4ai_py
