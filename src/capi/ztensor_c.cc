// The only place a C++ zt::Status becomes a C error code. Every entry point
// runs its body through guarded(): no exception ever crosses extern "C"
// (a C host cannot catch one; it would abort), and every pointer argument is
// checked before use.
#include "ztensor/ztensor.h"

#include <memory>
#include <new>
#include <string>
#include <vector>

#include "convert/path_open.h"
#include "ztensor/reader.h"
#include "ztensor/remote.h"
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
struct zt_remote_options {
  zt::RemoteOptions impl;
};

// The C codes are the C++ codes: both enums come from ztensor/error_codes.def.
static_assert(ZT_ERROR_CODE_COUNT == zt::kErrorCodeCount);

namespace {

using zt::ErrorCode;

thread_local std::string g_last_error;
// Set when even the message could not be stored (out of memory).
thread_local const char* g_fixed_error = nullptr;
thread_local int g_last_errno = 0;

int record(ErrorCode code, const std::string& msg, int sys_errno = 0) noexcept {
  g_last_errno = sys_errno;
  try {
    g_last_error = msg;
    g_fixed_error = nullptr;
  } catch (...) {
    g_last_error.clear();
    g_fixed_error = "out of memory while recording an error";
  }
  return static_cast<int>(code);
}

int fail(const zt::Status& s) noexcept { return record(s.code(), s.message(), s.sys_errno()); }

int ok() noexcept {
  g_last_errno = 0;
  g_last_error.clear();
  g_fixed_error = nullptr;
  return ZT_OK;
}

int null_argument(const char* fn, const char* arg) noexcept {
  try {
    return record(ErrorCode::invalid_argument, std::string(fn) + ": " + arg + " must not be NULL");
  } catch (...) {
    return record(ErrorCode::invalid_argument, "");
  }
}

// Runs one entry point's body and turns any exception into a code: running
// out of memory is limit_exceeded (the input asked for more than this
// machine holds), anything else is a bug of ours (internal).
template <class Body>
int guarded(const char* fn, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    g_fixed_error = nullptr;
    return record(ErrorCode::limit_exceeded, std::string(fn) + ": out of memory (std::bad_alloc)");
  } catch (const std::exception& e) {
    return record(ErrorCode::internal, std::string(fn) + ": internal error: " + e.what());
  } catch (...) {
    return record(ErrorCode::internal, std::string(fn) + ": internal error: unknown exception");
  }
}

// For the getters that return a value instead of a code: `fallback` on any
// failure, with zt_last_error() saying why.
template <class T, class Body>
T guarded_value(const char* fn, T fallback, Body&& body) noexcept {
  T value = fallback;
  guarded(fn, [&] {
    value = body();
    return ZT_OK;
  });
  return value;
}

std::string quoted_or_null(const char* s) {
  if (!s) return "NULL";
  std::string q(1, '\'');
  q.append(s).push_back('\'');
  return q;
}

}  // namespace

