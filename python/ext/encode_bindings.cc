// ztensor._core.encode_object: the compression step of a conversion on its
// own, for a Dask worker (ztensor/_dask.py). It opens the source itself, so
// only the object's name goes out and only its encoded bytes come back.
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "errors.h"
#include "py_reader.h"
#include "source_open.h"
#include "ztensor/convert.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"

namespace nb = nanobind;

namespace ztpy {
namespace {

// [(stored bytes, decoded length)] for each component of `name` in `src`,
// in component order: what convert(..., encoded=) takes back. `src` is a
// path or URL, or an open Reader (opened with verify_on_read for .zt).
nb::list encode_object(nb::object src, const std::string& name, const std::string& encoding, int level,
                       int effort, unsigned threads) {
  auto enc = zt::encoding_from_name(encoding.empty() ? "raw" : encoding);
  if (!enc || *enc == zt::Encoding::unknown)
    throw_status(zt::Status(zt::ErrorCode::invalid_argument, "unknown compression '" + encoding + "'"));
  const SourceArg src_arg = source_arg(src);
  std::vector<zt::EncodedComponent> out;
  zt::Status status;
  {
    nb::gil_scoped_release release;
    status = [&]() -> zt::Status {
      // .zt inputs have their digests checked, as the local convert does.
      ZT_ASSIGN_OR_RETURN(auto source, open_source_arg(src_arg, /*verify_on_read=*/true));
      const zt::Object* object = source->find(name);
      if (object == nullptr)
        return zt::Status(zt::ErrorCode::not_found, "object '" + name + "' is not in " + src_arg.label());
      for (const auto& [role, c] : object->components) {
        ZT_ASSIGN_OR_RETURN(zt::ComponentBytes data, source->read_component(*object, role));
        zt::ComponentSpec cs;
        cs.role = role;
        cs.dtype = c.dtype;
        cs.type = c.type;
        cs.data = data.bytes;
        cs.encoding = *enc;
        cs.level = level;
        cs.effort = static_cast<uint8_t>(effort);
        cs.threads = threads;
        auto stored = zt::encode_component(cs);
        if (!stored.ok())
          return zt::Status(stored.status().code(), "object '" + name + "' " + stored.status().message());
        out.push_back({std::move(stored).value(), data.bytes.size()});
      }
      return zt::Status::Ok();
    }();
  }
  check(status);
  nb::list result;
  for (const auto& c : out)
    result.append(nb::make_tuple(nb::bytes(c.stored.data(), c.stored.size()), c.decoded_length));
  return result;
}

}  // namespace

void init_encode(nb::module_& m) {
  m.def("encode_object", &encode_object, nb::arg("src"), nb::arg("name"), nb::arg("encoding"), nb::arg("level"),
        nb::arg("effort"), nb::arg("threads") = 0, "Encode one object's components of a source (a path or URL, or an open Reader) as convert would (for Dask workers).");
}

}  // namespace ztpy
