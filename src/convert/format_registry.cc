#include "convert/format_registry.h"

#include <array>

#include "convert/format_sniff.h"
#include "convert/mapped_open.h"
#include "convert/safetensors_index.h"
#include "convert/safetensors_source.h"
#include "convert/shard_index.h"
#include "convert/zt_index_source.h"
#include "ztensor/gguf.h"
#include "ztensor/numpy_format.h"
#include "ztensor/reader.h"

namespace zt {
namespace {

ReadOptions read_options(bool verify_on_read) {
  ReadOptions ro;
  ro.verify_on_read = verify_on_read;
  return ro;
}

template <typename T>
OpenedSource as_source(Result<std::unique_ptr<T>> opened) {
  if (!opened.ok()) return opened.status();
  return std::unique_ptr<TensorSource>(std::move(opened).value());
}

OpenedSource as_source(Result<SafetensorsSource> opened) {
  if (!opened.ok()) return opened.status();
  return std::unique_ptr<TensorSource>(new SafetensorsTensorSource(std::move(opened).value()));
}

// .zt is read in place from the mapping (open + get_slice is open-bound;
// see docs/benchmarks.md).
OpenedSource zt_mapped(std::shared_ptr<const MappedFile> file, const std::string&, bool verify_on_read) {
  return as_source(Reader::open(std::move(file), read_options(verify_on_read)));
}
OpenedSource zt_bytes(std::shared_ptr<const ByteSource> bytes, bool verify_on_read) {
  return as_source(Reader::open(std::move(bytes), read_options(verify_on_read)));
}
OpenedSource zt_index_named(const std::string& path, bool verify_on_read) {
  return as_source(ZtIndexSource::open(path, read_options(verify_on_read)));
}
// A local index is parsed from the mapping open_source sniffed.
OpenedSource zt_index_mapped(std::shared_ptr<const MappedFile> file, const std::string& path, bool verify_on_read) {
  ZT_ASSIGN_OR_RETURN(ShardIndex index, parse_shard_index(file->bytes(), path, kZtIndexKind, kZtIndexNoun));
  return as_source(ZtIndexSource::open(index, read_options(verify_on_read)));
}

OpenedSource safetensors_mapped(std::shared_ptr<const MappedFile> file, const std::string&, bool verify_on_read) {
  return as_source(open_safetensors_file(std::move(file), verify_on_read));
}
OpenedSource safetensors_bytes(std::shared_ptr<const ByteSource> bytes, bool) {
  return as_source(open_safetensors_file(std::move(bytes)));
}
OpenedSource safetensors_index_named(const std::string& path, bool verify_on_read) {
  return as_source(open_safetensors_index(path, verify_on_read));
}
OpenedSource safetensors_index_mapped(std::shared_ptr<const MappedFile> file, const std::string& path,
                                      bool verify_on_read) {
  ZT_ASSIGN_OR_RETURN(ShardIndex index,
                      parse_shard_index(file->bytes(), path, kSafetensorsIndexKind, kSafetensorsIndexNoun));
  return as_source(open_safetensors_index(index, verify_on_read));
}

// The foreign formats' readers make every read a pread copy when asked to
// verify (file_bytes.h): a file truncated meanwhile is then an io_error.
OpenedSource gguf_mapped(std::shared_ptr<const MappedFile> file, const std::string&, bool verify_on_read) {
  return open_gguf_mapped(std::move(file), verify_on_read);
}
OpenedSource gguf_bytes(std::shared_ptr<const ByteSource> bytes, bool) { return open_gguf(std::move(bytes)); }
OpenedSource npy_mapped(std::shared_ptr<const MappedFile> file, const std::string&, bool verify_on_read) {
  return open_npy_mapped(std::move(file), verify_on_read);
}
OpenedSource npy_bytes(std::shared_ptr<const ByteSource> bytes, bool) { return open_npy(std::move(bytes)); }
OpenedSource npz_mapped(std::shared_ptr<const MappedFile> file, const std::string&, bool verify_on_read) {
  return open_npz_mapped(std::move(file), verify_on_read);
}
OpenedSource pytorch_mapped(std::shared_ptr<const MappedFile> file, const std::string&, bool verify_on_read) {
  return open_pytorch_mapped(std::move(file), verify_on_read);
}
OpenedSource onnx_mapped(std::shared_ptr<const MappedFile> file, const std::string&, bool verify_on_read) {
  return open_onnx_mapped(std::move(file), verify_on_read);
}

constexpr std::string_view kZtExt[] = {".zt"};
constexpr std::string_view kSafetensorsExt[] = {".safetensors"};
constexpr std::string_view kSafetensorsIndexExt[] = {".json"};
constexpr std::string_view kZtIndexExt[] = {".zt.index.json"};
constexpr std::string_view kGgufExt[] = {".gguf"};
constexpr std::string_view kNpyExt[] = {".npy"};
constexpr std::string_view kNpzExt[] = {".npz"};
constexpr std::string_view kPytorchExt[] = {".pt", ".pth", ".bin", ".ckpt"};
constexpr std::string_view kOnnxExt[] = {".onnx"};

// Sniffing order: the magics, then a zip's first member, then the two
// headerless formats (a safetensors size prefix before ONNX's first fields).
const FormatRow kRows[] = {
    {FileFormat::zt, "zt", kZtExt, sniff::zt, zt_mapped, zt_bytes, nullptr},
    {FileFormat::gguf, "gguf", kGgufExt, sniff::gguf, gguf_mapped, gguf_bytes, nullptr},
    {FileFormat::npy, "npy", kNpyExt, sniff::npy, npy_mapped, npy_bytes, nullptr},
    {FileFormat::npz, "npz", kNpzExt, sniff::npz, npz_mapped, nullptr, nullptr},
    {FileFormat::pytorch, "pytorch", kPytorchExt, sniff::pytorch, pytorch_mapped, nullptr, nullptr},
    {FileFormat::safetensors, "safetensors", kSafetensorsExt, sniff::safetensors, safetensors_mapped,
     safetensors_bytes, nullptr},
    {FileFormat::onnx, "onnx", kOnnxExt, sniff::onnx, onnx_mapped, nullptr, nullptr},
    {FileFormat::safetensors_index, "safetensors_index", kSafetensorsIndexExt, nullptr, safetensors_index_mapped,
     nullptr, safetensors_index_named},
    {FileFormat::zt_index, "zt_index", kZtIndexExt, nullptr, zt_index_mapped, nullptr, zt_index_named},
};

}  // namespace

std::span<const FormatRow> format_rows() { return kRows; }

const FormatRow* find_format_row(FileFormat format) {
  for (const FormatRow& row : kRows)
    if (row.format == format) return &row;
  return nullptr;
}

std::optional<FileFormat> sniff_format(std::span<const uint8_t> head, uint64_t size, const std::string& path) {
  for (const FormatRow& row : kRows)
    if (row.sniff && row.sniff(head, size, path)) return row.format;
  return std::nullopt;
}

const char* file_format_name(FileFormat f) {
  const FormatRow* row = find_format_row(f);
  return row ? row->name : "unknown";
}

FileFormat format_from_extension(const std::string& path) {
  FileFormat best = FileFormat::unknown;
  size_t best_length = 0;
  for (const FormatRow& row : kRows)
    for (std::string_view ext : row.extensions)
      if (ext.size() > best_length && std::string_view(path).ends_with(ext)) {
        best = row.format;
        best_length = ext.size();
      }
  return best;
}

bool format_supported(FileFormat f) { return find_format_row(f) != nullptr; }

}  // namespace zt
