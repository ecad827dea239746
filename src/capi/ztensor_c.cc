// The only place a C++ zt::Status becomes a C error code.
#include "ztensor/ztensor.h"

#include <memory>
#include <string>
#include <vector>

#include "convert/path_open.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"

struct zt_reader {
  std::unique_ptr<zt::Reader> impl;
};
struct zt_writer {
  std::unique_ptr<zt::Writer> impl;
};
struct zt_buffer {
  std::shared_ptr<const void> owner;
};

namespace {

thread_local std::string g_last_error;

int fail(const zt::Status& s) {
  g_last_error = s.message();
  return static_cast<int>(s.code());
}

int fail(zt::ErrorCode code, std::string msg) { return fail(zt::Status(code, std::move(msg))); }

int ok() {
  g_last_error.clear();
  return ZT_OK;
}

}  // namespace

extern "C" {

const char* zt_last_error(void) { return g_last_error.c_str(); }
const char* zt_error_name(int code) { return zt::error_code_name(static_cast<zt::ErrorCode>(code)); }

int zt_reader_open(const char* path, int verify_on_read, zt_reader** out) {
  if (!path || !out) return fail(zt::ErrorCode::invalid_argument, "path and out must not be NULL");
  auto r = zt::open_zt_path(path, zt::ReadOptions{verify_on_read != 0});  // a path or an http(s) URL
  if (!r.ok()) return fail(r.status());
  *out = new zt_reader{std::move(r).value()};
  return ok();
}

void zt_reader_close(zt_reader* reader) { delete reader; }

const char* zt_reader_version(const zt_reader* reader) { return reader->impl->manifest().version.c_str(); }
size_t zt_reader_count(const zt_reader* reader) { return reader->impl->manifest().objects.size(); }

const char* zt_reader_name(const zt_reader* reader, size_t index) {
  const auto& objects = reader->impl->manifest().objects;
  return index < objects.size() ? objects[index].name.c_str() : nullptr;
}

int zt_reader_object(const zt_reader* reader, const char* name, zt_object_info* out) {
  const zt::Object* o = name ? reader->impl->find(name) : nullptr;
  if (!o) return fail(zt::ErrorCode::not_found, std::string("no object named '") + (name ? name : "") + "'");
  *out = zt_object_info{o->format.c_str(), o->shape.size(), o->shape.data(), o->components.size()};
  return ok();
}

int zt_reader_component(const zt_reader* reader, const char* name, size_t index, zt_component_info* out) {
  const zt::Object* o = name ? reader->impl->find(name) : nullptr;
  if (!o) return fail(zt::ErrorCode::not_found, std::string("no object named '") + (name ? name : "") + "'");
  if (index >= o->components.size())
    return fail(zt::ErrorCode::not_found, "object '" + o->name + "' has no component #" + std::to_string(index));
  const auto& [role, c] = o->components[index];
  *out = zt_component_info{role.c_str(), zt::dtype_name(c.dtype), c.type_name.c_str(), c.encoding_text.empty() ? zt::encoding_name(c.encoding) : c.encoding_text.c_str(),
                           c.digest.c_str(), c.offset, c.length, c.uncompressed_length.value_or(0)};
  return ok();
}

int zt_reader_read(const zt_reader* reader, const char* name, const char* role, const void** data, uint64_t* length,
                   zt_buffer** keepalive) {
  if (!name || !role || !data || !length || !keepalive)
    return fail(zt::ErrorCode::invalid_argument, "arguments must not be NULL");
  auto r = reader->impl->read_component(name, role);
  if (!r.ok()) return fail(r.status());
  *data = r->bytes.data();
  *length = r->bytes.size();
  *keepalive = new zt_buffer{r->owner};
  return ok();
}

void zt_buffer_free(zt_buffer* buffer) { delete buffer; }

int zt_reader_verify(const zt_reader* reader) {
  zt::Status s = reader->impl->verify();
  return s.ok() ? ok() : fail(s);
}

int zt_writer_create(const char* path, zt_writer** out) {
  if (!path || !out) return fail(zt::ErrorCode::invalid_argument, "path and out must not be NULL");
  auto w = zt::Writer::create(path);
  if (!w.ok()) return fail(w.status());
  *out = new zt_writer{std::move(w).value()};
  return ok();
}

int zt_writer_add(zt_writer* writer, const char* name, const char* format, const uint64_t* shape, size_t ndim,
                  const zt_component_input* components, size_t num_components, const char* encoding, int level,
                  const char* digest) {
  if (!writer || !writer->impl) return fail(zt::ErrorCode::invalid_argument, "writer is closed");
  if (!name || (ndim && !shape) || (num_components && !components))
    return fail(zt::ErrorCode::invalid_argument, "arguments must not be NULL");
  zt::ObjectSpec spec;
  spec.name = name;
  spec.format = format ? format : "dense";
  spec.shape.assign(shape, shape + ndim);
  auto enc = zt::encoding_from_name(encoding ? encoding : "raw");
  if (!enc || *enc == zt::Encoding::unknown)
    return fail(zt::ErrorCode::unknown_encoding, std::string("unknown encoding '") + encoding + "'");
  zt::DigestAlgo algo = zt::DigestAlgo::none;
  if (digest && std::string(digest) == "sha256") algo = zt::DigestAlgo::sha256;
  else if (digest && std::string(digest) == "crc32c") algo = zt::DigestAlgo::crc32c;
  else if (digest && *digest) return fail(zt::ErrorCode::unsupported, std::string("unknown digest '") + digest + "'");
  for (size_t i = 0; i < num_components; ++i) {
    const auto& in = components[i];
    zt::ComponentSpec c;
    c.role = in.role ? in.role : "";
    auto dt = zt::dtype_from_name(in.dtype ? in.dtype : "");
    if (!dt) return fail(zt::ErrorCode::unknown_dtype, std::string("unknown dtype '") + (in.dtype ? in.dtype : "") + "'");
    c.dtype = *dt;
    if (in.type && *in.type) {
      auto lt = zt::logical_type_from_name(in.type);
      if (!lt) return fail(zt::ErrorCode::invalid_argument, std::string("unknown logical type '") + in.type + "'");
      c.type = *lt;
    }
    c.data = {static_cast<const uint8_t*>(in.data), static_cast<size_t>(in.length)};
    c.encoding = *enc;
    c.level = level;
    c.digest = algo;
    spec.components.push_back(c);
  }
  zt::Status s = writer->impl->add(spec);
  return s.ok() ? ok() : fail(s);
}

int zt_writer_finish(zt_writer* writer) {
  if (!writer || !writer->impl) return fail(zt::ErrorCode::invalid_argument, "writer is closed");
  zt::Status s = writer->impl->finish();
  writer->impl.reset();
  return s.ok() ? ok() : fail(s);
}

void zt_writer_free(zt_writer* writer) { delete writer; }

}  // extern "C"
