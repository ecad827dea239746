// ztensor._core.TensorSlice: Reader.get_slice's lazy index of one dense
// object, one call per index. A basic index (ints, slices, Ellipsis, None)
// is worked out here (slice_index.h) and only the bytes it selects are read:
// a view of the mapping locally, one range request remotely, a view of the
// decoded buffer for compressed data. numpy gets a view. torch gets a view
// of a copy-on-write mapping of a local .zt file's raw component (as
// safetensors' get_slice views its mapping), else a tensor holding just the
// selection. Any other index is numpy's to apply to the whole object, as
// numpy would.
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <sys/mman.h>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include "array_out.h"
#include "errors.h"
#include "py_reader.h"
#include "slice_index.h"
#include "strided_copy.h"
#include "torch_mapping.h"

namespace nb = nanobind;

namespace ztpy {
namespace {

// Copies above this size run with the GIL released.
constexpr size_t kCopyWithoutGil = size_t{1} << 20;
// Fresh buffers from this size are backed by huge pages, numpy's rule: a
// column block's copy otherwise spends most of its time in page faults.
constexpr size_t kHugePageBuffer = size_t{4} << 20;
constexpr uintptr_t kHugePage = uintptr_t{2} << 20;

void advise_huge_pages(uint8_t* p, size_t n) {
#ifdef MADV_HUGEPAGE
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + n) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a hint: errors ignored
#else
  (void)p;
  (void)n;
#endif
}

// numpy or torch dtype objects from ztensor._dtypes (the one table of
// them), looked up once per element type and kept for the process.
nb::handle dtype_object(const char* helper, zt::DType storage, zt::LogicalType logical) {
  static std::map<std::tuple<std::string, int, int>, PyObject*> cache;
  auto key = std::make_tuple(std::string(helper), static_cast<int>(storage), static_cast<int>(logical));
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  nb::object logical_name = nb::none();
  if (logical != zt::LogicalType::none) logical_name = nb::str(zt::logical_type_name(logical));
  nb::object dt = nb::module_::import_("ztensor._dtypes").attr(helper)(zt::dtype_name(storage), logical_name);
  return cache.emplace(key, dt.release().ptr()).first->second;
}

struct TensorSlice {
  nb::object reader;                               // the _core.Reader: once closed, indexing raises
  std::shared_ptr<const zt::TensorSource> source;  // keeps `object` alive
  const zt::Object* object = nullptr;
  const zt::Component* data = nullptr;
  bool torch = false;
  // An unknown compound logical type: read() hands out flat storage
  // elements when the bytes do not fit the shape, so numpy indexes those.
  bool compound = false;
  nb::handle dtype;  // numpy dtype of the elements (cached, never freed)
  int64_t item = 0;
};

nb::tuple int_tuple(std::span<const int64_t> values) {
  nb::object t = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(values.size())));
  for (size_t i = 0; i < values.size(); ++i) PyTuple_SET_ITEM(t.ptr(), i, PyLong_FromLongLong(values[i]));
  return nb::borrow<nb::tuple>(t);
}

std::vector<int64_t> c_strides(std::span<const int64_t> shape, int64_t item) {
  std::vector<int64_t> strides(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = item;
    item *= shape[d];
  }
  return strides;
}

void make_slice(TensorSlice* self, nb::handle_t<PyReader> reader, std::string_view name, bool torch) {
  auto source = nb::cast<const PyReader&>(reader).get();
  const zt::Object& obj = find_object(*source, name);
  const zt::Component* c = obj.format == "dense" ? obj.find("data") : nullptr;
  if (!c)
    throw_status(zt::Status(zt::ErrorCode::unsupported, "object '" + obj.name + "' has format '" + obj.format +
                                                            "': get_slice takes dense objects only; use read()"));
  nb::handle dtype = dtype_object("numpy_dtype", c->dtype, c->type);
  const int64_t item = dtype_itemsize(dtype);
  // Every byte offset of an index is at most the tensor's size; keep it signed.
  uint64_t bytes = static_cast<uint64_t>(item);
  for (uint64_t d : obj.shape)
    if (__builtin_mul_overflow(bytes, d, &bytes) || bytes > static_cast<uint64_t>(INT64_MAX))
      throw_status(zt::Status(zt::ErrorCode::shape_overflow,
                              "object '" + obj.name + "': its shape holds more bytes than an index can address"));
  new (self) TensorSlice{nb::borrow(reader), std::move(source), &obj, c, torch,
                         c->type == zt::LogicalType::none && !c->type_name.empty(), dtype, item};
}

