#include "describe.h"

#include "codec_job.h"


namespace zt::cli {

Result<OpenedFile> open_any(const std::string& path) {
  OpenedFile f;
  ZT_ASSIGN_OR_RETURN(f.format, detect_format(path));
  ZT_ASSIGN_OR_RETURN(f.source, open_source(path));
  f.file_size = file_size(path);  // a URL: one small request
  if (f.format == FileFormat::safetensors_index || f.format == FileFormat::zt_index) {
    f.shards = f.source->shard_paths();
    f.file_size = 0;
    for (const auto& shard : f.shards) f.file_size += file_size(shard);
  }
  return f;
}

}  // namespace zt::cli
