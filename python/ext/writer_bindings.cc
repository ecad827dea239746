// ztensor._core.Writer: a thin handle over zt::ShardedWriter (one file
// unless a max shard size asks for more). ztensor/_writer.py
// turns numpy arrays / torch tensors into (dtype, type, bytes) first, so the
// C++ side only ever sees flat little-endian uint8 buffers.
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "errors.h"
#include "value_convert.h"
#include "ztensor/sharded_writer.h"
#include "ztensor/writer.h"

namespace nb = nanobind;

namespace ztpy {
namespace {

using Bytes = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
// (role, dtype, logical type or "", data, encoding, level, digest or "")
using ComponentArg = std::tuple<std::string, std::string, std::string, Bytes, std::string, int, std::string>;

[[noreturn]] void bad(const std::string& msg) {
  throw_status(zt::Status(zt::ErrorCode::invalid_argument, msg));
}

zt::DigestAlgo digest_from_name(const std::string& name) {
  if (name.empty() || name == "none") return zt::DigestAlgo::none;
  if (name == "sha256") return zt::DigestAlgo::sha256;
  if (name == "crc32c") return zt::DigestAlgo::crc32c;
  bad("checksum must be None, 'sha256' or 'crc32c', not '" + name + "'");
}

// "raw", "zstd", "z4ai" or "z4ai:<effort>" (effort rides in the string so
// every add path shares one argument list).
void set_encoding(zt::ComponentSpec& c, const std::string& encoding, const std::string& name) {
  std::string base = encoding.empty() ? "raw" : encoding;
  std::string effort;
  if (auto colon = base.find(':'); colon != std::string::npos) {
    effort = base.substr(colon + 1);
    base = base.substr(0, colon);
  }
  auto enc = zt::encoding_from_name(base);
  if (!enc || *enc == zt::Encoding::unknown) bad("object '" + name + "': unknown compression '" + encoding + "'");
  c.encoding = *enc;
  if (effort.empty() || effort == "fast") {
    c.effort = 0;
  } else if (effort == "balanced" && *enc == zt::Encoding::z4ai) {
    c.effort = 1;
  } else if (effort == "max" && *enc == zt::Encoding::z4ai) {
    c.effort = 2;
  } else {
    bad("object '" + name + "': unknown effort '" + effort + "' for compression '" + base + "'");
  }
}

struct PyWriter {
  std::unique_ptr<zt::ShardedWriter> writer;
  // The writer is single-threaded; Python threads may call add() at once
  // while the GIL is released. Taken only with the GIL released.
  std::mutex mu;

  static zt::Status closed_status() {
    return zt::Status(zt::ErrorCode::invalid_argument, "writer is already finished or aborted");
  }
  void ensure_open() const {
    if (!writer) throw_status(closed_status());
  }
  // Re-checked under the lock: another thread may have finished meanwhile.
  zt::Status locked_add(const zt::ObjectSpec& spec) { return writer ? writer->add(spec) : closed_status(); }

  void add(const std::string& name, const std::vector<uint64_t>& shape, const std::string& format,
           nb::handle attributes, const std::vector<ComponentArg>& components) {
    ensure_open();
    zt::ObjectSpec spec;
    spec.name = name;
    spec.shape = shape;
    spec.format = format;
    spec.attributes = python_to_value(attributes);
    for (const auto& [role, dtype, type, data, encoding, level, digest] : components) {
      zt::ComponentSpec c;
      c.role = role;
      auto dt = zt::dtype_from_name(dtype);
      if (!dt) bad("object '" + name + "' component '" + role + "': unknown dtype '" + dtype + "'");
      c.dtype = *dt;
      if (!type.empty()) {
        auto lt = zt::logical_type_from_name(type);
        if (!lt) bad("object '" + name + "' component '" + role + "': unknown logical type '" + type + "'");
        c.type = *lt;
      }
      c.data = std::span<const uint8_t>(data.data(), data.shape(0));
      set_encoding(c, encoding, name);
      c.level = level;
      c.digest = digest_from_name(digest);
      spec.components.push_back(std::move(c));
    }
    zt::Status st;
    {
      // The ndarrays in `components` keep the buffers alive meanwhile.
      nb::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu);
      st = locked_add(spec);
    }
    check(st);
  }