zt::ComponentBytes read_range(const TensorSlice& s, int64_t lo, int64_t hi) {
  zt::Result<zt::ComponentBytes> bytes = [&] {
    nb::gil_scoped_release release;
    return s.source->read_component_range(*s.object, "data", static_cast<uint64_t>(lo),
                                          static_cast<uint64_t>(hi - lo));
  }();
  check(bytes.status());
  if (bytes->bytes.size() != static_cast<uint64_t>(hi - lo))
    throw_status(zt::Status(zt::ErrorCode::length_mismatch, "object '" + s.object->name + "': a read of " +
                                                                std::to_string(hi - lo) + " bytes returned " +
                                                                std::to_string(bytes->bytes.size())));
  return std::move(bytes).value();
}

// A fresh C-ordered torch tensor of `shape` holding a copy of the strided elements at `src`.
nb::object torch_copy(const TensorSlice& s, const uint8_t* src, std::span<const int64_t> shape,
                      std::span<const int64_t> strides) {
  static nb::handle empty = nb::object(nb::module_::import_("torch").attr("empty")).release();
  nb::object t = empty(int_tuple(shape), nb::arg("dtype") = dtype_object("torch_dtype", s.data->dtype, s.data->type));
  int64_t count = 1;
  for (int64_t n : shape) count *= n;
  if (count == 0) return t;
  auto* dst = reinterpret_cast<uint8_t*>(nb::cast<uintptr_t>(t.attr("data_ptr")()));
  const size_t item = static_cast<size_t>(s.item), bytes = static_cast<size_t>(count) * item;
  if (bytes < kCopyWithoutGil) {
    strided_copy(dst, src, shape, strides, item);
  } else {
    nb::gil_scoped_release release;
    if (bytes >= kHugePageBuffer) advise_huge_pages(dst, bytes);
    strided_copy(dst, src, shape, strides, item);
  }
  return t;
}

// The selection as a view of the reader's copy-on-write mapping of its
// local .zt file (torch_mapping.h); None for other sources, and for axes
// that run backwards (torch has no negative strides).
nb::object torch_view(const TensorSlice& s, const Selection& sel) {
  for (size_t d = 0; d < sel.shape.size(); ++d)
    if (sel.strides[d] < 0 && sel.shape[d] > 1) return nb::none();
  nb::object elements = torch_file_elements(nb::cast<PyReader&>(s.reader),
                                            dtype_object("torch_dtype", s.data->dtype, s.data->type), s.item);
  if (elements.is_none()) return elements;
  // Element strides; a length-1 axis gets the stride torch gives one (numpy's
  // new axes have 0, which torch's view(dtype) refuses).
  std::vector<int64_t> steps(sel.strides.size());
  for (size_t d = steps.size(); d-- > 0;) {
    const bool last = d + 1 == steps.size();
    steps[d] = sel.shape[d] != 1 ? sel.strides[d] / s.item : last ? 1 : steps[d + 1] * sel.shape[d + 1];
  }
  // Components start 64-byte aligned, so the first element's file offset is a whole element.
  const int64_t first = static_cast<int64_t>(s.data->offset) + sel.first;
  return elements.attr("as_strided")(int_tuple(sel.shape), int_tuple(steps), first / s.item);
}

nb::object take_basic(const TensorSlice& s, const Selection& sel) {
  zt::ComponentBytes bytes;
  const uint8_t* first = nullptr;
  if (sel.hi > sel.lo) {  // an empty selection reads nothing
    bytes = read_range(s, sel.lo, sel.hi);
    first = bytes.bytes.data() + (sel.first - sel.lo);
  }
  if (s.torch && bytes.zero_copy) {  // the range was a view of the mapping: raw, unverified, still backed
    nb::object view = torch_view(s, sel);
    if (!view.is_none()) return view;
  }
  if (s.torch) return torch_copy(s, first, sel.shape, sel.strides);
  nb::object base = bytes.owner ? owner_capsule(bytes.owner) : nb::none();
  nb::object arr = make_view(s.dtype, first, sel.shape, sel.strides, first && !bytes.zero_copy, base);
  return sel.scalar ? array_scalar(std::move(arr)) : arr;
}

