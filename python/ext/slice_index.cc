#include "slice_index.h"

#include "array_out.h"

namespace ztpy {
namespace {

enum class Item { integer, slice, ellipsis, newaxis, other };

// numpy takes Python ints and numpy integer scalars as integers, but not
// bools (a boolean mask); anything else goes to numpy itself.
Item kind_of(PyObject* o) {
  if (o == Py_None) return Item::newaxis;
  if (o == Py_Ellipsis) return Item::ellipsis;
  if (PySlice_Check(o)) return Item::slice;
  if (PyLong_Check(o) && !PyBool_Check(o)) return Item::integer;
  if (is_numpy_integer(o)) return Item::integer;
  return Item::other;
}

}  // namespace

int64_t Selection::count() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;  // each <= its axis, so the product <= the tensor's
  return n;
}

IndexKind select(PyObject* key, std::span<const uint64_t> shape, int64_t item, Selection* out) {
  const bool is_tuple = PyTuple_Check(key);
  const Py_ssize_t n_items = is_tuple ? PyTuple_GET_SIZE(key) : 1;
  auto at = [&](Py_ssize_t i) { return is_tuple ? PyTuple_GET_ITEM(key, i) : key; };

  size_t consumed = 0;  // tensor axes the index names (ints and slices)
  bool ellipsis = false, only_ints = true;
  for (Py_ssize_t i = 0; i < n_items; ++i) {
    switch (kind_of(at(i))) {
      case Item::integer: ++consumed; break;
      case Item::slice: ++consumed; only_ints = false; break;
      case Item::ellipsis:
        if (ellipsis) return IndexKind::invalid;
        ellipsis = true;
        only_ints = false;
        break;
      case Item::newaxis: only_ints = false; break;
      case Item::other: return IndexKind::advanced;
    }
  }
  if (consumed > shape.size()) return IndexKind::invalid;

  // C-order byte strides of the tensor; every offset below is at most its size.
  std::vector<int64_t> tensor_strides(shape.size());
  int64_t stride = item;
  for (size_t d = shape.size(); d-- > 0;) {
    tensor_strides[d] = stride;
    stride *= static_cast<int64_t>(shape[d]);
  }

  Selection sel;
  size_t axis = 0;
  auto keep_axis = [&](int64_t n, int64_t s) {
    sel.shape.push_back(n);
    sel.strides.push_back(s);
  };
  for (Py_ssize_t i = 0; i < n_items; ++i) {
    PyObject* o = at(i);
    switch (kind_of(o)) {
      case Item::integer: {
        const int64_t n = static_cast<int64_t>(shape[axis]);
        Py_ssize_t v = PyNumber_AsSsize_t(o, nullptr);  // clipped when huge: then out of range
        if (v == -1 && PyErr_Occurred()) {
          PyErr_Clear();
          return IndexKind::invalid;
        }
        if (v < 0) v += n;
        if (v < 0 || v >= n) return IndexKind::invalid;
        sel.first += v * tensor_strides[axis++];
        break;
      }
      case Item::slice: {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(o, &start, &stop, &step) < 0) {  // bad bounds or step 0
          PyErr_Clear();
          return IndexKind::invalid;
        }
        const Py_ssize_t len = PySlice_AdjustIndices(static_cast<Py_ssize_t>(shape[axis]), &start, &stop, step);
        if (len > 0) sel.first += start * tensor_strides[axis];
        // A step can be huge (clipped to PY_SSIZE_T_MAX) only when it selects one element.
        keep_axis(len, len > 1 ? step * tensor_strides[axis] : tensor_strides[axis]);
        ++axis;
        break;
      }
      case Item::ellipsis:
        for (size_t k = 0; k < shape.size() - consumed; ++k, ++axis)
          keep_axis(static_cast<int64_t>(shape[axis]), tensor_strides[axis]);
        break;
      case Item::newaxis: keep_axis(1, 0); break;
      case Item::other: return IndexKind::advanced;  // not reached: checked above
    }
  }
  for (; axis < shape.size(); ++axis) keep_axis(static_cast<int64_t>(shape[axis]), tensor_strides[axis]);
  if (sel.shape.size() > kMaxResultDims) return IndexKind::invalid;

  sel.scalar = only_ints && consumed == shape.size();
  if (sel.count() > 0) {
    sel.lo = sel.hi = sel.first;
    for (size_t d = 0; d < sel.shape.size(); ++d) {
      const int64_t reach = (sel.shape[d] - 1) * sel.strides[d];
      (reach < 0 ? sel.lo : sel.hi) += reach;
    }
    sel.hi += item;
  }
  *out = std::move(sel);
  return IndexKind::basic;
}

}  // namespace ztpy
