// The front ends' file facades (ztensor/files.h, ztensor/buffers.h) over
// MappedFile, AtomicFile and the page advice.
#include "ztensor/files.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "common/atomic_file.h"
#include "common/mapped_file.h"
#include "common/page_advice.h"
#include "ztensor/buffers.h"

namespace zt {

Result<FileBytes> map_file(const std::string& path) {
  ZT_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file, MappedFile::open(path));
  const std::span<const uint8_t> bytes = file->bytes();
  return FileBytes{bytes, std::move(file)};
}

Status write_file_atomically(const std::string& path, std::span<const uint8_t> bytes) {
  ZT_ASSIGN_OR_RETURN(auto file, AtomicFile::create(path));
  Status s = file->write(bytes);
  if (s.ok()) s = file->commit();
  if (!s.ok()) file->abort();  // the destination is left untouched
  return s;
}

void remove_own_temporaries(const std::string& path) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  const fs::path dest(path);
  const fs::path dir = dest.has_parent_path() ? dest.parent_path() : fs::path(".");
  // AtomicFile::temporary_name: "<dest>.tmp-<pid>-<host>-<random>".
  const std::string prefix = dest.filename().string() + AtomicFile::kTempMarker + std::to_string(::getpid()) + "-";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) == 0) fs::remove(it->path(), ec);
  }
}

void prepare_output_buffer(void* data, size_t size) {
  if (size >= kPrefaultMinBytes) prefault_pages(data, size);
}

}  // namespace zt
