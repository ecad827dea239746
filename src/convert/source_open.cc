// The one way to open a source: resolve the bytes once (a local file mapped;
// an http(s) or s3 URL natively; other schemes through the ScopedUrlOpener
// hook), sniff once, and open once through the format's registry row.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include "common/mapped_file.h"
#include "convert/format_registry.h"
#include "convert/path_open.h"
#include "convert/safetensors_index.h"
#include "convert/safetensors_source.h"
#include "convert/shard_index.h"
#include "remote/url_text.h"
#include "ztensor/convert.h"

namespace zt {
namespace {

// A sniffed format, else the extension's; an index is known by what its
// shards are, whatever it is called (`index_bytes`: the index when the
// caller has it mapped, else it is read from `path`).
FileFormat format_of(std::optional<FileFormat> sniffed, const std::string& path,
                     std::optional<std::span<const uint8_t>> index_bytes = std::nullopt) {
  if (sniffed) return *sniffed;
  FileFormat by_name = format_from_extension(path);
  if (by_name == FileFormat::safetensors_index || by_name == FileFormat::zt_index) {
    std::optional<bool> zt_shards =
        index_bytes ? shard_index_names_zt(*index_bytes, path) : shard_index_names_zt(path);
    if (zt_shards) return *zt_shards ? FileFormat::zt_index : FileFormat::safetensors_index;
  }
  return by_name;
}

// A URL's format and, when finding it took a request, its opened bytes (so
// the URL is opened once).
struct UrlFormat {
  FileFormat format = FileFormat::unknown;
  std::shared_ptr<const ByteSource> bytes;
};

// A URL's extension (of its path, without query and fragment) decides when
// it names a format (no request); otherwise its first bytes are fetched and
// sniffed like a file's.
Result<UrlFormat> url_format(const std::string& url) {
  const std::string path = url.substr(0, url.find_first_of("?#"));
  if (FileFormat by_name = format_from_extension(path); by_name != FileFormat::unknown) return UrlFormat{by_name, {}};
  ZT_ASSIGN_OR_RETURN(auto source, open_url(url));
  uint8_t head[kSniffBytes] = {};
  const size_t n = static_cast<size_t>(std::min<uint64_t>(source->size(), kSniffBytes));
  ZT_RETURN_IF_ERROR(source->read_at(0, {head, n}));
  const FileFormat sniffed = sniff_format({head, n}, source->size(), path).value_or(FileFormat::unknown);
  return UrlFormat{sniffed, std::move(source)};
}

// A local file's format from its first bytes, read without mapping: a FIFO
// must not block the open, and a folder is known by its name.
Result<FileFormat> local_file_format(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Status::from_errno(ErrorCode::io_error, "cannot open '" + path + "'", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
    ::close(fd);
    return Status(ErrorCode::io_error, "'" + path + "' is not a regular file");
  }
  uint8_t head[kSniffBytes] = {};
  size_t n = 0;
  while (n < sizeof head) {
    ssize_t r = ::read(fd, head + n, sizeof head - n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    n += static_cast<size_t>(r);
  }
  off_t size = ::lseek(fd, 0, SEEK_END);
  ::close(fd);
  return format_of(sniff_format({head, n}, size < 0 ? 0 : static_cast<uint64_t>(size), path), path);
}

Status unsupported_remote(const std::string& name, FileFormat format) {
  std::string why = "'";  // appended piecewise: GCC 12 warns (falsely) on "'" + string&&
  why += name;
  why += "': reading ";
  why += file_format_name(format);
  why += " from a URL is not supported yet (.zt, safetensors and their sharded indexes, GGUF and .npy are)";
  return Status(ErrorCode::unsupported, std::move(why));
}

// A URL: a sharded index opens its shards by URL beside it; one file is read
// through the ByteSource its sniffing opened, or opened now.
Result<DetectedSource> open_url_source(const std::string& url, bool verify_on_read) {
  ZT_ASSIGN_OR_RETURN(UrlFormat found, url_format(url));
  const FormatRow* row = find_format_row(found.format);
  DetectedSource out{found.format, nullptr};
  if (row && row->open_named) {
    ZT_ASSIGN_OR_RETURN(out.source, row->open_named(url, verify_on_read));
    return out;
  }
  if (!row || !row->open_bytes) return unsupported_remote(redact_url(url), found.format);
  if (!found.bytes) {
    ZT_ASSIGN_OR_RETURN(found.bytes, open_url(url));
  }
  ZT_ASSIGN_OR_RETURN(out.source, row->open_bytes(std::move(found.bytes), verify_on_read));
  return out;
}

// A local file is mapped once, sniffed from the mapping and opened from it
// (an index too: its kind and its weight_map are read from the mapping).
// verify_on_read (every conversion) also makes the foreign formats' reads
// pread copies, so a file truncated meanwhile is an io_error (file_bytes.h).
Result<DetectedSource> open_file_source(const std::string& path, bool verify_on_read) {
  ZT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(path));
  const auto head = mapped->bytes().first(std::min<size_t>(mapped->size(), kSniffBytes));
  const FileFormat format = format_of(sniff_format(head, mapped->size(), path), path, mapped->bytes());
  if (format == FileFormat::unknown)
    return Status(ErrorCode::unsupported, "cannot tell the format of '" + path +
                                              "' (not .zt, safetensors, GGUF, .npy/.npz, a PyTorch zip or .onnx)");
  const FormatRow* row = find_format_row(format);
  if (!row)
    return Status(ErrorCode::unsupported, "'" + path + "' is " + file_format_name(format) +
                                              ", which this build cannot read");
  DetectedSource out{format, nullptr};
  ZT_ASSIGN_OR_RETURN(out.source, row->open_mapped(std::move(mapped), path, verify_on_read));
  return out;
}

}  // namespace

bool is_remote_url(const std::string& path) { return is_url_path(path); }

Result<uint64_t> remote_file_size(const std::string& url) {
  ZT_ASSIGN_OR_RETURN(auto source, open_url(url));
  return source->size();
}

Result<FileFormat> detect_format(const std::string& path) {
  if (!is_url_path(path)) return local_file_format(path);
  ZT_ASSIGN_OR_RETURN(UrlFormat found, url_format(path));
  return found.format;
}

Result<DetectedSource> open_detected_source(const std::string& path, bool verify_on_read) {
  return is_url_path(path) ? open_url_source(path, verify_on_read) : open_file_source(path, verify_on_read);
}

Result<std::unique_ptr<TensorSource>> open_source(const std::string& path, bool verify_on_read) {
  ZT_ASSIGN_OR_RETURN(DetectedSource opened, open_detected_source(path, verify_on_read));
  return std::move(opened.source);
}

Result<std::unique_ptr<TensorSource>> open_source(std::shared_ptr<const ByteSource> source, FileFormat format,
                                                  bool verify_on_read) {
  if (!source) return Status(ErrorCode::invalid_argument, "open_source: null ByteSource");
  const FormatRow* row = find_format_row(format);
  if (!row || !row->open_bytes) return unsupported_remote(source->name(), format);
  return row->open_bytes(std::move(source), verify_on_read);
}

Result<std::unique_ptr<TensorSource>> open_safetensors(const std::string& path) {
  ZT_ASSIGN_OR_RETURN(FileFormat format, detect_format(path));
  ZT_ASSIGN_OR_RETURN(SafetensorsSource src, format == FileFormat::safetensors_index
                                                 ? open_safetensors_index(path)
                                                 : open_safetensors_file(path));
  return std::unique_ptr<TensorSource>(new SafetensorsTensorSource(std::move(src)));
}

Result<std::unique_ptr<TensorSource>> open_safetensors_memory(std::span<const uint8_t> bytes,
                                                              std::shared_ptr<const void> owner) {
  ZT_ASSIGN_OR_RETURN(auto file, SafetensorsFile::parse(bytes, std::move(owner)));
  SafetensorsSource src;
  src.has_metadata = file->has_metadata();
  src.metadata = file->metadata();
  src.paths.push_back("<memory>");
  src.shards.push_back(std::move(file));
  return std::unique_ptr<TensorSource>(new SafetensorsTensorSource(std::move(src)));
}

}  // namespace zt
