#include "convert/path_open.h"

#include "ztensor/convert.h"

#include <cctype>
#include <vector>

#include "remote/url_text.h"
#include "ztensor/remote.h"
#include "common/mapped_file.h"

namespace zt {
namespace {

thread_local const ScopedUrlOpener* g_url_opener = nullptr;

// "s3://bucket/key": a scheme of letters, digits, + - . before "://".
bool has_scheme(const std::string& path) {
  const size_t colon = path.find("://");
  if (colon == std::string::npos || colon == 0) return false;
  for (size_t i = 0; i < colon; ++i) {
    const char c = path[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

}  // namespace

ScopedUrlOpener::ScopedUrlOpener(UrlOpener opener) : opener_(std::move(opener)), outer_(g_url_opener) {
  g_url_opener = this;
}

ScopedUrlOpener::~ScopedUrlOpener() { g_url_opener = outer_; }

bool is_url_path(const std::string& path) { return is_native_url(path) || (g_url_opener && has_scheme(path)); }

// http(s) is always read natively; s3:// too unless a caller's opener
// (fsspec, from Python) takes the other schemes. Native reads use the
// innermost ScopedRemoteOptions of this thread.
Result<std::shared_ptr<const ByteSource>> open_url(const std::string& url) {
  const bool http = is_native_url(url) && !is_s3_url(url);
  if (http || !g_url_opener) return open_remote(url, ScopedRemoteOptions::current());
  return g_url_opener->opener_(url);
}

Result<std::unique_ptr<Reader>> open_zt_path(const std::string& path, ReadOptions options) {
  if (!is_url_path(path)) return Reader::open(path, options);
  ZT_ASSIGN_OR_RETURN(auto source, open_url(path));
  return Reader::open(std::move(source), options);
}

Result<std::unique_ptr<SafetensorsFile>> open_safetensors_path(const std::string& path, bool copy_on_read) {
  if (!is_url_path(path)) return SafetensorsFile::open(path, copy_on_read);
  ZT_ASSIGN_OR_RETURN(auto source, open_url(path));
  return SafetensorsFile::open(std::move(source));
}

Result<WholeFile> read_whole_path(const std::string& path, uint64_t cap) {
  if (!is_url_path(path)) {
    ZT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(path));
    auto bytes = mapped->bytes();
    return WholeFile{bytes, std::move(mapped)};
  }
  ZT_ASSIGN_OR_RETURN(auto source, open_url(path));
  if (source->size() > cap)
    return Status(ErrorCode::limit_exceeded, "'" + source->name() + "' is " + std::to_string(source->size()) +
                                                 " bytes, over the cap of " + std::to_string(cap));
  auto owned = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(source->size()));
  ZT_RETURN_IF_ERROR(source->read_at(0, *owned));
  std::span<const uint8_t> view(owned->data(), owned->size());
  return WholeFile{view, std::move(owned)};
}

}  // namespace zt
