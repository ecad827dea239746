// GGUF as a TensorSource: dense objects for plain types, gguf_quantized
// objects for block-quantized ones; every component is a view of the file.
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "convert/path_open.h"
#include "common/checked_math.h"
#include "common/mapped_file.h"
#include "convert/file_bytes.h"
#include "convert/mapped_open.h"
#include "convert/gguf/gguf_file.h"
#include "ztensor/reader.h"

namespace zt {
namespace {

Object make_object(const gguf::TensorInfo& t, uint64_t data_start) {
  Object o;
  o.name = t.name;
  o.shape.assign(t.ggml_dims.rbegin(), t.ggml_dims.rend());  // ggml dims[0] is numpy's last axis
  Component c;
  c.offset = data_start + t.offset;
  c.length = t.n_bytes;
  if (t.type->dense) {
    o.format = "dense";
    c.dtype = *t.type->dense;
    o.components.emplace_back("data", c);
  } else {
    o.format = kGgufQuantizedFormat;
    o.attributes = Value::map();
    o.attributes.set("ggml_type", Value::text(t.type->name));
    o.attributes.set("ggml_type_id", Value::uint(t.type->id));
    o.attributes.set("block_size", Value::uint(t.type->block_size));
    o.attributes.set("type_size", Value::uint(t.type->type_size));
    c.dtype = DType::u8;
    o.components.emplace_back("blocks", c);
  }
  return o;
}

class GgufSource final : public TensorSource {
 public:
  // `source` set: components are read from it when asked (`bytes` is empty).
  GgufSource(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner, gguf::File file,
             std::shared_ptr<const ByteSource> source = nullptr, FileByteAccess access = {})
      : bytes_(bytes), owner_(std::move(owner)), source_(std::move(source)), access_(std::move(access)) {
    manifest_.version = "1.2.0";
    manifest_.attributes = std::move(file.attributes);
    manifest_.objects.reserve(file.tensors.size());
    for (const auto& t : file.tensors) manifest_.objects.push_back(make_object(t, file.data_start));
    for (size_t i = 0; i < manifest_.objects.size(); ++i) index_.emplace(manifest_.objects[i].name, i);
  }

  const char* format_name() const override { return "gguf"; }
  const Manifest& manifest() const override { return manifest_; }
  const Object* find(std::string_view name) const override {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &manifest_.objects[it->second];
  }
  Result<ComponentBytes> read_component(const Object& object, std::string_view role) const override {
    // Look the object up again so a foreign Object cannot point outside the file.
    const Object* own = find(object.name);
    if (!own) return Status(ErrorCode::not_found, "gguf: no tensor " + gguf::quoted(object.name));
    const Component* c = own->find(role);
    if (!c)
      return Status(ErrorCode::not_found, "gguf tensor " + gguf::quoted(object.name) + " has no component " +
                                              gguf::quoted(role));
    ComponentBytes out;
    if (source_ && c->length) {
      if (c->length > SIZE_MAX) return Status(ErrorCode::limit_exceeded, "gguf tensor " + gguf::quoted(object.name) + " does not fit in memory");
      auto owned = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(c->length));
      ZT_RETURN_IF_ERROR(source_->read_at(c->offset, *owned));
      out.bytes = std::span<const uint8_t>(owned->data(), owned->size());
      out.owner = std::move(owned);
      return out;
    }
    if (c->length == 0) {
      out.owner = owner_;
      out.zero_copy = true;
      return out;
    }
    return access_.read(bytes_.subspan(c->offset, c->length), owner_);  // bounds checked at open
  }
  Status verify() const override { return Status::Ok(); }  // GGUF carries no checksums

 private:
  std::span<const uint8_t> bytes_;
  std::shared_ptr<const void> owner_;
  std::shared_ptr<const ByteSource> source_;
  FileByteAccess access_;
  Manifest manifest_;
  std::unordered_map<std::string_view, size_t> index_;
};

// A remote file's header is read in growing prefixes until it parses: the
// first read usually covers it, each retry fetches only the new bytes, and
// a header claiming more than kMaxRemoteHeaderBytes is refused.
constexpr uint64_t kFirstHeaderReadBytes = uint64_t{1} << 20;
constexpr uint64_t kHeaderReadGrowth = 4;
constexpr uint64_t kMaxRemoteHeaderBytes = uint64_t{1} << 30;

}  // namespace

