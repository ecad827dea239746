// Building numpy arrays over ComponentBytes without copying: the array's
// base is a capsule that holds the ComponentBytes owner (the file mapping
// for raw components, the decoded buffer otherwise).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include "ztensor/reader.h"

namespace ztpy {

// A capsule keeping `owner` alive; arrays of one batch share it.
nanobind::object owner_capsule(const std::shared_ptr<const void>& owner);

bool init_numpy();  // import the numpy C API; false with a Python error set

// numpy array of `shape` and element type `dtype` over `bytes`. Zero-copy
// views into the mapping are read-only; decoded private buffers are
// writable. The caller has checked that the sizes agree.
nanobind::object make_array(const zt::ComponentBytes& bytes, nanobind::handle capsule,
                            nanobind::dlpack::dtype dtype, const std::vector<size_t>& shape);

// A writable flat uint8 array over a copy-on-write mapping (which it keeps
// alive), or None when `mapping` is unsupported for this source; other
// errors raise.
nanobind::object copy_on_write_array(const zt::Result<zt::CopyOnWriteBytes>& mapping);

}  // namespace ztpy

namespace ztpy {

// numpy array of `dtype` (a numpy dtype object) over `data` with `shape`
// and byte `strides`, kept alive by `base` (None: static memory); read-only
// unless `writeable`. The caller has checked that every element is inside
// the memory `base` holds.
nanobind::object make_view(nanobind::handle dtype, const uint8_t* data, std::span<const int64_t> shape,
                           std::span<const int64_t> strides, bool writeable, nanobind::handle base);

// The element of a 0-d array as numpy's scalar (what a full integer index returns).
nanobind::object array_scalar(nanobind::object zero_d);

// A numpy integer scalar (np.int64(3), ...), which indexes like an int.
bool is_numpy_integer(PyObject* o);

// Item size in bytes of a numpy dtype object.
int64_t dtype_itemsize(nanobind::handle dtype);

// A numpy array's (or scalar's) elements: where they are and how they are laid out.
struct ArrayLayout {
  nanobind::object array;  // holds the memory
  const uint8_t* data = nullptr;
  std::vector<int64_t> shape, strides;
  size_t item = 0;
};
ArrayLayout array_layout(nanobind::handle arr);

}  // namespace ztpy