// numpy's own index of the whole object, as Reader.read(name) returns it.
nb::object take_whole(const TensorSlice& s, nb::handle key) {
  zt::Result<zt::ComponentBytes> bytes = [&] {
    nb::gil_scoped_release release;
    return s.source->read_component(*s.object, "data");
  }();
  check(bytes.status());
  const uint64_t n = bytes->bytes.size();
  std::vector<int64_t> shape(s.object->shape.begin(), s.object->shape.end());
  int64_t count = 1;
  for (int64_t d : shape) count *= d;  // fits: checked when the slice was made
  if (n != static_cast<uint64_t>(count * s.item)) {
    if (!s.compound || n % static_cast<uint64_t>(s.item) != 0)
      throw_status(zt::Status(zt::ErrorCode::length_mismatch,
                              "object '" + s.object->name + "' component 'data': " + std::to_string(n) +
                                  " decoded bytes do not match shape x element width"));
    shape = {static_cast<int64_t>(n / static_cast<uint64_t>(s.item))};
  }
  nb::object whole = make_view(s.dtype, bytes->bytes.data(), shape, c_strides(shape, s.item), !bytes->zero_copy,
                               owner_capsule(bytes->owner));
  nb::object part = nb::steal(PyObject_GetItem(whole.ptr(), key.ptr()));
  if (!part.is_valid()) throw nb::python_error();
  if (!s.torch) return part;
  ArrayLayout layout = array_layout(part);
  return torch_copy(s, layout.data, layout.shape, layout.strides);
}

// Raises numpy's error for an index numpy refuses, from a stand-in array of
// the object's shape over one zero element (no data is read). Returns if
// numpy accepts it after all; the caller then indexes the real data.
void raise_as_numpy(const TensorSlice& s, nb::handle key) {
  alignas(64) static const uint8_t kZero[64] = {};
  std::vector<int64_t> shape(s.object->shape.begin(), s.object->shape.end()), zeros(shape.size(), 0);
  nb::object stand_in = make_view(s.dtype, kZero, shape, zeros, false, nb::none());
  if (!nb::steal(PyObject_GetItem(stand_in.ptr(), key.ptr())).is_valid()) throw nb::python_error();
}

nb::object getitem(const TensorSlice& s, nb::handle key) {
  nb::cast<const PyReader&>(s.reader).get();  // raises once the reader is closed
  if (!s.compound) {
    Selection sel;
    switch (select(key.ptr(), s.object->shape, s.item, &sel)) {
      case IndexKind::basic: return take_basic(s, sel);
      case IndexKind::invalid: raise_as_numpy(s, key); break;
      case IndexKind::advanced: break;
    }
  }
  return take_whole(s, key);
}

}  // namespace

void init_slice(nb::module_& m) {
  nb::class_<TensorSlice>(m, "TensorSlice")
      .def("__init__", &make_slice, nb::arg("reader"), nb::arg("name"), nb::arg("torch"),
           "A lazy index of one dense object of `reader` (numpy views, or torch tensors when `torch`).")
      .def("__getitem__", &getitem, nb::arg("key").none())
      .def_prop_ro("name", [](const TensorSlice& s) { return s.object->name; })
      .def_prop_ro("shape",
                   [](const TensorSlice& s) {
                     return int_tuple(std::vector<int64_t>(s.object->shape.begin(), s.object->shape.end()));
                   })
      .def_prop_ro("storage", [](const TensorSlice& s) { return std::string(zt::dtype_name(s.data->dtype)); })
      .def_prop_ro("logical",
                   [](const TensorSlice& s) -> std::optional<std::string> {
                     if (s.data->type == zt::LogicalType::none) return std::nullopt;
                     return zt::logical_type_name(s.data->type);
                   })
      .def_prop_ro("torch", [](const TensorSlice& s) { return s.torch; });
}

}  // namespace ztpy
