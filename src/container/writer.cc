#include "ztensor/writer.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "common/byteswap.h"
#include "common/checked_math.h"
#include "container/cbor_decode.h"
#include "container/digest.h"
#include "container/limits.h"
#include "container/manifest_encode.h"
#include "container/validate.h"
#include "container/zstd_blob.h"
#include "ztensor/blob_codec.h"

namespace zt {
namespace {

// The provisional model of an object before its blobs are written, so the
// writer runs the reader's own rules and never writes a file it would refuse.
Object provisional(const ObjectSpec& spec) {
  Object o;
  o.name = spec.name;
  o.shape = spec.shape;
  o.format = spec.format;
  o.attributes = spec.attributes;
  for (const auto& cs : spec.components) {
    Component c;
    c.dtype = cs.dtype;
    c.type = cs.type;
    c.offset = limits::kAlignment;
    c.length = cs.decoded_size();
    c.encoding = Encoding::raw;  // sizes are checked on the decoded bytes
    o.components.emplace_back(cs.role, c);
  }
  return o;
}

// Little-endian bytes of `data`: the identity on little-endian hosts.
// §4 "Writers on big-endian hosts MUST byte-swap before writing."
template <class F>
Status with_le_bytes(std::span<const uint8_t> data, size_t width, F&& use) {
  if constexpr (std::endian::native == std::endian::little) {
    return use(data);
  } else {
    std::vector<uint8_t> swapped(data.begin(), data.end());
    byteswap_elements(swapped.data(), swapped.size(), width);
    return use(std::span<const uint8_t>(swapped));
  }
}

// Hands `spec`'s data, encoded per its encoding, to `sink` in pieces.
Status encode_blob(const ComponentSpec& spec, const std::function<Status(std::span<const uint8_t>)>& sink) {
  const std::string ctx = "component '" + spec.role + "'";
  return with_le_bytes(spec.data, dtype_width(spec.dtype), [&](std::span<const uint8_t> le) {
    switch (spec.encoding) {
      case Encoding::raw: return sink(le);
      case Encoding::zstd: return zstd_encode_stream(le, spec.level, sink, ctx);
      default:
        if (auto codec = find_blob_codec(spec.encoding)) return codec->encode(spec, le, sink);
        return Status(ErrorCode::unknown_encoding,
                      ctx + ": encoding '" + encoding_name(spec.encoding) + "' cannot be written by this build");
    }
  });
}

// Containers nested in `v`, `v` included (0 for a scalar); counting stops
// past `cap`, so a hostile depth costs no deep recursion.
uint32_t nesting(const Value& v, uint32_t cap) {
  if (cap == 0 || (!v.is_map() && !v.is_array())) return 0;
  uint32_t inner = 0;
  if (v.is_map())
    for (const auto& [key, item] : v.as_map()) inner = std::max(inner, nesting(item, cap - 1));
  else
    for (const auto& item : v.as_array()) inner = std::max(inner, nesting(item, cap - 1));
  return 1 + inner;
}

// The reader refuses a manifest nesting deeper than kMaxCborDepth; file
// attributes sit below the root map, object attributes below the root,
// "objects" and the object's map.
constexpr uint32_t kFileAttributesLevel = 1;
constexpr uint32_t kObjectAttributesLevel = 3;

Status check_nesting(const Value& attributes, uint32_t level, const std::string& whose) {
  const uint32_t room = limits::kMaxCborDepth - level;
  if (nesting(attributes, room + 1) <= room) return Status::Ok();
  return Status(ErrorCode::invalid_argument, whose + " attributes nest deeper than " + std::to_string(room) +
                                                 " levels: the manifest would pass kMaxCborDepth (" +
                                                 std::to_string(limits::kMaxCborDepth) + "), which readers refuse");
}

}  // namespace

Result<std::vector<uint8_t>> encode_component(const ComponentSpec& spec) {
  std::vector<uint8_t> out;
  ZT_RETURN_IF_ERROR(encode_blob(spec, [&](std::span<const uint8_t> piece) {
    out.insert(out.end(), piece.begin(), piece.end());
    return Status::Ok();
  }));
  return out;
}

Result<std::unique_ptr<Writer>> Writer::create(const std::string& path, Value attributes, bool durable) {
  if (!attributes.is_null() && !attributes.is_map())
    return Status(ErrorCode::invalid_argument, "file attributes must be a map");
  ZT_RETURN_IF_ERROR(check_nesting(attributes, kFileAttributesLevel, "file"));
  std::unique_ptr<Writer> w(new Writer());
  ZT_ASSIGN_OR_RETURN(w->file_, AtomicFile::create(path, durable));
  w->manifest_.version = kWriterVersion;
  w->manifest_.attributes = std::move(attributes);
  ZT_RETURN_IF_ERROR(w->file_->write(
      {reinterpret_cast<const uint8_t*>(limits::kMagicV1.data()), limits::kMagicV1.size()}));
  return w;
}

Writer::~Writer() { abort(); }

void Writer::abort() {
  if (file_) file_->abort();
  file_.reset();
}

Status Writer::write_component(const ComponentSpec& spec, Component& out) {
  uint64_t pos = file_->position();
  ZT_RETURN_IF_ERROR(file_->write_zeros(align_up(pos, limits::kAlignment) - pos));  // §4 padding is 0x00
  out.offset = file_->position();
  out.dtype = spec.dtype;
  out.type = spec.type;
  out.encoding = spec.encoding;
  DigestBuilder digest(spec.digest);
  auto sink = [&](std::span<const uint8_t> piece) {
    digest.update(piece);
    return file_->write(piece);
  };
  ZT_RETURN_IF_ERROR(spec.pre_encoded ? sink(spec.data) : encode_blob(spec, sink));
  out.length = file_->position() - out.offset;
  const uint64_t decoded = spec.decoded_size();
  if (spec.encoding != Encoding::raw) out.uncompressed_length = decoded;
  if (spec.pre_encoded && spec.encoding == Encoding::raw && out.length != decoded)
    return Status(ErrorCode::length_mismatch, "component '" + spec.role + "': " + std::to_string(out.length) +
                                                  " raw bytes given for " + std::to_string(decoded));
  out.digest = digest.finish();
  return Status::Ok();
}

Status Writer::add(const ObjectSpec& spec) {
  if (!file_ || sealed_) return Status(ErrorCode::invalid_argument, "writer is closed");
  if (spec.name.empty()) return Status(ErrorCode::invalid_argument, "object name must not be empty");
  ZT_RETURN_IF_ERROR(check_name(spec.name, "object", ErrorCode::invalid_argument));
  for (const auto& c : spec.components)
    ZT_RETURN_IF_ERROR(check_name(c.role, "object '" + spec.name + "' component", ErrorCode::invalid_argument));
  if (names_.count(spec.name))
    return Status(ErrorCode::invalid_argument, "object '" + spec.name + "' was already added");
  if (!spec.attributes.is_null() && !spec.attributes.is_map())
    return Status(ErrorCode::invalid_argument, "object '" + spec.name + "': attributes must be a map");
  ZT_RETURN_IF_ERROR(check_nesting(spec.attributes, kObjectAttributesLevel, "object '" + spec.name + "'"));
  if (spec.components.empty())
    return Status(ErrorCode::invalid_argument, "object '" + spec.name + "' has no components");
  for (size_t i = 0; i < spec.components.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (spec.components[i].role == spec.components[j].role)
        return Status(ErrorCode::invalid_argument,
                      "object '" + spec.name + "': component '" + spec.components[i].role + "' given twice");
  Object o = provisional(spec);
  ZT_RETURN_IF_ERROR(validate_object(o, UINT64_MAX, ValidationRules{}));
  for (size_t i = 0; i < spec.components.size(); ++i) {
    Status s = write_component(spec.components[i], o.components[i].second);
    if (!s.ok()) {
      abort();  // a partly written blob would break the zero-padding rule
      return Status(s.code(), "object '" + spec.name + "' " + s.message());
    }
  }
  names_.insert(spec.name);
  manifest_.objects.push_back(std::move(o));
  return Status::Ok();
}

Status Writer::finish() {
  Status s = seal();
  if (s.ok()) s = publish();
  file_.reset();  // removes the temporary if either step failed
  return s;
}

Status Writer::seal() {
  if (!file_ || sealed_) return Status(ErrorCode::invalid_argument, "writer is closed");
  std::vector<uint8_t> manifest = encode_manifest(manifest_);
  // Whatever the checks above missed (an attribute string over
  // kMaxCborStringBytes, too many items, a manifest over 1 GiB): a file
  // the reader would refuse is not published.
  Status readable = manifest.size() > limits::kMaxManifestBytes
                        ? Status(ErrorCode::limit_exceeded, "manifest of " + std::to_string(manifest.size()) +
                                                                " bytes over the 1 GiB limit")
                        : cbor_parse(manifest, "manifest").status();
  if (!readable.ok()) {
    file_.reset();
    return Status(readable.code(), "refusing to write a file readers refuse: " + readable.message());
  }
  uint8_t footer[limits::kFooterSize];
  uint64_t n = manifest.size();
  for (int i = 0; i < 8; ++i) footer[i] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(footer + 8, limits::kMagicV1.data(), 8);
  Status s = file_->write(manifest);
  if (s.ok()) s = file_->write({footer, sizeof footer});
  if (s.ok()) s = file_->seal();
  if (!s.ok()) {
    file_.reset();
    return s;
  }
  sealed_ = true;
  return s;
}

Status Writer::publish(const std::string& dest) {
  if (!file_ || !sealed_) return Status(ErrorCode::invalid_argument, "writer is not sealed");
  Status s = file_->publish(dest);
  file_.reset();
  return s;
}

}  // namespace zt
