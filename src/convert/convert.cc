// Conversions between formats: any TensorSource (open_source, source_open.cc)
// to .zt, safetensors or .npz, one object at a time.
#include "ztensor/convert.h"

#include "convert/numpy/npz_writer.h"
#include "convert/safetensors_writer.h"
#include "ztensor/reader.h"
#include "ztensor/sharded_writer.h"
#include "ztensor/test_pause.h"
#include "ztensor/writer.h"

namespace zt {
namespace {

Status add_warning_for_unknown_types(const Object& o, ConvertStats& stats) {
  for (const auto& [role, c] : o.components)
    if (c.type == LogicalType::none && !c.type_name.empty() && c.type_name != dtype_name(c.dtype))
      stats.warnings.push_back("object '" + o.name + "' component '" + role + "': logical type '" + c.type_name +
                               "' is unknown to this version and was written as plain " + dtype_name(c.dtype));
  return Status::Ok();
}

// A conversion that finds no tensor fails with a message instead of writing
// an empty file: an empty output hides a reader that saw nothing.
Status require_objects(const TensorSource& source) {
  if (!source.manifest().objects.empty()) return {};
  return {ErrorCode::not_found, std::string("convert: the ") + source.format_name() +
                                    " file holds no tensor zTensor can read; nothing to convert, so no output is written"};
}

}  // namespace

uint64_t object_decoded_size(const Object& object) {
  uint64_t n = 0;
  for (const auto& [role, c] : object.components) n += c.uncompressed_length.value_or(c.length);
  return n;
}

Result<ConvertStats> convert_source_to_zt(const TensorSource& source, const std::string& out,
                                          const ConvertOptions& options) {
  ZT_RETURN_IF_ERROR(require_objects(source));
  test_pause("convert:source-opened");
  const Manifest& m = source.manifest();
  std::vector<size_t> selected = options.objects;
  if (selected.empty()) {
    selected.resize(m.objects.size());
    for (size_t i = 0; i < selected.size(); ++i) selected[i] = i;
  }
  uint64_t total = 0;
  for (size_t i = 0; i < selected.size(); ++i) {
    if (selected[i] >= m.objects.size() || (i > 0 && selected[i] <= selected[i - 1]))
      return Status(ErrorCode::invalid_argument, "convert: object indices must ascend below " +
                                                     std::to_string(m.objects.size()) + ", the source's count");
    total += object_decoded_size(m.objects[selected[i]]);
  }
  ZT_ASSIGN_OR_RETURN(auto writer, ShardedWriter::create(out, m.attributes, options.max_shard_size, options.durable));
  ConvertStats stats;
  for (size_t index : selected) {
    const Object& o = m.objects[index];
    ZT_RETURN_IF_ERROR(add_warning_for_unknown_types(o, stats));
    ObjectSpec spec;
    spec.name = o.name;
    spec.shape = o.shape;
    spec.format = o.format;
    spec.attributes = o.attributes;
    std::vector<ComponentBytes> keep;  // decoded bytes live until add() returns
    std::vector<EncodedComponent> encoded;
    if (options.encoded) {
      ZT_ASSIGN_OR_RETURN(encoded, options.encoded(index, o));
      if (encoded.size() != o.components.size())
        return Status(ErrorCode::invalid_argument, "object '" + o.name + "': " + std::to_string(encoded.size()) +
                                                       " encoded components given for " +
                                                       std::to_string(o.components.size()));
    }
    keep.reserve(o.components.size());
    for (size_t i = 0; i < o.components.size(); ++i) {
      const auto& [role, c] = o.components[i];
      ComponentSpec cs;
      cs.role = role;
      cs.dtype = c.dtype;
      cs.type = c.type;
      cs.encoding = options.encoding;
      cs.level = options.level;
      cs.effort = options.effort;
      cs.digest = options.digest;
      if (options.encoded) {
        cs.data = encoded[i].stored;
        cs.pre_encoded = true;
        cs.decoded_length = encoded[i].decoded_length;
      } else {
        ZT_ASSIGN_OR_RETURN(ComponentBytes data, source.read_component(o, role));
        cs.data = data.bytes;
        keep.push_back(std::move(data));
      }
      stats.bytes += cs.decoded_size();
      spec.components.push_back(std::move(cs));
    }
    ZT_RETURN_IF_ERROR(writer->add(spec));
    ++stats.objects;
    if (options.progress) options.progress(stats.bytes, total);
  }
  ZT_ASSIGN_OR_RETURN(stats.files, writer->finish());
  return stats;
}

Result<ConvertStats> convert_source_to_safetensors(const TensorSource& source, const std::string& out,
                                                   const ProgressFn& progress) {
  ZT_RETURN_IF_ERROR(require_objects(source));
  return write_safetensors(source, out, progress);
}

Result<ConvertStats> convert_source_to_npz(const TensorSource& source, const std::string& out,
                                           const ProgressFn& progress) {
  ZT_RETURN_IF_ERROR(require_objects(source));
  return npz::write_npz(source, out, progress);
}

Result<ConvertStats> convert_to_zt(const std::string& in, const std::string& out, const ConvertOptions& options) {
  ZT_ASSIGN_OR_RETURN(auto source, open_source(in, /*verify_on_read=*/true));
  return convert_source_to_zt(*source, out, options);
}

Result<ConvertStats> convert_to_safetensors(const std::string& in, const std::string& out,
                                            const ConvertOptions& options) {
  ZT_ASSIGN_OR_RETURN(auto source, open_source(in, /*verify_on_read=*/true));
  return convert_source_to_safetensors(*source, out, options.progress);
}

Result<ConvertStats> convert_to_npz(const std::string& in, const std::string& out, const ConvertOptions& options) {
  ZT_ASSIGN_OR_RETURN(auto source, open_source(in, /*verify_on_read=*/true));
  return convert_source_to_npz(*source, out, options.progress);
}

}  // namespace zt
