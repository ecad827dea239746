#include "convert/safetensors_reader.h"

#include <algorithm>
#include <cstdint>

#include "common/mapped_file.h"

namespace zt {
namespace {

struct DTypeEntry {
  const char* st_name;
  DType dtype;
  LogicalType type;
};

// safetensors' dtype names (the parser's, which knows their widths) and
// their zTensor storage + logical types.
constexpr DTypeEntry kDTypes[] = {
    {"F64", DType::f64, LogicalType::none},     {"F32", DType::f32, LogicalType::none},
    {"F16", DType::f16, LogicalType::none},     {"BF16", DType::bf16, LogicalType::none},
    {"I64", DType::i64, LogicalType::none},     {"I32", DType::i32, LogicalType::none},
    {"I16", DType::i16, LogicalType::none},     {"I8", DType::i8, LogicalType::none},
    {"U64", DType::u64, LogicalType::none},     {"U32", DType::u32, LogicalType::none},
    {"U16", DType::u16, LogicalType::none},     {"U8", DType::u8, LogicalType::none},
    {"BOOL", DType::boolean, LogicalType::none}, {"F8_E4M3", DType::u8, LogicalType::f8_e4m3fn},
    {"F8_E5M2", DType::u8, LogicalType::f8_e5m2}, {"C64", DType::f32, LogicalType::complex64},
};

const DTypeEntry* find_st_dtype(std::string_view name) {
  for (const auto& e : kDTypes)
    if (name == e.st_name) return &e;
  return nullptr;
}

}  // namespace

bool safetensors_dtype_to_zt(std::string_view st, DType* dtype, LogicalType* type) {
  const DTypeEntry* e = find_st_dtype(st);
  if (!e) return false;
  *dtype = e->dtype;
  *type = e->type;
  return true;
}

const char* zt_to_safetensors_dtype(DType dtype, LogicalType type) {
  for (const auto& e : kDTypes)
    if (e.dtype == dtype && e.type == type) return e.st_name;
  return nullptr;
}

Result<std::unique_ptr<SafetensorsFile>> SafetensorsFile::open(const std::string& path, bool copy_on_read) {
  ZT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(path));
  return open(std::move(mapped), copy_on_read);
}

Result<std::unique_ptr<SafetensorsFile>> SafetensorsFile::open(std::shared_ptr<const MappedFile> mapped,
                                                               bool copy_on_read) {
  auto bytes = mapped->bytes();
  const std::string path = mapped->path();
  FileByteAccess access(mapped, copy_on_read);
  auto r = parse(bytes, std::move(mapped));
  if (!r.ok()) return Status(r.status().code(), r.status().message() + " (in '" + path + "')");
  r.value()->access_ = std::move(access);
  return r;
}

Result<std::unique_ptr<SafetensorsFile>> SafetensorsFile::parse(std::span<const uint8_t> bytes,
                                                                std::shared_ptr<const void> owner) {
  std::unique_ptr<SafetensorsFile> f(new SafetensorsFile());
  f->bytes_ = bytes;
  f->size_ = bytes.size();
  f->owner_ = std::move(owner);
  ZT_RETURN_IF_ERROR(f->load());
  return f;
}

Result<std::unique_ptr<SafetensorsFile>> SafetensorsFile::open(std::shared_ptr<const ByteSource> source) {
  if (!source) return Status(ErrorCode::invalid_argument, "SafetensorsFile::open: null ByteSource");
  if (auto whole = source->mapped(); !whole.empty()) return parse(whole, source->owner());
  std::unique_ptr<SafetensorsFile> f(new SafetensorsFile());
  f->size_ = source->size();
  f->source_ = source;
  if (Status s = f->load(); !s.ok()) return Status(s.code(), s.message() + " (in '" + source->name() + "')");
  return f;
}

Result<std::span<const uint8_t>> SafetensorsFile::read_span(uint64_t offset, uint64_t length,
                                                           std::vector<uint8_t>& scratch) const {
  if (!source_) return bytes_.subspan(offset, length);
  scratch.resize(length);  // length is capped by the caller (header size limit)
  ZT_RETURN_IF_ERROR(source_->read_at(offset, scratch));
  return std::span<const uint8_t>(scratch);
}

Result<ComponentBytes> SafetensorsFile::tensor_bytes(const SafetensorsTensor& t) const {
  return tensor_range(t, 0, t.end - t.begin);
}

Result<ComponentBytes> SafetensorsFile::tensor_range(const SafetensorsTensor& t, uint64_t offset,
                                                     uint64_t length) const {
  const uint64_t at = kSafetensorsPrefixBytes + header_size_ + t.begin + offset;
  if (!source_) return access_.read(bytes_.subspan(static_cast<size_t>(at), static_cast<size_t>(length)), owner_);
  if (length > SIZE_MAX) return Status(ErrorCode::limit_exceeded, "safetensors tensor '" + t.name + "' does not fit in memory");
  auto owned = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(length));
  ZT_RETURN_IF_ERROR(source_->read_at(at, *owned));
  std::span<const uint8_t> view(owned->data(), owned->size());
  return ComponentBytes{view, std::move(owned), false};
}

Status SafetensorsFile::load() {
  std::vector<uint8_t> scratch;
  ZT_ASSIGN_OR_RETURN(auto prefix, read_span(0, std::min(size_, kSafetensorsPrefixBytes), scratch));
  ZT_ASSIGN_OR_RETURN(header_size_, parse_safetensors_prefix(prefix, size_));
  ZT_ASSIGN_OR_RETURN(auto header, read_span(kSafetensorsPrefixBytes, header_size_, scratch));
  const uint64_t buffer_size = size_ - kSafetensorsPrefixBytes - header_size_;
  ZT_ASSIGN_OR_RETURN(SafetensorsHeader parsed, parse_safetensors_header(header, buffer_size));
  tensors_ = std::move(parsed.tensors);
  metadata_ = std::move(parsed.metadata);
  has_metadata_ = parsed.has_metadata;
  DType dtype;
  LogicalType type;
  for (const auto& t : tensors_) {
    if (!safetensors_dtype_to_zt(t.st_dtype, &dtype, &type))  // the two tables disagree: ours to fix
      return Status(ErrorCode::internal, "safetensors dtype '" + t.st_dtype + "' has no zTensor type");
    index_.emplace(t.name, index_.size());
  }
  return Status::Ok();
}

const SafetensorsTensor* SafetensorsFile::find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

}  // namespace zt
