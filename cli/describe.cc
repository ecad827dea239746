#include "describe.h"

#include <sys/stat.h>


namespace zt::cli {

Result<OpenedFile> open_any(const std::string& path) {
  OpenedFile f;
  ZT_ASSIGN_OR_RETURN(f.format, detect_format(path));
  ZT_ASSIGN_OR_RETURN(f.source, open_source(path));
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) f.file_size = static_cast<uint64_t>(st.st_size);
  if (const auto* reader = dynamic_cast<const Reader*>(f.source.get()); reader && is_remote_url(path))
    f.file_size = reader->file_size();
  if (f.format == FileFormat::safetensors_index || f.format == FileFormat::zt_index) {
    f.shards = f.source->shard_paths();
    f.file_size = 0;
    for (const auto& shard : f.shards)
      if (::stat(shard.c_str(), &st) == 0) f.file_size += static_cast<uint64_t>(st.st_size);
  }
  return f;
}

}  // namespace zt::cli
