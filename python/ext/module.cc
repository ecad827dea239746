// ztensor._core: the nanobind extension behind the ztensor package.
#include <nanobind/nanobind.h>

#include "array_out.h"
#include "errors.h"

namespace nb = nanobind;

namespace ztpy {
void init_reader(nb::module_& m);
void init_writer(nb::module_& m);
void init_convert(nb::module_& m);
void init_encode(nb::module_& m);
void init_shards(nb::module_& m);
}  // namespace ztpy

NB_MODULE(_core, m) {
  m.doc() = "zTensor C++ core (container reader/writer, other formats, conversion).";
  if (!ztpy::init_numpy()) throw nb::python_error();
  ztpy::init_errors(m);
  ztpy::init_reader(m);
  ztpy::init_writer(m);
  ztpy::init_convert(m);
  ztpy::init_encode(m);
  ztpy::init_shards(m);
}
