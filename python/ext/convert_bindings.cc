// ztensor._core.convert: any readable format -> .zt, safetensors or .npz,
// through the C++ converters with the GIL released. ztensor/_convert.py
// validates the arguments and picks the output format.
#include <atomic>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "errors.h"
#include "py_reader.h"
#include "source_open.h"
#include "ztensor/convert.h"
#include "ztensor/reader.h"
#include "ztensor/sharded_writer.h"
#include "ztensor/test_pause.h"

namespace nb = nanobind;

namespace ztpy {
namespace {

// Forwards to a source until cancelled; then every read fails, which makes
// the converter stop and drop its temporary output. This is how an exception
// in the progress callback (or Ctrl-C) aborts a conversion, since the C++
// progress hook cannot return an error itself.
class CancellableSource final : public zt::TensorSource {
 public:
  explicit CancellableSource(const zt::TensorSource& inner) : inner_(inner) {}
  const char* format_name() const override { return inner_.format_name(); }
  const zt::Manifest& manifest() const override { return inner_.manifest(); }
  const zt::Object* find(std::string_view name) const override { return inner_.find(name); }
  zt::Result<zt::ComponentBytes> read_component(const zt::Object& object, std::string_view role) const override {
    if (cancelled_.load(std::memory_order_relaxed))
      return zt::Status(zt::ErrorCode::invalid_argument, "conversion cancelled");
    return inner_.read_component(object, role);
  }
  zt::Status verify() const override { return inner_.verify(); }
  void cancel() { cancelled_.store(true, std::memory_order_relaxed); }