  // One dense object straight from any C-contiguous buffer-protocol object
  // (numpy arrays of any dtype): skips building component tuples and the
  // ndarray import, which dominate for many small tensors.
  void add_dense(const std::string& name, const std::vector<uint64_t>& shape, const std::string& dtype,
                 const std::string& type, nb::handle data, const std::string& encoding, int level,
                 const std::string& digest, nb::handle attributes) {
    if (!PyObject_CheckBuffer(data.ptr())) {
      Bytes bytes = nb::cast<Bytes>(data);  // torch tensors via DLPack
      add(name, shape, "dense", attributes, {ComponentArg{"data", dtype, type, bytes, encoding, level, digest}});
      return;
    }
    ensure_open();
    zt::ObjectSpec spec;
    spec.name = name;
    spec.shape = shape;
    spec.attributes = python_to_value(attributes);
    zt::ComponentSpec c;
    c.role = "data";
    auto dt = zt::dtype_from_name(dtype);
    if (!dt) bad("object '" + name + "': unknown dtype '" + dtype + "'");
    c.dtype = *dt;
    if (!type.empty()) {
      auto lt = zt::logical_type_from_name(type);
      if (!lt) bad("object '" + name + "': unknown logical type '" + type + "'");
      c.type = *lt;
    }
    set_encoding(c, encoding, name);
    c.level = level;
    c.digest = digest_from_name(digest);
    Py_buffer view;
    if (PyObject_GetBuffer(data.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
    c.data = std::span<const uint8_t>(static_cast<const uint8_t*>(view.buf), static_cast<size_t>(view.len));
    spec.components.push_back(std::move(c));
    zt::Status st;
    {
      nb::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu);
      st = locked_add(spec);
    }
    PyBuffer_Release(&view);
    check(st);
  }

  // The files published: the one file, or the shards then the index.
  std::vector<std::string> finish() {
    ensure_open();
    zt::Result<std::vector<std::string>> files = closed_status();
    {
      nb::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu);
      if (writer) files = writer->finish();
      writer.reset();
    }
    check(files.status());
    return std::move(files).value();
  }

  void abort() {
    if (!writer) return;
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mu);
    if (writer) writer->abort();
    writer.reset();
  }
};

}  // namespace

void init_writer(nb::module_& m) {
  nb::class_<PyWriter>(m, "Writer")
      .def("__init__",
           [](PyWriter* self, const std::string& path, nb::handle attributes, bool durable, uint64_t max_shard_size) {
             zt::Value attrs = python_to_value(attributes);
             zt::Result<std::unique_ptr<zt::ShardedWriter>> w = [&] {
               nb::gil_scoped_release release;
               return zt::ShardedWriter::create(path, std::move(attrs), max_shard_size, durable);
             }();
             check(w.status());
             new (self) PyWriter{std::move(w).value()};
           },
           nb::arg("path"), nb::arg("attributes").none() = nb::none(), nb::arg("durable") = true,
           nb::arg("max_shard_size") = 0)
      .def("add", &PyWriter::add, nb::arg("name"), nb::arg("shape"), nb::arg("format"),
           nb::arg("attributes").none(), nb::arg("components"))
      .def("add_dense", &PyWriter::add_dense, nb::arg("name"), nb::arg("shape"), nb::arg("dtype"),
           nb::arg("type"), nb::arg("data"), nb::arg("encoding"), nb::arg("level"), nb::arg("digest"),
           nb::arg("attributes").none())
      .def("finish", &PyWriter::finish)
      .def("abort", &PyWriter::abort)
      .def_prop_ro("closed", [](const PyWriter& s) { return !s.writer; })
      .def_prop_ro("object_count", [](const PyWriter& s) { return s.writer ? s.writer->object_count() : 0; });
}

}  // namespace ztpy
