#include "torch_mapping.h"

#include "array_out.h"

namespace nb = nanobind;

namespace ztpy {

nb::object torch_file_bytes(PyReader& reader) {
  auto keep = reader.get();  // raises when closed
  if (!reader.zt_reader) return nb::none();
  if (!reader.torch_bytes.is_valid()) {
    nb::object flat = copy_on_write_array(reader.zt_reader->map_copy_on_write());
    if (flat.is_none()) return flat;
    static nb::handle from_numpy = nb::object(nb::module_::import_("torch").attr("from_numpy")).release();
    reader.torch_bytes = from_numpy(flat);
  }
  return reader.torch_bytes;
}

nb::object torch_file_elements(PyReader& reader, nb::handle torch_dtype, int64_t item) {
  if (reader.torch_elements.is_valid()) {
    PyObject* hit = PyDict_GetItem(reader.torch_elements.ptr(), torch_dtype.ptr());  // borrowed
    if (hit) return nb::borrow(hit);
  }
  nb::object bytes = torch_file_bytes(reader);
  if (bytes.is_none()) return bytes;
  const int64_t size = nb::cast<int64_t>(bytes.attr("numel")());
  nb::object elements = bytes.attr("narrow")(0, 0, size - size % item).attr("view")(torch_dtype);
  if (!reader.torch_elements.is_valid()) reader.torch_elements = nb::dict();
  if (PyDict_SetItem(reader.torch_elements.ptr(), torch_dtype.ptr(), elements.ptr()) < 0) throw nb::python_error();
  return elements;
}

}  // namespace ztpy
