#include "container/manifest_encode.h"

#include "container/cbor_encode.h"

namespace zt {
namespace {

void encode_component(CborEncoder& e, const Component& c) {
  size_t n = 4 + (c.type != LogicalType::none) + (c.uncompressed_length.has_value()) + (!c.digest.empty());
  e.map_start(n);
  e.text("dtype");
  e.text(dtype_name(c.dtype));
  if (c.type != LogicalType::none) {
    e.text("type");
    e.text(logical_type_name(c.type));
  }
  e.text("offset");
  e.uint(c.offset);
  e.text("length");
  e.uint(c.length);
  if (c.uncompressed_length) {
    e.text("uncompressed_length");
    e.uint(*c.uncompressed_length);
  }
  e.text("encoding");
  e.text(encoding_name(c.encoding));
  if (!c.digest.empty()) {
    e.text("digest");
    e.text(c.digest);
  }
}

void encode_object(CborEncoder& e, const Object& o) {
  bool attrs = o.attributes.is_map();
  e.map_start(3 + attrs);
  e.text("shape");
  e.array_start(o.shape.size());
  for (uint64_t d : o.shape) e.uint(d);
  e.text("format");
  e.text(o.format);
  if (attrs) {
    e.text("attributes");
    e.value(o.attributes);
  }
  e.text("components");
  e.map_start(o.components.size());
  for (const auto& [role, c] : o.components) {
    e.text(role);
    encode_component(e, c);
  }
}

}  // namespace

std::vector<uint8_t> encode_manifest(const Manifest& m) {
  CborEncoder e;
  bool attrs = m.attributes.is_map();
  e.map_start(2 + attrs);
  e.text("version");
  e.text(kWriterVersion);
  if (attrs) {
    e.text("attributes");
    e.value(m.attributes);
  }
  e.text("objects");
  e.map_start(m.objects.size());
  for (const auto& o : m.objects) {
    e.text(o.name);
    encode_object(e, o);
  }
  return e.take();
}

}  // namespace zt
