// zt::ByteSource over an http:// or https:// URL: the size and validators
// (ETag, Last-Modified) come from a one-byte range request on open, and each
// read_at is one or a few range GETs written straight into the caller's
// buffer. A server that ignores Range, or a file that changes between
// requests, is an error: bytes of two versions are never mixed.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ztensor/byte_source.h"
#include "ztensor/status.h"

namespace zt {

// Whether `path` names an HTTP(S) URL (case-insensitive scheme).
bool is_http_url(std::string_view path);

// The URL without credentials and query (signatures), for messages.
std::string redact_url(std::string_view url);

// Errors: io_error (cannot connect, HTTP error status after the retries),
// unsupported (the server ignores Range requests).
Result<std::shared_ptr<const ByteSource>> open_http(const std::string& url);

}  // namespace zt
