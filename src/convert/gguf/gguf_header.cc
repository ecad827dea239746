// GGUF file parse: fixed header, then key/values, tensor infos, data section.
#include "common/checked_math.h"
#include "convert/gguf/gguf_file.h"
#include "convert/gguf/gguf_limits.h"

namespace zt::gguf {

Result<File> parse_file(std::span<const uint8_t> bytes, const GgufOptions& options) {
  bool needs_more = false;
  return parse_file(bytes, bytes.size(), options, &needs_more);
}

namespace {

Result<File> parse_with(Cursor& cur, uint64_t file_size, const GgufOptions& options) {
  uint32_t magic = 0, version = 0;
  if (!cur.read(&magic) || magic != kMagic)
    return Status(ErrorCode::bad_magic, "not a GGUF file: the first 4 bytes are not \"GGUF\"");
  if (!cur.read(&version))
    return Status(ErrorCode::malformed_manifest, "gguf header is truncated before the version");
  if (version < kMinVersion || version > kMaxVersion)
    return Status(ErrorCode::unsupported, "gguf version " + std::to_string(version) + " is not supported (only " +
                                              std::to_string(kMinVersion) + " and " + std::to_string(kMaxVersion) + ")");
  uint64_t tensor_count = 0, kv_count = 0;
  if (!cur.read(&tensor_count) || !cur.read(&kv_count))
    return Status(ErrorCode::malformed_manifest, "gguf header is truncated before the tensor and key/value counts");
  File file;
  file.version = version;
  file.alignment = kDefaultAlignment;
  ZT_RETURN_IF_ERROR(read_kvs(cur, kv_count, &file));
  ZT_RETURN_IF_ERROR(read_tensor_infos(cur, tensor_count, &file));
  auto start = checked_add(cur.pos(), file.alignment - 1);
  if (!start) return Status(ErrorCode::offset_out_of_range, "gguf data section start overflows");
  file.data_start = *start / file.alignment * file.alignment;
  ZT_RETURN_IF_ERROR(check_tensor_placement(&file, file_size, options));
  return file;
}

}  // namespace

Result<File> parse_file(std::span<const uint8_t> prefix, uint64_t file_size, const GgufOptions& options,
                        bool* needs_more) {
  Cursor cur(prefix, file_size);
  auto r = parse_with(cur, file_size, options);
  *needs_more = !r.ok() && cur.ran_out();
  return r;
}

}  // namespace zt::gguf
