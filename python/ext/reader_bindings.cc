// ztensor._core.Reader: a thin handle over a zt::TensorSource: a .zt file
// (zt::Reader) or any other weight format zt::open_source reads
// (safetensors, GGUF, .npy/.npz, PyTorch, ONNX). The Python class in
// ztensor/_reader.py adds the user-facing API on top.
#include <memory>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "array_out.h"
#include "callback_source.h"
#include "dtype_convert.h"
#include "errors.h"
#include "py_reader.h"
#include "source_open.h"
#include "torch_mapping.h"
#include "value_convert.h"
#include "ztensor/convert.h"
#include "ztensor/reader.h"
#include "ztensor/gguf.h"
#include "ztensor/remote.h"

namespace nb = nanobind;

namespace ztpy {
namespace {

PyReader make_reader(std::unique_ptr<zt::TensorSource> source, bool verify_on_read) {
  PyReader r;
  r.zt_reader = dynamic_cast<const zt::Reader*>(source.get());
  r.reader = std::shared_ptr<const zt::TensorSource>(std::move(source));
  r.verify_on_read = verify_on_read;
  return r;
}

nb::tuple shape_tuple(const std::vector<uint64_t>& shape) {
  nb::object t = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(shape.size())));
  for (size_t i = 0; i < shape.size(); ++i)
    PyTuple_SET_ITEM(t.ptr(), i, PyLong_FromUnsignedLongLong(shape[i]));
  return nb::borrow<nb::tuple>(t);
}

nb::dict component_dict(const zt::Component& c) {
  nb::dict d;
  d["dtype"] = zt::dtype_name(c.dtype);
  // Unknown logical types keep the name as written (reader falls back to dtype).
  d["type"] = c.type_name.empty() ? nb::none() : nb::object(nb::str(c.type_name.c_str()));
  d["offset"] = c.offset;
  d["length"] = c.length;
  // As written, so an encoding this build cannot decode is still named.
  d["encoding"] = c.encoding_text.empty() ? std::string(zt::encoding_name(c.encoding)) : c.encoding_text;
  d["digest"] = c.digest.empty() ? nb::none() : nb::object(nb::str(c.digest.c_str()));
  d["uncompressed_length"] =
      c.uncompressed_length ? nb::object(nb::int_(*c.uncompressed_length)) : nb::none();
  return d;
}

uint64_t product(const std::vector<uint64_t>& shape) {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;  // the reader rejected overflowing shapes
  return n;
}

// Shape of the numpy array handed out for one dense object: the object's
// shape when the element count fits the logical type, else flat storage
// elements (an unknown compound logical type, which the spec lets us read raw).
std::vector<size_t> dense_shape(const zt::Object& obj, const zt::Component& c, size_t nbytes,
                                nb::dlpack::dtype* dtype) {
  *dtype = logical_dlpack_dtype(c.dtype, c.type);
  size_t item = dtype->bits / 8;
  if (nbytes == product(obj.shape) * item) return {obj.shape.begin(), obj.shape.end()};
  *dtype = storage_dlpack_dtype(c.dtype);
  size_t width = zt::dtype_width(c.dtype);
  if (c.type == zt::LogicalType::none && !c.type_name.empty() && nbytes % width == 0)
    return {nbytes / width};
  throw_status(zt::Status(zt::ErrorCode::length_mismatch,
                          "object '" + obj.name + "' component 'data': " + std::to_string(nbytes) +
                              " decoded bytes do not match shape x element width"));
}

nb::object read_component(const PyReader& self, const std::string& name, const std::string& role) {
  auto reader = self.get();
  const zt::Object& obj = find_object(*reader, name);
  const zt::Component* c = obj.find(role);
  if (!c)
    throw_status(zt::Status(zt::ErrorCode::not_found,
                            "object '" + name + "' has no component '" + role + "'"));
  zt::Result<zt::ComponentBytes> bytes = [&] {
    nb::gil_scoped_release release;
    return reader->read_component(obj, role);
  }();
  check(bytes.status());
  size_t width = zt::dtype_width(c->dtype);
  if (bytes->bytes.size() % width != 0)
    throw_status(zt::Status(zt::ErrorCode::length_mismatch,
                            "object '" + name + "' component '" + role +
                                "': length is not a multiple of the dtype width"));
  nb::object cap = owner_capsule(bytes->owner);
  return make_array(*bytes, cap, storage_dlpack_dtype(c->dtype), {bytes->bytes.size() / width});
}

