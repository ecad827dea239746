#include "convert/path_open.h"

#include <vector>

#include "remote/http_byte_source.h"
#include "ztensor/mapped_file.h"

namespace zt {

Result<std::unique_ptr<Reader>> open_zt_path(const std::string& path, ReadOptions options) {
  if (!is_http_url(path)) return Reader::open(path, options);
  ZT_ASSIGN_OR_RETURN(auto source, open_http(path));
  return Reader::open(std::move(source), options);
}

Result<std::unique_ptr<SafetensorsFile>> open_safetensors_path(const std::string& path) {
  if (!is_http_url(path)) return SafetensorsFile::open(path);
  ZT_ASSIGN_OR_RETURN(auto source, open_http(path));
  return SafetensorsFile::open(std::move(source));
}

Result<WholeFile> read_whole_path(const std::string& path, uint64_t cap) {
  if (!is_http_url(path)) {
    ZT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(path));
    auto bytes = mapped->bytes();
    return WholeFile{bytes, std::move(mapped)};
  }
  ZT_ASSIGN_OR_RETURN(auto source, open_http(path));
  if (source->size() > cap)
    return Status(ErrorCode::limit_exceeded, "'" + source->name() + "' is " + std::to_string(source->size()) +
                                                 " bytes, over the cap of " + std::to_string(cap));
  auto owned = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(source->size()));
  ZT_RETURN_IF_ERROR(source->read_at(0, *owned));
  std::span<const uint8_t> view(owned->data(), owned->size());
  return WholeFile{view, std::move(owned)};
}

}  // namespace zt
