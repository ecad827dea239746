#include "describe.h"

#include "codec_job.h"


namespace zt::cli {

Result<OpenedFile> open_any(const std::string& path) {
  OpenedFile f;
  ZT_ASSIGN_OR_RETURN(DetectedSource opened, open_detected_source(path));
  f.format = opened.format;
  f.source = std::move(opened.source);
  f.file_size = file_size(path);  // a URL: one small request
  if (f.format == FileFormat::safetensors_index || f.format == FileFormat::zt_index) {
    f.shards = f.source->shard_paths();
    f.file_size = 0;
    for (const auto& shard : f.shards) f.file_size += file_size(shard);
  }
  return f;
}

}  // namespace zt::cli
