// Opening one file of a source by path or by http(s) URL: the sharded
// sources (a safetensors index, a .zt index) name their shards beside the
// index, so a remote index has remote shards, read by range like any URL.
#pragma once

#include <memory>
#include <string>

#include "convert/safetensors_reader.h"
#include "ztensor/reader.h"
#include "ztensor/status.h"

namespace zt {

// An http(s) URL, or a URL of another scheme while a ScopedUrlOpener is
// active on this thread.
bool is_url_path(const std::string& path);
// A positional-read source for such a URL. Errors: the opener's, open_remote's.
Result<std::shared_ptr<const ByteSource>> open_url(const std::string& url);

// A .zt file: mapped when local, read by range when a URL.
Result<std::unique_ptr<Reader>> open_zt_path(const std::string& path, ReadOptions options);
// A safetensors file: mapped when local (`copy_on_read`: see
// SafetensorsFile::open), read by range when a URL.
Result<std::unique_ptr<SafetensorsFile>> open_safetensors_path(const std::string& path, bool copy_on_read = false);
// A small whole file (an index), refused with limit_exceeded above `cap`
// bytes before anything is read. `owner` keeps `bytes` alive.
struct WholeFile {
  std::span<const uint8_t> bytes;
  std::shared_ptr<const void> owner;
};
Result<WholeFile> read_whole_path(const std::string& path, uint64_t cap);

}  // namespace zt