// numpy has no type for these; Python views the unsigned ints as ml_dtypes.
bool needs_view(const zt::Component& c) {
  switch (c.type) {
    case zt::LogicalType::f8_e4m3fn:
    case zt::LogicalType::f8_e5m2:
    case zt::LogicalType::f8_e4m3fnuz:
    case zt::LogicalType::f8_e5m2fnuz:
      return true;
    default:
      return c.dtype == zt::DType::bf16;
  }
}

// Dense objects in one call, read by zt::read_components on up to `threads`
// threads (0 = all cores) with the GIL released; the 10k-small-tensor case
// also pays one capsule per distinct owner instead of per-object Python
// work. Returns (arrays, [(index, dtype, type) of arrays Python must view]).
nb::tuple read_dense(const PyReader& self, const std::vector<std::string>& names, unsigned threads) {
  auto reader = self.get();
  std::vector<zt::ComponentRef> refs;
  refs.reserve(names.size());
  for (const auto& name : names) {
    const zt::Object& obj = find_object(*reader, name);
    if (obj.format != "dense" || !obj.find("data"))
      throw_status(zt::Status(zt::ErrorCode::invalid_argument,
                              "object '" + name + "' has format '" + obj.format +
                                  "', not a dense array; use read()"));
    refs.push_back({&obj, "data"});
  }
  zt::Result<std::vector<zt::ComponentBytes>> results = [&] {
    nb::gil_scoped_release release;
    return zt::read_components(*reader, refs, threads);
  }();
  check(results.status());
  nb::list out, fixups;
  const void* last_owner = nullptr;
  nb::object cap;
  for (size_t i = 0; i < refs.size(); ++i) {
    const zt::ComponentBytes& b = (*results)[i];
    if (!cap.is_valid() || b.owner.get() != last_owner) {
      cap = owner_capsule(b.owner);
      last_owner = b.owner.get();
    }
    const zt::Component& c = *refs[i].object->find("data");
    nb::dlpack::dtype dtype;
    std::vector<size_t> shape = dense_shape(*refs[i].object, c, b.bytes.size(), &dtype);
    out.append(make_array(b, cap, dtype, shape));
    if (needs_view(c))
      fixups.append(nb::make_tuple(i, zt::dtype_name(c.dtype), zt::logical_type_name(c.type)));
  }
  return nb::make_tuple(out, fixups);
}

// Reader.read(name) fast path for one dense object: the array, or
// (array, storage dtype, logical type) when Python must view it as
// ml_dtypes; None when the object is not dense (Python takes the general
// path). Saves building ObjectInfo and a names list per call.
nb::object read_dense_one(const PyReader& self, std::string_view name) {
  auto reader = self.get();
  const zt::Object& obj = find_object(*reader, name);
  const zt::Component* c = obj.format == "dense" ? obj.find("data") : nullptr;
  if (!c) return nb::none();
  zt::Result<zt::ComponentBytes> bytes = [&] {
    nb::gil_scoped_release release;
    return reader->read_component(obj, "data");
  }();
  check(bytes.status());
  nb::dlpack::dtype dtype;
  std::vector<size_t> shape = dense_shape(obj, *c, bytes->bytes.size(), &dtype);
  nb::object arr = make_array(*bytes, owner_capsule(bytes->owner), dtype, shape);
  if (!needs_view(*c)) return arr;
  return nb::make_tuple(arr, zt::dtype_name(c->dtype), zt::logical_type_name(c->type));
}