 private:
  const zt::TensorSource& inner_;
  std::atomic<bool> cancelled_{false};
};

zt::DigestAlgo digest_from_name(const std::string& name) {
  if (name.empty() || name == "none") return zt::DigestAlgo::none;
  if (name == "sha256") return zt::DigestAlgo::sha256;
  if (name == "crc32c") return zt::DigestAlgo::crc32c;
  throw_status(zt::Status(zt::ErrorCode::invalid_argument,
                          "checksum must be None, 'sha256' or 'crc32c', not '" + name + "'"));
}

// The options both conversions take from ztensor/_convert.py.
zt::ConvertOptions convert_options(const std::string& encoding, int level, int effort, const std::string& digest,
                                   bool durable, uint64_t max_shard_size) {
  zt::ConvertOptions options;
  auto enc = zt::encoding_from_name(encoding.empty() ? "raw" : encoding);
  if (!enc || *enc == zt::Encoding::unknown)
    throw_status(zt::Status(zt::ErrorCode::invalid_argument, "unknown compression '" + encoding + "'"));
  options.encoding = *enc;
  options.level = level;
  options.effort = static_cast<uint8_t>(effort);
  options.digest = digest_from_name(digest);
  options.durable = durable;
  options.max_shard_size = max_shard_size;
  return options;
}

// One object's components from the Python `encoded` hook: a list of
// (stored bytes, decoded length) in component order. Needs the GIL.
std::vector<zt::EncodedComponent> encoded_components(nb::handle list, const std::string& name) {
  std::vector<zt::EncodedComponent> out;
  try {
    for (nb::handle item : list) {
      auto pair = nb::cast<nb::tuple>(item);
      auto stored = nb::cast<nb::bytes>(pair[0]);
      const auto* p = static_cast<const uint8_t*>(stored.data());
      out.push_back({std::vector<uint8_t>(p, p + stored.size()), nb::cast<uint64_t>(pair[1])});
    }
  } catch (const nb::cast_error&) {
    throw_status(zt::Status(zt::ErrorCode::invalid_argument,
                            "object '" + name + "': encoded components must be (bytes, int) pairs"));
  }
  return out;
}

// Returns (objects, bytes, warnings, input format, files written). `src` is
// a path or URL, or an open Reader (opened with verify_on_read for .zt).
nb::tuple convert(nb::object src, const std::string& dst, const std::string& out_format,
                  const std::string& encoding, int level, int effort, const std::string& digest,
                  bool durable, nb::object progress, uint64_t max_shard_size, nb::object encoded,
                  std::vector<size_t> objects) {
  zt::ConvertOptions options = convert_options(encoding, level, effort, digest, durable, max_shard_size);
  options.objects = std::move(objects);
  if (out_format != "zt" && out_format != "safetensors" && out_format != "npz")
    throw_status(zt::Status(zt::ErrorCode::invalid_argument, "cannot write format '" + out_format + "'"));

  if (!encoded.is_none() && out_format != "zt")
    throw_status(zt::Status(zt::ErrorCode::invalid_argument, "pre-encoded components need .zt output"));
  const SourceArg src_arg = source_arg(src);
  std::optional<nb::python_error> raised;  // from progress, the encoded hook or a signal
  std::string in_format;
  zt::Result<zt::ConvertStats> result = zt::ConvertStats{};
  {
    nb::gil_scoped_release release;
    // .zt inputs have their digests checked: never copy bytes that are wrong.
    auto source = open_source_arg(src_arg, /*verify_on_read=*/true);
    if (!source.ok()) {
      result = source.status();
    } else {
      in_format = source.value()->format_name();
      CancellableSource guarded(*source.value());
      options.progress = [&](uint64_t done, uint64_t total) {
        nb::gil_scoped_acquire acquire;
        if (raised) return;
        try {
          if (PyErr_CheckSignals() != 0) throw nb::python_error();
          if (!progress.is_none()) progress(done, total);
        } catch (nb::python_error& e) {
          raised.emplace(std::move(e));
          guarded.cancel();
        }
      };
      if (!encoded.is_none()) {
        options.encoded = [&](size_t index, const zt::Object& object)
            -> zt::Result<std::vector<zt::EncodedComponent>> {
          nb::gil_scoped_acquire acquire;
          try {
            return encoded_components(encoded(index, nb::str(object.name.c_str(), object.name.size())),
                                      object.name);
          } catch (nb::python_error& e) {  // a worker's error, or Ctrl-C while waiting
            raised.emplace(std::move(e));
          } catch (const StatusError& e) {
            return e.status();
          }
          guarded.cancel();
          return zt::Status(zt::ErrorCode::invalid_argument, "conversion cancelled");
        };
      }
      if (out_format == "zt") result = zt::convert_source_to_zt(guarded, dst, options);
      else if (out_format == "npz") result = zt::convert_source_to_npz(guarded, dst, options.progress);
      else result = zt::convert_source_to_safetensors(guarded, dst, options.progress);
      if (raised && result.ok()) {  // raised on the last object: undo
        if (result->files.empty()) std::remove(dst.c_str());
        for (const auto& f : result->files) std::remove(f.c_str());
      }
    }
  }
  if (raised) throw std::move(*raised);
  check(result.status());
  nb::list warnings;
  for (const auto& w : result->warnings) warnings.append(nb::str(w.c_str(), w.size()));
  nb::list files;
  for (const auto& f : result->files) files.append(nb::str(f.c_str(), f.size()));
  return nb::make_tuple(result->objects, result->bytes, warnings, in_format, files);
}

// Thrown from the progress hook of a folder conversion to stop it: the
// converter cannot be handed a cancellable source there (it opens its own),
// and unwinding runs its destructors, which drop every temporary and take
// back what was published, as an error return would.
struct FolderCancelled {};

// Returns (objects, bytes, warnings, files written): the weights, then the copies.
nb::tuple convert_folder(const std::string& src, const std::string& dst, const std::string& encoding, int level,
                         int effort, const std::string& digest, bool durable, nb::object progress,
                         uint64_t max_shard_size) {
  zt::ConvertOptions options = convert_options(encoding, level, effort, digest, durable, max_shard_size);
  std::optional<nb::python_error> raised;
  options.progress = [&](uint64_t done, uint64_t total) {
    nb::gil_scoped_acquire acquire;
    try {
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
      if (!progress.is_none()) progress(done, total);
    } catch (nb::python_error& e) {
      raised.emplace(std::move(e));
    }
    if (raised) throw FolderCancelled{};
  };
  zt::Result<zt::ConvertStats> result = zt::ConvertStats{};
  try {
    nb::gil_scoped_release release;
    result = zt::convert_model_folder(src, dst, options);
  } catch (const FolderCancelled&) {
  }
  if (raised) throw std::move(*raised);
  check(result.status());
  nb::list warnings, files;
  for (const auto& w : result->warnings) warnings.append(nb::str(w.c_str(), w.size()));
  for (const auto& f : result->files) files.append(nb::str(f.c_str(), f.size()));
  return nb::make_tuple(result->objects, result->bytes, warnings, files);
}

uint64_t parse_byte_size(const std::string& text) {
  auto r = zt::parse_byte_size(text);
  check(r.status());
  return r.value();
}

}  // namespace

void init_convert(nb::module_& m) {
  m.def("convert", &convert, nb::arg("src"), nb::arg("dst"), nb::arg("out_format"), nb::arg("encoding"),
        nb::arg("level"), nb::arg("effort"), nb::arg("digest"), nb::arg("durable"), nb::arg("progress").none(),
        nb::arg("max_shard_size") = 0, nb::arg("encoded").none() = nb::none(),
        nb::arg("objects") = std::vector<size_t>{}, "Convert any readable file (a path or URL, or an open Reader) to .zt, safetensors or .npz (see ztensor.convert).");
  m.def("convert_folder", &convert_folder, nb::arg("src"), nb::arg("dst"), nb::arg("encoding"), nb::arg("level"),
        nb::arg("effort"), nb::arg("digest"), nb::arg("durable"), nb::arg("progress").none(),
        nb::arg("max_shard_size") = 0, "Convert a Hugging Face model folder (see ztensor.convert).");
  // The library's test pause point (ztensor/test_pause.h), for Python front
  // ends that pause where the core cannot see (the Dask client's progress).
  m.def(
      "test_pause",
      [](const std::string& point) {
        nb::gil_scoped_release release;
        zt::test_pause(point.c_str());
      },
      nb::arg("point"), "Test-only: pause at `point` when ZT_TEST_PAUSE_AT names it (ztensor/test_pause.h).");
  m.def("parse_byte_size", &parse_byte_size, nb::arg("text"),
        "Bytes in a shard size: an integer, or with a unit as Hugging Face accepts ('5GB', '2GiB').");
}

}  // namespace ztpy