Result<std::unique_ptr<TensorSource>> open_gguf(std::shared_ptr<const ByteSource> source, const GgufOptions& options) {
  if (!source) return Status(ErrorCode::invalid_argument, "open_gguf: null ByteSource");
  std::vector<uint8_t> prefix;
  for (uint64_t want = std::min(source->size(), kFirstHeaderReadBytes);;
       want = std::min({source->size(), want * kHeaderReadGrowth, kMaxRemoteHeaderBytes})) {
    const size_t have = prefix.size();
    prefix.resize(static_cast<size_t>(want));
    ZT_RETURN_IF_ERROR(source->read_at(have, std::span<uint8_t>(prefix).subspan(have)));
    bool needs_more = false;
    auto file = gguf::parse_file(prefix, source->size(), options, &needs_more);
    if (file.ok())
      return std::unique_ptr<TensorSource>(new GgufSource({}, nullptr, std::move(file).value(), std::move(source)));
    if (!needs_more) return Status(file.status().code(), file.status().message() + " (in '" + source->name() + "')");
    if (want == kMaxRemoteHeaderBytes)
      return Status(ErrorCode::limit_exceeded, "gguf header of '" + source->name() + "' runs past " +
                                                   std::to_string(kMaxRemoteHeaderBytes) + " bytes");
  }
}

Result<std::unique_ptr<TensorSource>> open_gguf_memory(std::span<const uint8_t> bytes,
                                                       std::shared_ptr<const void> owner,
                                                       const GgufOptions& options) {
  ZT_ASSIGN_OR_RETURN(gguf::File file, gguf::parse_file(bytes, options));
  return std::unique_ptr<TensorSource>(new GgufSource(bytes, std::move(owner), std::move(file)));
}

Result<std::unique_ptr<TensorSource>> open_gguf_mapped(std::shared_ptr<const MappedFile> file, bool copy_on_read,
                                                       const GgufOptions& options) {
  const auto bytes = file->bytes();
  auto parsed = gguf::parse_file(bytes, options);
  if (!parsed.ok())
    return Status(parsed.status().code(), parsed.status().message() + " (in '" + file->path() + "')");
  FileByteAccess access(file, copy_on_read);
  return std::unique_ptr<TensorSource>(
      new GgufSource(bytes, std::move(file), std::move(parsed).value(), nullptr, std::move(access)));
}

Result<std::unique_ptr<TensorSource>> open_gguf(const std::string& path, const GgufOptions& options) {
  if (is_url_path(path)) {
    ZT_ASSIGN_OR_RETURN(auto source, open_url(path));
    return open_gguf(std::move(source), options);
  }
  ZT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(path));
  return open_gguf_mapped(std::move(mapped), /*copy_on_read=*/false, options);
}

Result<std::vector<float>> gguf_dequantize_object(const TensorSource& source, const Object& object) {
  uint32_t type_id;
  std::string_view role;
  if (object.format == kGgufQuantizedFormat) {
    const Value* id = object.attributes.find("ggml_type_id");
    if (!id || !id->is_uint() || id->as_uint() > UINT32_MAX)
      return Status(ErrorCode::missing_field, "object " + gguf::quoted(object.name) + ": gguf_quantized needs ggml_type_id");
    type_id = static_cast<uint32_t>(id->as_uint());
    role = "blocks";
  } else if (object.format == "dense") {
    const Component* c = object.find("data");
    if (!c) return Status(ErrorCode::missing_component, "object " + gguf::quoted(object.name) + " has no data");
    switch (c->dtype) {
      case DType::f32: type_id = 0; break;
      case DType::f16: type_id = 1; break;
      case DType::bf16: type_id = 30; break;
      default:
        return Status(ErrorCode::unsupported, "object " + gguf::quoted(object.name) + ": dtype " +
                                                  dtype_name(c->dtype) + " is not a float to dequantize");
    }
    role = "data";
  } else {
    return Status(ErrorCode::unknown_format, "object " + gguf::quoted(object.name) + ": format " +
                                                 gguf::quoted(object.format) + " cannot be dequantized");
  }
  auto n = checked_product(object.shape);
  if (!n) return Status(ErrorCode::shape_overflow, "object " + gguf::quoted(object.name) + ": shape overflows");
  ZT_ASSIGN_OR_RETURN(ComponentBytes bytes, source.read_component(object, role));
  auto r = gguf_dequantize(type_id, bytes.bytes, *n);
  if (!r.ok()) return Status(r.status().code(), "object " + gguf::quoted(object.name) + ": " + r.status().message());
  return r;
}

}  // namespace zt