// One tuple per object for bulk metadata: (name, format, shape, dtype, type,
// offset, length, plain) from the `data` component (None fields when the
// object has none). `plain` = raw little-endian bytes usable straight from
// the file.
nb::list index(const PyReader& self) {
  auto reader = self.get();
  const auto& objects = reader->manifest().objects;
  nb::list out;
  for (const zt::Object& obj : objects) {
    const zt::Component* c = obj.find("data");
    nb::object dtype = nb::none(), type = nb::none(), offset = nb::none(), length = nb::none();
    bool plain = false;
    if (c) {
      dtype = nb::str(zt::dtype_name(c->dtype));
      if (c->type != zt::LogicalType::none) type = nb::str(zt::logical_type_name(c->type));
      offset = nb::int_(c->offset);
      length = nb::int_(c->length);
      // Offsets of other formats are not .zt payload positions.
      plain = self.zt_reader && c->encoding == zt::Encoding::raw && !c->big_endian;
    }
    out.append(nb::make_tuple(nb::str(obj.name.data(), obj.name.size()), nb::str(obj.format.c_str()),
                              shape_tuple(obj.shape), dtype, type, offset, length, plain));
  }
  return out;
}

nb::tuple object_info(const PyReader& self, const std::string& name) {
  auto reader = self.get();
  const zt::Object& obj = find_object(*reader, name);
  nb::list comps;
  for (const auto& [role, c] : obj.components) comps.append(nb::make_tuple(role, component_dict(c)));
  return nb::make_tuple(obj.name, obj.format, shape_tuple(obj.shape),
                        value_to_python(obj.attributes), comps);
}

PyReader open_path(const std::string& path, bool verify_on_read) {
  zt::Result<std::unique_ptr<zt::TensorSource>> r = [&] {
    nb::gil_scoped_release release;
    return open_any_source(path, verify_on_read);
  }();
  check(r.status());
  return make_reader(std::move(r).value(), verify_on_read);
}

// An http(s):// or s3:// URL read by the core with `options` (the names of
// zt::RemoteOptions::set, values as text); a sharded index's shards get the
// same options.
PyReader open_url(const std::string& url, const std::map<std::string, std::string>& options, bool verify_on_read) {
  if (!zt::is_native_url(url))
    throw_status(zt::Status(zt::ErrorCode::invalid_argument, "'" + url + "' is not an http://, https:// or s3:// URL"));
  zt::RemoteOptions remote;
  for (const auto& [key, value] : options) check(remote.set(key, value));
  zt::Result<std::unique_ptr<zt::TensorSource>> r = [&] {
    nb::gil_scoped_release release;
    zt::ScopedRemoteOptions scope(std::move(remote));
    return open_any_source(url, verify_on_read);
  }();
  check(r.status());
  return make_reader(std::move(r).value(), verify_on_read);
}

PyReader open_bytes(nb::bytes data, bool verify_on_read) {
  // Copied once: the arrays we hand out may outlive the bytes object.
  auto buf = std::make_shared<std::vector<uint8_t>>(
      static_cast<const uint8_t*>(data.data()), static_cast<const uint8_t*>(data.data()) + data.size());
  zt::ReadOptions options;
  options.verify_on_read = verify_on_read;
  zt::Result<std::unique_ptr<zt::Reader>> r = [&] {
    nb::gil_scoped_release release;
    return zt::Reader::open_memory(std::span<const uint8_t>(buf->data(), buf->size()), buf, options);
  }();
  check(r.status());
  return make_reader(std::move(r).value(), verify_on_read);
}

// A file read through read(offset, length) -> bytes (fsspec files), in the
// format its name's extension says: headers and manifests now, each
// component when it is read.
PyReader open_callback(std::string name, uint64_t size, nb::callable read, bool verify_on_read) {
  const zt::FileFormat format = zt::format_from_extension(name);
  auto source = make_callback_source(std::move(name), size, std::move(read));
  zt::Result<std::unique_ptr<zt::TensorSource>> r = [&] {
    nb::gil_scoped_release release;
    return zt::open_source(std::move(source), format, verify_on_read);
  }();
  check(r.status());
  return make_reader(std::move(r).value(), verify_on_read);
}

