#include "ztensor/convert.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "ztensor/test_pause.h"
#include "convert/mapped_open.h"
#include "convert/path_open.h"
#include "convert/safetensors_index.h"
#include "convert/safetensors_reader.h"
#include "convert/safetensors_source.h"
#include "convert/safetensors_writer.h"
#include "convert/shard_index.h"
#include "convert/zt_index_source.h"
#include "remote/url_text.h"
#include "common/mapped_file.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"
#include "ztensor/sharded_writer.h"
#include "ztensor/gguf.h"
#include "convert/numpy/npz_writer.h"
#include "ztensor/numpy_format.h"
#include "ztensor/pytorch_format.h"
#include "ztensor/onnx_format.h"

namespace zt {
namespace {

// Bytes read to sniff a format: magics, the safetensors prefix, and the
// first zip entry's name (zip local header is 30 bytes + name).
constexpr size_t kSniffBytes = 30 + 256;

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool name_ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A zip is an .npz when its first member is an array, a PyTorch archive when
// it is the pickle (torch.save) or a record of one (torch.jit.save writes
// data/ first, then code/ and constants.pkl; the pytorch reader names and
// refuses those); otherwise the extension decides.
FileFormat zip_kind(const uint8_t* head, size_t n, const std::string& path) {
  if (n >= 30) {
    size_t len = head[26] | (head[27] << 8);
    if (30 + len <= n) {
      std::string_view name(reinterpret_cast<const char*>(head + 30), len);
      if (name_ends_with(name, ".npy")) return FileFormat::npz;
      if (name_ends_with(name, "data.pkl") || name_ends_with(name, "constants.pkl")) return FileFormat::pytorch;
      size_t slash = name.find('/');
      if (slash != std::string_view::npos) {
        std::string_view rest = name.substr(slash + 1);
        if (rest.starts_with("data/") || rest.starts_with("code/")) return FileFormat::pytorch;
      }
    }
  }
  FileFormat ext = format_from_extension(path);
  return ext == FileFormat::npz || ext == FileFormat::pytorch ? ext : FileFormat::npz;
}

// ONNX has no magic, but every exporter writes ModelProto.ir_version (field
// 1, a small varint) first, followed by another ModelProto field: a tag
// pair that neither of the other headerless formats (safetensors, legacy
// pickles) can start with.
bool looks_like_onnx(const uint8_t* head, size_t n) {
  constexpr uint8_t kIrVersionTag = 0x08;  // field 1, varint
  constexpr uint8_t kMaxIrVersion = 64;    // 13 in 2025; one byte leaves room
  if (n < 4 || head[0] != kIrVersionTag || head[1] == 0 || head[1] >= kMaxIrVersion) return false;
  uint8_t tag = head[2];
  uint8_t field = tag >> 3, wire = tag & 7;
  switch (field) {
    case 2: case 3: case 4: case 6: case 7: case 8: case 14: case 20: case 25:  // strings and messages
      return wire == 2;
    case 5:  // model_version
      return wire == 0;
    default:
      return false;
  }
}

Status add_warning_for_unknown_types(const Object& o, ConvertStats& stats) {
  for (const auto& [role, c] : o.components)
    if (c.type == LogicalType::none && !c.type_name.empty() && c.type_name != dtype_name(c.dtype))
      stats.warnings.push_back("object '" + o.name + "' component '" + role + "': logical type '" + c.type_name +
                               "' is unknown to this version and was written as plain " + dtype_name(c.dtype));
  return Status::Ok();
}

// A sniffed format, else the extension's (an index by what its shards are).
FileFormat format_of(std::optional<FileFormat> sniffed, const std::string& path);

// The format the first bytes of a file of `size` bytes show, if any.
std::optional<FileFormat> sniff_format(const uint8_t* head, size_t n, uint64_t size, const std::string& path) {
  if (n >= 4 && std::memcmp(head, "ZTEN", 4) == 0) return FileFormat::zt;  // ZTEN1000, legacy ZTEN0001
  if (n >= 4 && std::memcmp(head, "GGUF", 4) == 0) return FileFormat::gguf;
  if (n >= 6 && std::memcmp(head, "\x93NUMPY", 6) == 0) return FileFormat::npy;
  if (n >= 4 && (std::memcmp(head, "PK\x03\x04", 4) == 0 || std::memcmp(head, "PK\x05\x06", 4) == 0))
    return zip_kind(head, n, path);
  if (n >= 9 && head[8] == '{') {
    uint64_t header = 0;
    for (int i = 7; i >= 0; --i) header = (header << 8) | head[i];
    if (header <= kMaxSafetensorsHeaderBytes && size >= 8 && header <= size - 8) return FileFormat::safetensors;
  }
  if (looks_like_onnx(head, n)) return FileFormat::onnx;
  return std::nullopt;
}

// A URL's path, without query and fragment, for its extension.
std::string url_path(const std::string& url) { return url.substr(0, url.find_first_of("?#")); }

// A URL's extension decides when it names a format (no request); otherwise
// its first bytes are fetched and sniffed like a file's.
Result<FileFormat> detect_url_format(const std::string& url) {
  const std::string path = url_path(url);
  if (FileFormat by_name = format_from_extension(path); by_name != FileFormat::unknown) return by_name;
  ZT_ASSIGN_OR_RETURN(auto source, open_url(url));
  uint8_t head[kSniffBytes] = {};
  const size_t n = static_cast<size_t>(std::min<uint64_t>(source->size(), kSniffBytes));
  ZT_RETURN_IF_ERROR(source->read_at(0, {head, n}));
  return sniff_format(head, n, source->size(), path).value_or(FileFormat::unknown);
}

Status unsupported_remote(const std::string& name, FileFormat format) {
  std::string why = "'";  // appended piecewise: GCC 12 warns (falsely) on "'" + string&&
  why += name;
  why += "': reading ";
  why += file_format_name(format);
  why += " from a URL is not supported yet (.zt, safetensors and their sharded indexes, GGUF and .npy are)";
  return Status(ErrorCode::unsupported, std::move(why));
}

// A URL: the sharded indexes open their shards by URL; one file is read
// through an HTTP ByteSource.
Result<std::unique_ptr<TensorSource>> open_remote(const std::string& url, FileFormat format, bool verify_on_read) {
  ReadOptions ro;
  ro.verify_on_read = verify_on_read;
  if (format == FileFormat::zt_index) {
    ZT_ASSIGN_OR_RETURN(auto set, ZtIndexSource::open(url, ro));
    return std::unique_ptr<TensorSource>(std::move(set));
  }
  if (format == FileFormat::safetensors_index) return open_safetensors(url);
  if (format != FileFormat::zt && format != FileFormat::safetensors && format != FileFormat::gguf &&
      format != FileFormat::npy)
    return unsupported_remote(redact_url(url), format);
  ZT_ASSIGN_OR_RETURN(auto bytes, open_url(url));
  return open_source(std::move(bytes), format, verify_on_read);
}

}  // namespace

const char* file_format_name(FileFormat f) {
  switch (f) {
    case FileFormat::zt: return "zt";
    case FileFormat::safetensors: return "safetensors";
    case FileFormat::safetensors_index: return "safetensors_index";
    case FileFormat::gguf: return "gguf";
    case FileFormat::npy: return "npy";
    case FileFormat::npz: return "npz";
    case FileFormat::pytorch: return "pytorch";
    case FileFormat::onnx: return "onnx";
    case FileFormat::zt_index: return "zt_index";
    case FileFormat::unknown: break;
  }
  return "unknown";
}

FileFormat format_from_extension(const std::string& path) {
  if (ends_with(path, ".zt")) return FileFormat::zt;
  if (ends_with(path, ".safetensors")) return FileFormat::safetensors;
  if (ends_with(path, ".zt.index.json")) return FileFormat::zt_index;
  if (ends_with(path, ".json")) return FileFormat::safetensors_index;
  if (ends_with(path, ".gguf")) return FileFormat::gguf;
  if (ends_with(path, ".npy")) return FileFormat::npy;
  if (ends_with(path, ".npz")) return FileFormat::npz;
  for (const char* e : {".pt", ".pth", ".bin", ".ckpt"})
    if (ends_with(path, e)) return FileFormat::pytorch;
  if (ends_with(path, ".onnx")) return FileFormat::onnx;
  return FileFormat::unknown;
}

bool format_supported(FileFormat f) {
  switch (f) {
    case FileFormat::zt:
    case FileFormat::safetensors:
    case FileFormat::safetensors_index:
    case FileFormat::zt_index: return true;
    case FileFormat::gguf: return true;
    case FileFormat::npy:
    case FileFormat::npz: return true;
    case FileFormat::pytorch: return true;
    case FileFormat::onnx: return true;
    default: return false;
  }
}

bool is_remote_url(const std::string& path) { return is_url_path(path); }

Result<uint64_t> remote_file_size(const std::string& url) {
  ZT_ASSIGN_OR_RETURN(auto source, open_url(url));
  return source->size();
}

Result<FileFormat> detect_format(const std::string& path) {
  if (is_url_path(path)) return detect_url_format(path);
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // a FIFO must not block the open
  if (fd < 0) return Status::from_errno(ErrorCode::io_error, "cannot open '" + path + "'", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {  // a folder: by its name
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
  return format_of(sniff_format(head, n, size < 0 ? 0 : static_cast<uint64_t>(size), path), path);
}

namespace {

FileFormat format_of(std::optional<FileFormat> sniffed, const std::string& path) {
  if (sniffed) return *sniffed;
  FileFormat by_name = format_from_extension(path);
  // An index's shards decide what it indexes, whatever the index is called.
  if (by_name == FileFormat::safetensors_index || by_name == FileFormat::zt_index) {
    std::optional<bool> zt_shards = shard_index_names_zt(path);
    if (zt_shards) return *zt_shards ? FileFormat::zt_index : FileFormat::safetensors_index;
  }
  return by_name;
}

}  // namespace

namespace {

Result<std::unique_ptr<TensorSource>> open_safetensors_as(const std::string& path, FileFormat format,
                                                          bool copy_on_read) {
  ZT_ASSIGN_OR_RETURN(SafetensorsSource src, format == FileFormat::safetensors_index
                                                 ? open_safetensors_index(path, copy_on_read)
                                                 : open_safetensors_file(path, copy_on_read));
  return std::unique_ptr<TensorSource>(new SafetensorsTensorSource(std::move(src)));
}

}  // namespace

Result<std::unique_ptr<TensorSource>> open_safetensors(const std::string& path) {
  ZT_ASSIGN_OR_RETURN(FileFormat format, detect_format(path));
  return open_safetensors_as(path, format, /*copy_on_read=*/false);
}

Result<std::unique_ptr<TensorSource>> open_source(std::shared_ptr<const ByteSource> source, FileFormat format,
                                                  bool verify_on_read) {
  if (!source) return Status(ErrorCode::invalid_argument, "open_source: null ByteSource");
  switch (format) {
    case FileFormat::zt: {
      ReadOptions ro;
      ro.verify_on_read = verify_on_read;
      ZT_ASSIGN_OR_RETURN(auto reader, Reader::open(std::move(source), ro));
      return std::unique_ptr<TensorSource>(std::move(reader));
    }
    case FileFormat::safetensors: {
      ZT_ASSIGN_OR_RETURN(SafetensorsSource src, open_safetensors_file(std::move(source)));
      return std::unique_ptr<TensorSource>(new SafetensorsTensorSource(std::move(src)));
    }
    case FileFormat::gguf: return open_gguf(std::move(source));
    case FileFormat::npy: return open_npy(std::move(source));
    default: return unsupported_remote(source->name(), format);
  }
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

Result<std::unique_ptr<TensorSource>> open_source(const std::string& path, bool verify_on_read) {
  if (is_url_path(path)) {
    ZT_ASSIGN_OR_RETURN(FileFormat format, detect_format(path));
    return open_remote(path, format, verify_on_read);
  }
  // The file is opened once: mapped, sniffed from the mapping, and a .zt
  // read in place (open + get_slice is open-bound; see docs/benchmarks.md).
  // verify_on_read (every conversion) also makes the other formats' reads
  // pread copies, so a file truncated meanwhile is an io_error (file_bytes.h).
  ZT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(path));
  const auto head = mapped->bytes().first(std::min<size_t>(mapped->size(), kSniffBytes));
  const FileFormat format = format_of(sniff_format(head.data(), head.size(), mapped->size(), path), path);
  switch (format) {
    case FileFormat::zt: {
      ReadOptions ro;
      ro.verify_on_read = verify_on_read;
      ZT_ASSIGN_OR_RETURN(auto reader, Reader::open(std::move(mapped), ro));
      return std::unique_ptr<TensorSource>(std::move(reader));
    }
    case FileFormat::safetensors:
    case FileFormat::safetensors_index: return open_safetensors_as(path, format, verify_on_read);
    case FileFormat::zt_index: {
      ReadOptions ro;
      ro.verify_on_read = verify_on_read;
      ZT_ASSIGN_OR_RETURN(auto set, ZtIndexSource::open(path, ro));
      return std::unique_ptr<TensorSource>(std::move(set));
    }
    case FileFormat::gguf: return open_gguf_mapped(std::move(mapped), verify_on_read);
    case FileFormat::npy: return open_npy_mapped(std::move(mapped), verify_on_read);
    case FileFormat::npz: return open_npz_mapped(std::move(mapped), verify_on_read);
    case FileFormat::pytorch: return open_pytorch_mapped(std::move(mapped), verify_on_read);
    case FileFormat::onnx: return open_onnx_mapped(std::move(mapped), verify_on_read);
    case FileFormat::unknown:
      return Status(ErrorCode::unsupported, "cannot tell the format of '" + path +
                                                "' (not .zt, safetensors, GGUF, .npy/.npz, a PyTorch zip or .onnx)");
    default: break;
  }
  return Status(ErrorCode::unsupported, "'" + path + "' is " + file_format_name(format) +
                                            ", which this build cannot read");
}

namespace {

// A conversion that finds no tensor fails with a message instead of writing
// an empty file: an empty output hides a reader that saw nothing.
Status require_objects(const TensorSource& source) {
  if (!source.manifest().objects.empty()) return {};
  return {ErrorCode::not_found, std::string("convert: the ") + source.format_name() +
                                    " file holds no tensor zTensor can read; nothing to convert, so no output is written"};
}

}  // namespace

uint64_t object_decoded_size(const Object& object) {
  uint64_t n = 0;
  for (const auto& [role, c] : object.components) n += c.uncompressed_length.value_or(c.length);
  return n;
}

Result<ConvertStats> convert_source_to_zt(const TensorSource& source, const std::string& out,
                                          const ConvertOptions& options) {
  ZT_RETURN_IF_ERROR(require_objects(source));
  test_pause("convert:source-opened");
  const Manifest& m = source.manifest();
  std::vector<size_t> selected = options.objects;
  if (selected.empty()) {
    selected.resize(m.objects.size());
    for (size_t i = 0; i < selected.size(); ++i) selected[i] = i;
  }
  uint64_t total = 0;
  for (size_t i = 0; i < selected.size(); ++i) {
    if (selected[i] >= m.objects.size() || (i > 0 && selected[i] <= selected[i - 1]))
      return Status(ErrorCode::invalid_argument, "convert: object indices must ascend below " +
                                                     std::to_string(m.objects.size()) + ", the source's count");
    total += object_decoded_size(m.objects[selected[i]]);
  }
  ZT_ASSIGN_OR_RETURN(auto writer, ShardedWriter::create(out, m.attributes, options.max_shard_size, options.durable));
  ConvertStats stats;
  for (size_t index : selected) {
    const Object& o = m.objects[index];
    ZT_RETURN_IF_ERROR(add_warning_for_unknown_types(o, stats));
    ObjectSpec spec;
    spec.name = o.name;
    spec.shape = o.shape;
    spec.format = o.format;
    spec.attributes = o.attributes;
    std::vector<ComponentBytes> keep;  // decoded bytes live until add() returns
    std::vector<EncodedComponent> encoded;
    if (options.encoded) {
      ZT_ASSIGN_OR_RETURN(encoded, options.encoded(index, o));
      if (encoded.size() != o.components.size())
        return Status(ErrorCode::invalid_argument, "object '" + o.name + "': " + std::to_string(encoded.size()) +
                                                       " encoded components given for " +
                                                       std::to_string(o.components.size()));
    }
    keep.reserve(o.components.size());
    for (size_t i = 0; i < o.components.size(); ++i) {
      const auto& [role, c] = o.components[i];
      ComponentSpec cs;
      cs.role = role;
      cs.dtype = c.dtype;
      cs.type = c.type;
      cs.encoding = options.encoding;
      cs.level = options.level;
      cs.effort = options.effort;
      cs.digest = options.digest;
      if (options.encoded) {
        cs.data = encoded[i].stored;
        cs.pre_encoded = true;
        cs.decoded_length = encoded[i].decoded_length;
      } else {
        ZT_ASSIGN_OR_RETURN(ComponentBytes data, source.read_component(o, role));
        cs.data = data.bytes;
        keep.push_back(std::move(data));
      }
      stats.bytes += cs.decoded_size();
      spec.components.push_back(std::move(cs));
    }
    ZT_RETURN_IF_ERROR(writer->add(spec));
    ++stats.objects;
    if (options.progress) options.progress(stats.bytes, total);
  }
  ZT_ASSIGN_OR_RETURN(stats.files, writer->finish());
  return stats;
}

Result<ConvertStats> convert_source_to_safetensors(const TensorSource& source, const std::string& out,
                                                   const ProgressFn& progress) {
  ZT_RETURN_IF_ERROR(require_objects(source));
  return write_safetensors(source, out, progress);
}

Result<ConvertStats> convert_source_to_npz(const TensorSource& source, const std::string& out,
                                           const ProgressFn& progress) {
  ZT_RETURN_IF_ERROR(require_objects(source));
  return npz::write_npz(source, out, progress);
}

Result<ConvertStats> convert_to_zt(const std::string& in, const std::string& out, const ConvertOptions& options) {
  ZT_ASSIGN_OR_RETURN(auto source, open_source(in, /*verify_on_read=*/true));
  return convert_source_to_zt(*source, out, options);
}

Result<ConvertStats> convert_to_safetensors(const std::string& in, const std::string& out,
                                            const ConvertOptions& options) {
  ZT_ASSIGN_OR_RETURN(auto source, open_source(in, /*verify_on_read=*/true));
  return convert_source_to_safetensors(*source, out, options.progress);
}

Result<ConvertStats> convert_to_npz(const std::string& in, const std::string& out, const ConvertOptions& options) {
  ZT_ASSIGN_OR_RETURN(auto source, open_source(in, /*verify_on_read=*/true));
  return convert_source_to_npz(*source, out, options.progress);
}

}  // namespace zt
