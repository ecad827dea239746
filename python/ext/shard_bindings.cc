// ztensor._core.plan_shards / publish_staged_shards: the two ends of a
// sharded .zt written by Dask workers (ztensor/_dask.py). The client plans
// the shards from the source's manifest by ShardedWriter's rule, each
// worker writes one shard as a complete .zt, and the client publishes the
// set with its index, as a local sharded convert does.
#include <memory>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "errors.h"
#include "py_reader.h"
#include "source_open.h"
#include "ztensor/convert.h"
#include "ztensor/sharded_writer.h"

namespace nb = nanobind;

namespace ztpy {
namespace {

// ([[(object index, name), ...] per shard], [decoded bytes per shard],
// source format) for converting `src` (a path, URL or open Reader) with
// shards of `max_shard_size`.
nb::tuple plan_shards(nb::object src, uint64_t max_shard_size) {
  const SourceArg src_arg = source_arg(src);
  std::vector<std::vector<size_t>> plan;
  std::vector<std::string> names;
  std::vector<uint64_t> sizes;
  std::string format;
  zt::Status status;
  {
    nb::gil_scoped_release release;
    status = [&]() -> zt::Status {
      ZT_ASSIGN_OR_RETURN(auto source, open_source_arg(src_arg, /*verify_on_read=*/false));  // manifest only
      format = source->format_name();
      for (const auto& o : source->manifest().objects) {
        names.push_back(o.name);
        sizes.push_back(zt::object_decoded_size(o));
      }
      plan = zt::plan_shards(sizes, max_shard_size);
      return zt::Status::Ok();
    }();
  }
  check(status);
  nb::list shards, shard_bytes;
  for (const auto& shard : plan) {
    nb::list objects;
    uint64_t bytes = 0;
    for (size_t i : shard) {
      objects.append(nb::make_tuple(i, nb::str(names[i].c_str(), names[i].size())));
      bytes += sizes[i];
    }
    shards.append(objects);
    shard_bytes.append(bytes);
  }
  return nb::make_tuple(shards, shard_bytes, format);
}

std::vector<std::string> publish_staged_shards(const std::string& path, const std::vector<std::string>& staged,
                                               const std::vector<std::vector<std::string>>& shard_objects,
                                               uint64_t total_size, bool durable) {
  zt::Result<std::vector<std::string>> files = std::vector<std::string>{};
  {
    nb::gil_scoped_release release;
    files = zt::publish_staged_shards(path, staged, shard_objects, total_size, durable);
  }
  check(files.status());
  return std::move(files).value();
}

// A staging folder held by this process (zt::ShardStaging) until close().
class PyShardStaging {
 public:
  explicit PyShardStaging(const std::string& path) {
    zt::Result<std::unique_ptr<zt::ShardStaging>> r = zt::Status(zt::ErrorCode::internal, "unset");
    {
      nb::gil_scoped_release release;
      r = zt::ShardStaging::create(path);
    }
    check(r.status());
    staging_ = std::move(r).value();
    folder_ = staging_->folder();
  }
  const std::string& folder() const { return folder_; }
  void close() {
    nb::gil_scoped_release release;
    staging_.reset();
  }

 private:
  std::unique_ptr<zt::ShardStaging> staging_;
  std::string folder_;
};

}  // namespace

void init_shards(nb::module_& m) {
  m.def("plan_shards", &plan_shards, nb::arg("src"), nb::arg("max_shard_size"),
        "The shards a sharded convert of src (a path or URL, or an open Reader) makes: objects per shard, bytes per shard, source format.");
  m.def("publish_staged_shards", &publish_staged_shards, nb::arg("path"), nb::arg("staged"),
        nb::arg("shard_objects"), nb::arg("total_size"), nb::arg("durable"),
        "Publish complete shard files written elsewhere as a sharded .zt set (see zt::publish_staged_shards).");
  nb::class_<PyShardStaging>(m, "ShardStaging",
                             "A locked staging folder beside a sharded .zt output (see zt::ShardStaging).")
      .def(nb::init<const std::string&>(), nb::arg("path"))
      .def_prop_ro("folder", &PyShardStaging::folder)
      .def("close", &PyShardStaging::close, "Remove the folder and what it holds, and release its lock.");
}

}  // namespace ztpy