// A URL of any scheme through `opener(url) -> (size, read)` (fsspec): the
// file, or a sharded index and every shard beside it, read lazily like an
// HTTP URL. The format comes from the URL's extension.
PyReader open_with_opener(const std::string& url, nb::callable opener, bool verify_on_read) {
  zt::ScopedUrlOpener scope([&](const std::string& u) -> zt::Result<std::shared_ptr<const zt::ByteSource>> {
    nb::gil_scoped_acquire acquire;
    try {
      nb::tuple sized = nb::cast<nb::tuple>(opener(u));
      return make_callback_source(u, nb::cast<uint64_t>(sized[0]), nb::cast<nb::callable>(sized[1]));
    } catch (nb::python_error& e) {
      return status_from_python_error(e, u);
    } catch (const nb::cast_error&) {
      return zt::Status(zt::ErrorCode::internal, "URL opener for '" + u + "' did not return (size, read)");
    }
  });
  zt::Result<std::unique_ptr<zt::TensorSource>> r = [&] {
    nb::gil_scoped_release release;
    return zt::open_source(url, verify_on_read);
  }();
  check(r.status());
  return make_reader(std::move(r).value(), verify_on_read);
}

// f32 values of a gguf_quantized object (or a dense f32/f16/bf16 one) in
// its shape, decoded into a fresh writable array.
nb::object dequantize(const PyReader& self, const std::string& name) {
  auto reader = self.get();
  const zt::Object& obj = find_object(*reader, name);
  zt::Result<std::vector<float>> values = [&] {
    nb::gil_scoped_release release;
    return zt::gguf_dequantize_object(*reader, obj);
  }();
  check(values.status());
  auto owned = std::make_shared<std::vector<float>>(std::move(values).value());
  zt::ComponentBytes bytes;
  bytes.bytes = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(owned->data()), owned->size() * sizeof(float));
  bytes.owner = owned;
  bytes.zero_copy = false;
  nb::object cap = owner_capsule(bytes.owner);
  return make_array(bytes, cap, storage_dlpack_dtype(zt::DType::f32), {obj.shape.begin(), obj.shape.end()});
}

}  // namespace

zt::Result<std::unique_ptr<zt::TensorSource>> open_any_source(const std::string& path, bool verify_on_read) {
  // open_source opens the file once; only a file it cannot place is looked at again.
  auto source = zt::open_source(path, verify_on_read);
  if (source.ok() || source.status().code() != zt::ErrorCode::unsupported || zt::is_remote_url(path)) return source;
  ZT_ASSIGN_OR_RETURN(zt::FileFormat format, zt::detect_format(path));
  if (format != zt::FileFormat::unknown) return source;
  zt::ReadOptions options;
  options.verify_on_read = verify_on_read;
  auto zt = zt::Reader::open(path, options);
  if (!zt.ok() && zt.status().code() == zt::ErrorCode::bad_magic)
    return zt::Status(zt::ErrorCode::bad_magic, "'" + path +
                                                    "' is not a file ztensor can read (not .zt, safetensors, GGUF, "
                                                    ".npy/.npz, a PyTorch zip checkpoint or .onnx): " +
                                                    zt.status().message());
  ZT_RETURN_IF_ERROR(zt.status());
  return std::unique_ptr<zt::TensorSource>(std::move(zt).value());
}

SourceArg source_arg(nb::handle src) {
  SourceArg arg;
  if (nb::isinstance<PyReader>(src)) arg.opened = nb::cast<const PyReader&>(src).get();
  else arg.path = nb::cast<std::string>(src);
  return arg;
}

zt::Result<std::shared_ptr<const zt::TensorSource>> open_source_arg(const SourceArg& arg, bool verify_on_read) {
  if (arg.opened) return arg.opened;
  ZT_ASSIGN_OR_RETURN(auto source, open_any_source(arg.path, verify_on_read));
  return std::shared_ptr<const zt::TensorSource>(std::move(source));
}

