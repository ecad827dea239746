// Building numpy arrays over ComponentBytes without copying: the array's
// base is a capsule that holds the ComponentBytes owner (the file mapping
// for raw components, the decoded buffer otherwise).
#pragma once

#include <cstdint>
#include <memory>
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

}  // namespace ztpy
