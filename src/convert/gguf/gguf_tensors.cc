// GGUF tensor infos: names, shapes, types, and where their bytes lie.
#include <algorithm>
#include <unordered_set>

#include "container/validate.h"
#include "common/checked_math.h"
#include "convert/gguf/gguf_file.h"
#include "convert/gguf/gguf_limits.h"

namespace zt::gguf {
namespace {

std::string dims_text(const std::vector<uint64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

Status tensor_error(ErrorCode code, const std::string& name, const std::string& rule) {
  return Status(code, "gguf tensor " + quoted(name) + ": " + rule);
}

}  // namespace

Status read_tensor_infos(Cursor& cur, uint64_t tensor_count, File* file) {
  if (tensor_count > cur.remaining() / kMinTensorInfoBytes)
    return Status(ErrorCode::malformed_manifest, "gguf header claims " + std::to_string(tensor_count) +
                                                     " tensors but only " + std::to_string(cur.remaining()) +
                                                     " bytes remain for their infos");
  file->tensors.reserve(tensor_count);
  std::unordered_set<std::string> seen;
  for (uint64_t i = 0; i < tensor_count; ++i) {
    TensorInfo t;
    ZT_RETURN_IF_ERROR(read_string(cur, &t.name, ("tensor name #" + std::to_string(i)).c_str()));
    if (!valid_utf8(t.name))
      return Status(ErrorCode::malformed_manifest, "gguf tensor #" + std::to_string(i) + ": name is not valid UTF-8");
    ZT_RETURN_IF_ERROR(check_name(t.name, "gguf tensor"));
    if (!seen.insert(t.name).second)
      return tensor_error(ErrorCode::invalid_structure, t.name, "name appears more than once");
    uint32_t n_dims = 0;
    if (!cur.read(&n_dims)) return tensor_error(ErrorCode::malformed_manifest, t.name, "n_dims runs past the end of the file");
    if (n_dims > kMaxDims)
      return tensor_error(ErrorCode::limit_exceeded, t.name, "n_dims " + std::to_string(n_dims) +
                                                                 " exceeds GGML_MAX_DIMS = " + std::to_string(kMaxDims));
    t.ggml_dims.resize(n_dims);
    for (auto& d : t.ggml_dims)
      if (!cur.read(&d)) return tensor_error(ErrorCode::malformed_manifest, t.name, "dims run past the end of the file");
    uint32_t type = 0;
    if (!cur.read(&type) || !cur.read(&t.offset))
      return tensor_error(ErrorCode::malformed_manifest, t.name, "type/offset run past the end of the file");
    t.type = ggml_type_info(type);
    if (!t.type) return tensor_error(ErrorCode::unknown_dtype, t.name, "unknown ggml type " + std::to_string(type));

    // ggml keeps element counts in int64_t: the product must fit in it.
    auto n = checked_product(t.ggml_dims);
    if (!n || *n > static_cast<uint64_t>(INT64_MAX))
      return tensor_error(ErrorCode::shape_overflow, t.name, "dims " + dims_text(t.ggml_dims) + " overflow 63 bits");
    t.n_elements = *n;
    // ggml quantizes along rows: dims[0] must hold whole blocks.
    const uint64_t row = n_dims ? t.ggml_dims[0] : 1;
    if (row % t.type->block_size != 0)
      return tensor_error(ErrorCode::invalid_structure, t.name, "row length " + std::to_string(row) + " of " +
                                                                    t.type->name + " is not a multiple of its block size " +
                                                                    std::to_string(t.type->block_size));
    auto bytes = checked_mul(t.n_elements / t.type->block_size, t.type->type_size);
    if (!bytes) return tensor_error(ErrorCode::shape_overflow, t.name, "byte size of dims " + dims_text(t.ggml_dims) + " overflows");
    t.n_bytes = *bytes;
    file->tensors.push_back(std::move(t));
  }
  return Status::Ok();
}

Status check_tensor_placement(File* file, uint64_t file_size, const GgufOptions& options) {
  const uint64_t data_size = file_size > file->data_start ? file_size - file->data_start : 0;
  std::vector<const TensorInfo*> order;
  order.reserve(file->tensors.size());
  for (const auto& t : file->tensors) {
    if (t.offset % file->alignment != 0)
      return tensor_error(ErrorCode::misaligned_offset, t.name, "offset " + std::to_string(t.offset) +
                                                                    " is not a multiple of the alignment " +
                                                                    std::to_string(file->alignment));
    auto end = checked_add(t.offset, t.n_bytes);
    if (!end || *end > data_size)
      return tensor_error(ErrorCode::offset_out_of_range, t.name, "bytes [" + std::to_string(t.offset) + ", +" +
                                                                      std::to_string(t.n_bytes) + ") lie past the " +
                                                                      std::to_string(data_size) + "-byte data section");
    if (t.n_bytes) order.push_back(&t);
  }
  if (options.allow_overlapping_tensors) return Status::Ok();
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
  for (size_t i = 1; i < order.size(); ++i)
    if (order[i]->offset < order[i - 1]->offset + order[i - 1]->n_bytes)
      return tensor_error(ErrorCode::invalid_structure, order[i]->name,
                          "bytes at offset " + std::to_string(order[i]->offset) + " overlap tensor " +
                              quoted(order[i - 1]->name));
  return Status::Ok();
}

}  // namespace zt::gguf