void init_reader(nb::module_& m) {
  m.def("_batch_components_read", &zt::batch_components_read,
        "Components read_components has read in this process (tests watch it during a pause).");
  nb::class_<PyReader>(m, "Reader")
      .def_static("open", &open_path, nb::arg("path"), nb::arg("verify_on_read") = false,
                  "Map and validate a .zt file, or open any other supported format (detected by content).")
      .def_static("from_bytes", &open_bytes, nb::arg("data"), nb::arg("verify_on_read") = false)
      .def_static("open_url", &open_url, nb::arg("url"), nb::arg("options"), nb::arg("verify_on_read") = false,
                  "Open an http(s):// or s3:// URL with remote options (name -> text, see docs/remote.md).")
      .def_static("open_with_opener", &open_with_opener, nb::arg("url"), nb::arg("opener"),
                  nb::arg("verify_on_read") = false)
      .def_static("open_callback", &open_callback, nb::arg("name"), nb::arg("size"), nb::arg("read"),
                  nb::arg("verify_on_read") = false)
      .def_prop_ro("version", [](const PyReader& s) { return s.get()->manifest().version; })
      .def_prop_ro("file_size",
                   [](const PyReader& s) -> uint64_t {
                     return s.get()->file_size();  // raises when closed
                   })
      .def_prop_ro("format", [](const PyReader& s) { return std::string(s.get()->format_name()); })
      .def("torch_mapping", &torch_file_bytes,
           "The whole local .zt file as a torch uint8 tensor over the reader's one private mapping of the "
           "inode it validated (writes stay in this process), or None for a source that is not a mapped .zt file.")
      .def_prop_ro("closed", [](const PyReader& s) { return !s.reader; })
      .def("attributes", [](const PyReader& s) { return value_to_python(s.get()->manifest().attributes); })
      .def("names",
           [](const PyReader& s) {
             auto r = s.get();
             const auto& objects = r->manifest().objects;
             nb::object list = nb::steal(PyList_New(static_cast<Py_ssize_t>(objects.size())));
             for (size_t i = 0; i < objects.size(); ++i)
               PyList_SET_ITEM(list.ptr(), i,
                               PyUnicode_FromStringAndSize(objects[i].name.data(), objects[i].name.size()));
             return list;
           })
      .def("__len__", [](const PyReader& s) { return s.get()->manifest().objects.size(); })
      .def("has", [](const PyReader& s, const std::string& name) { return s.get()->find(name) != nullptr; })
      .def("index", &index)
      .def("partition",
           [](const PyReader& s) {
             // (dense names, other names): which objects read_dense() can take.
             auto r = s.get();
             nb::list dense, other;
             for (const zt::Object& obj : r->manifest().objects) {
               nb::str name(obj.name.data(), obj.name.size());
               if (obj.format == "dense" && obj.find("data")) dense.append(name);
               else other.append(name);
             }
             return nb::make_tuple(dense, other);
           })
      .def("object_info", &object_info, nb::arg("name"))
      .def("read_component", &read_component, nb::arg("name"), nb::arg("role"))
      .def("read_dense", &read_dense, nb::arg("names"), nb::arg("threads") = 0)
      .def("read_dense_one", &read_dense_one, nb::arg("name"))
      .def("dequantize", &dequantize, nb::arg("name"))
      .def("verify",
           [](const PyReader& s) {
             auto r = s.get();
             zt::Status st;
             {
               nb::gil_scoped_release release;
               st = r->verify();
             }
             check(st);
           })
      .def("verify_object",
           [](const PyReader& s, const std::string& name) {
             auto r = s.get();
             const zt::Object& obj = find_object(*r, name);
             const zt::Reader* zt_reader = s.zt_reader;  // kept alive by r
             zt::Status st;
             {
               nb::gil_scoped_release release;
               if (zt_reader) {
                 st = zt_reader->verify_object(obj);
               } else {
                 // TensorSource has no per-object check (stored .npz members
                 // are views whose CRC only verify() computes): check it all.
                 st = r->verify();
               }
             }
             check(st);
           })
      .def("close", [](PyReader& s) {
        s.zt_reader = nullptr;
        s.reader.reset();
        s.torch_bytes.reset();  // tensors handed out keep the mapping
        s.torch_elements.reset();
      });
}

}  // namespace ztpy
