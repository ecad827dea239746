// ztensor._core: the one nanobind extension of both packages. The z4ai codec's
// bindings are its submodule _z4ai (re-exported by z4ai/_z4ai.py), so a process
// that imports ztensor and z4ai holds one copy of the core (docs/architecture.md).
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
void init_slice(nb::module_& m);
}  // namespace ztpy

namespace z4ai_py {
void init_errors();
void init_module(nb::module_& m);
}  // namespace z4ai_py

NB_MODULE(_core, m) {
  m.doc() = "zTensor C++ core (container reader/writer, other formats, conversion).";
  if (!ztpy::init_numpy()) throw nb::python_error();
  ztpy::init_errors(m);
  ztpy::init_reader(m);
  ztpy::init_writer(m);
  ztpy::init_convert(m);
  ztpy::init_encode(m);
  ztpy::init_shards(m);
  ztpy::init_slice(m);
  z4ai_py::init_errors();
  nb::module_ codec = m.def_submodule("_z4ai", "Native core of the z4ai codec (see the z4ai package).");
  z4ai_py::init_module(codec);
}
