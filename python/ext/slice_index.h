// A get_slice index (ints, slices, Ellipsis, None: numpy's basic indexing)
// turned into the selection's layout over a C-ordered tensor: result shape,
// byte strides, and the byte span holding every selected element, so only
// that span is read and nothing outside the tensor is addressed.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <Python.h>

namespace ztpy {

struct Selection {
  std::vector<int64_t> shape;    // of the result
  std::vector<int64_t> strides;  // bytes, over the tensor; negative for reversed axes
  int64_t first = 0;             // byte offset of the result's first element in the tensor
  int64_t lo = 0, hi = 0;        // bytes [lo, hi) hold every selected element; lo == hi when none is
  bool scalar = false;           // numpy returns a scalar (an int for every axis, nothing else)
  int64_t count() const;         // elements selected
};

enum class IndexKind {
  basic,     // *out describes the selection
  advanced,  // arrays, lists, bools, other types: numpy must index the data itself
  invalid,   // a basic index numpy refuses (out of range, too many axes, step 0, two Ellipses ...)
};

// `key` (a tuple or one item) over a tensor of `shape` with `item`-byte
// elements. The caller guarantees product(shape) * item <= INT64_MAX.
// Leaves no Python error set.
IndexKind select(PyObject* key, std::span<const uint64_t> shape, int64_t item, Selection* out);

// numpy's dimension limit (NPY_MAXDIMS): results with more axes are invalid.
inline constexpr size_t kMaxResultDims = 64;

}  // namespace ztpy
