// ztensor._core.Reader's C++ side, shared by the bindings that take either a
// path or an open reader (convert, encode_object, plan_shards): a source
// Python opened itself (an fsspec URL pinned to one version) reaches the
// converters as it is.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <nanobind/nanobind.h>

#include "errors.h"
#include "ztensor/reader.h"
#include "ztensor/source.h"

namespace ztpy {

// Held by shared_ptr so a call that released the GIL keeps the source alive
// even if another thread closes the Python object meanwhile.
struct PyReader {
  std::shared_ptr<const zt::TensorSource> reader;
  // The same object when the source is a .zt file (digest checks per
  // object, file size); null for the other formats.
  const zt::Reader* zt_reader = nullptr;
  bool verify_on_read = false;
  // torch views of a local .zt file (torch_mapping.h): the file's one
  // copy-on-write mapping as a uint8 tensor, and a dict of it viewed per
  // torch dtype. Made on first use, dropped on close; views keep it alive.
  nanobind::object torch_bytes;
  nanobind::object torch_elements;

  std::shared_ptr<const zt::TensorSource> get() const {
    if (!reader) throw_status(zt::Status(zt::ErrorCode::invalid_argument, "reader is closed"));
    return reader;
  }
};

// The object of that name; not_found when there is none.
inline const zt::Object& find_object(const zt::TensorSource& r, std::string_view name) {
  const zt::Object* obj = r.find(name);
  if (!obj) throw_status(zt::Status(zt::ErrorCode::not_found, "no object named '" + std::string(name) + "'"));
  return *obj;
}

// A binding's `src` argument: a path or URL the core opens, or an open
// ztensor._core.Reader. Parse it with the GIL held; open it without.
struct SourceArg {
  std::string path;                                 // when `src` is a str
  std::shared_ptr<const zt::TensorSource> opened;  // when `src` is a Reader
  // How messages name it.
  std::string label() const { return opened ? std::string("the opened source") : "'" + path + "'"; }
};
SourceArg source_arg(nanobind::handle src);
// The source: `opened`, or open_any_source(path, verify_on_read).
zt::Result<std::shared_ptr<const zt::TensorSource>> open_source_arg(const SourceArg& arg, bool verify_on_read);

}  // namespace ztpy