extern "C" {

const char* zt_last_error(void) { return g_fixed_error ? g_fixed_error : g_last_error.c_str(); }
int zt_last_errno(void) { return g_last_errno; }
const char* zt_error_name(int code) { return zt::error_code_name(static_cast<ErrorCode>(code)); }

int zt_reader_open(const char* path, int verify_on_read, zt_reader** out) {
  if (!out) return null_argument("zt_reader_open", "out");
  *out = nullptr;
  if (!path) return null_argument("zt_reader_open", "path");
  return guarded("zt_reader_open", [&] {
    auto r = zt::open_zt_path(path, zt::ReadOptions{verify_on_read != 0});  // a path or an http(s) URL
    if (!r.ok()) return fail(r.status());
    *out = new zt_reader{std::move(r).value()};
    return ok();
  });
}

int zt_reader_open_url(const char* url, const zt_remote_options* options, int verify_on_read, zt_reader** out) {
  if (!out) return null_argument("zt_reader_open_url", "out");
  *out = nullptr;
  if (!url) return null_argument("zt_reader_open_url", "url");
  return guarded("zt_reader_open_url", [&] {
    if (!zt::is_native_url(url))
      return record(ErrorCode::invalid_argument,
                    "zt_reader_open_url: " + quoted_or_null(url) + " is not an http://, https:// or s3:// URL");
    // The scope reaches every URL this open reads: a sharded index's shards too.
    zt::ScopedRemoteOptions scope(options ? options->impl : zt::RemoteOptions{});
    auto r = zt::open_zt_path(url, zt::ReadOptions{verify_on_read != 0});
    if (!r.ok()) return fail(r.status());
    *out = new zt_reader{std::move(r).value()};
    return ok();
  });
}

void zt_reader_close(zt_reader* reader) { delete reader; }

int zt_remote_options_create(zt_remote_options** out) {
  if (!out) return null_argument("zt_remote_options_create", "out");
  *out = nullptr;
  return guarded("zt_remote_options_create", [&] {
    *out = new zt_remote_options{};
    return ok();
  });
}

int zt_remote_options_set(zt_remote_options* options, const char* key, const char* value) {
  if (!options) return null_argument("zt_remote_options_set", "options");
  if (!key) return null_argument("zt_remote_options_set", "key");
  if (!value) return null_argument("zt_remote_options_set", "value");
  return guarded("zt_remote_options_set", [&] {
    zt::RemoteOptions next = options->impl;  // unchanged on error
    zt::Status s = next.set(key, value);
    if (!s.ok()) return fail(s);
    options->impl = std::move(next);
    return ok();
  });
}

void zt_remote_options_free(zt_remote_options* options) { delete options; }

const char* zt_reader_version(const zt_reader* reader) {
  if (!reader) return null_argument("zt_reader_version", "reader"), nullptr;
  return guarded_value("zt_reader_version", static_cast<const char*>(nullptr), [&] {
    ok();
    return reader->impl->manifest().version.c_str();
  });
}

size_t zt_reader_count(const zt_reader* reader) {
  if (!reader) return null_argument("zt_reader_count", "reader"), 0;
  return guarded_value("zt_reader_count", size_t{0}, [&] {
    ok();
    return reader->impl->manifest().objects.size();
  });
}

const char* zt_reader_name(const zt_reader* reader, size_t index) {
  if (!reader) return null_argument("zt_reader_name", "reader"), nullptr;
  return guarded_value("zt_reader_name", static_cast<const char*>(nullptr), [&]() -> const char* {
    const auto& objects = reader->impl->manifest().objects;
    if (index >= objects.size()) {
      record(ErrorCode::not_found, "zt_reader_name: index " + std::to_string(index) + " is past the " +
                                       std::to_string(objects.size()) + " objects");
      return nullptr;
    }
    ok();
    return objects[index].name.c_str();
  });
}

int zt_reader_object(const zt_reader* reader, const char* name, zt_object_info* out) {
  if (!reader) return null_argument("zt_reader_object", "reader");
  if (!out) return null_argument("zt_reader_object", "out");
  return guarded("zt_reader_object", [&] {
    const zt::Object* o = name ? reader->impl->find(name) : nullptr;
    if (!o) return record(ErrorCode::not_found, "no object named " + quoted_or_null(name));
    *out = zt_object_info{o->format.c_str(), o->shape.size(), o->shape.data(), o->components.size()};
    return ok();
  });
}

int zt_reader_component(const zt_reader* reader, const char* name, size_t index, zt_component_info* out) {
  if (!reader) return null_argument("zt_reader_component", "reader");
  if (!out) return null_argument("zt_reader_component", "out");
  return guarded("zt_reader_component", [&] {
    const zt::Object* o = name ? reader->impl->find(name) : nullptr;
    if (!o) return record(ErrorCode::not_found, "no object named " + quoted_or_null(name));
    if (index >= o->components.size())
      return record(ErrorCode::not_found, "object '" + o->name + "' has no component #" + std::to_string(index));
    const auto& [role, c] = o->components[index];
    const char* encoding = c.encoding_text.empty() ? zt::encoding_name(c.encoding) : c.encoding_text.c_str();
    *out = zt_component_info{role.c_str(), zt::dtype_name(c.dtype), c.type_name.c_str(), encoding,
                             c.digest.c_str(), c.offset, c.length, c.uncompressed_length.value_or(0)};
    return ok();
  });
}

int zt_reader_read(const zt_reader* reader, const char* name, const char* role, const void** data, uint64_t* length,
                   zt_buffer** keepalive) {
  if (data) *data = nullptr;
  if (length) *length = 0;
  if (keepalive) *keepalive = nullptr;
  if (!reader) return null_argument("zt_reader_read", "reader");
  if (!name || !role) return null_argument("zt_reader_read", "name and role");
  if (!data || !length || !keepalive) return null_argument("zt_reader_read", "data, length and keepalive");
  return guarded("zt_reader_read", [&] {
    auto r = reader->impl->read_component(name, role);
    if (!r.ok()) return fail(r.status());
    auto* buffer = new zt_buffer{r->owner};
    *data = r->bytes.data();
    *length = r->bytes.size();
    *keepalive = buffer;
    return ok();
  });
}

void zt_buffer_free(zt_buffer* buffer) { delete buffer; }

int zt_reader_verify(const zt_reader* reader) {
  if (!reader) return null_argument("zt_reader_verify", "reader");
  return guarded("zt_reader_verify", [&] {
    zt::Status s = reader->impl->verify();
    return s.ok() ? ok() : fail(s);
  });
}

int zt_writer_create(const char* path, zt_writer** out) {
  if (!out) return null_argument("zt_writer_create", "out");
  *out = nullptr;
  if (!path) return null_argument("zt_writer_create", "path");
  return guarded("zt_writer_create", [&] {
    auto w = zt::Writer::create(path);
    if (!w.ok()) return fail(w.status());
    *out = new zt_writer{std::move(w).value()};
    return ok();
  });
}

namespace {

zt::Result<zt::ComponentSpec> component_spec(const zt_component_input& in, zt::Encoding enc, int level,
                                             zt::DigestAlgo algo) {
  zt::ComponentSpec c;
  c.role = in.role ? in.role : "";
  auto dt = zt::dtype_from_name(in.dtype ? in.dtype : "");
  if (!dt) return zt::Status(ErrorCode::unknown_dtype, "unknown dtype " + quoted_or_null(in.dtype));
  c.dtype = *dt;
  if (in.type && *in.type) {
    auto lt = zt::logical_type_from_name(in.type);
    if (!lt) return zt::Status(ErrorCode::invalid_argument, std::string("unknown logical type '") + in.type + "'");
    c.type = *lt;
  }
  if (!in.data && in.length)
    return zt::Status(ErrorCode::invalid_argument, "component '" + c.role + "': data is NULL but length is " +
                                                       std::to_string(in.length));
  c.data = {static_cast<const uint8_t*>(in.data), static_cast<size_t>(in.length)};
  c.encoding = enc;
  c.level = level;
  c.digest = algo;
  return c;
}

}  // namespace

int zt_writer_add(zt_writer* writer, const char* name, const char* format, const uint64_t* shape, size_t ndim,
                  const zt_component_input* components, size_t num_components, const char* encoding, int level,
                  const char* digest) {
  if (!writer) return null_argument("zt_writer_add", "writer");
  if (!writer->impl) return record(ErrorCode::invalid_argument, "zt_writer_add: writer is already finished");
  if (!name) return null_argument("zt_writer_add", "name");
  if (ndim && !shape) return null_argument("zt_writer_add", "shape (ndim > 0)");
  if (num_components && !components) return null_argument("zt_writer_add", "components (num_components > 0)");
  return guarded("zt_writer_add", [&] {
    zt::ObjectSpec spec;
    spec.name = name;
    spec.format = format ? format : "dense";
    spec.shape.assign(shape, shape + ndim);
    auto enc = zt::encoding_from_name(encoding ? encoding : "raw");
    if (!enc || *enc == zt::Encoding::unknown)
      return record(ErrorCode::unknown_encoding, "unknown encoding " + quoted_or_null(encoding));
    zt::DigestAlgo algo = zt::DigestAlgo::none;
    if (digest && std::string(digest) == "sha256") algo = zt::DigestAlgo::sha256;
    else if (digest && std::string(digest) == "crc32c") algo = zt::DigestAlgo::crc32c;
    else if (digest && *digest) return record(ErrorCode::unsupported, std::string("unknown digest '") + digest + "'");
    for (size_t i = 0; i < num_components; ++i) {
      auto c = component_spec(components[i], *enc, level, algo);
      if (!c.ok()) return fail(zt::Status(c.status().code(), "object '" + spec.name + "': " + c.status().message()));
      spec.components.push_back(std::move(c).value());
    }
    zt::Status s = writer->impl->add(spec);
    return s.ok() ? ok() : fail(s);
  });
}

int zt_writer_finish(zt_writer* writer) {
  if (!writer) return null_argument("zt_writer_finish", "writer");
  if (!writer->impl) return record(ErrorCode::invalid_argument, "zt_writer_finish: writer is already finished");
  return guarded("zt_writer_finish", [&] {
    zt::Status s = writer->impl->finish();
    writer->impl.reset();
    return s.ok() ? ok() : fail(s);
  });
}

void zt_writer_free(zt_writer* writer) { delete writer; }

}  // extern "C"
