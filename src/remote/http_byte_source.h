// zt::ByteSource over an http://, https:// or s3:// URL: the size and
// validators (ETag, Last-Modified) come from a small range request on open,
// and each read_at is one or a few range GETs written straight into the
// caller's buffer. A server that ignores Range, or a file that changes
// between requests, is an error: bytes of two versions are never mixed; a
// server that sends no validator at all is refused unless allowed.
#pragma once

#include <memory>
#include <string>

#include "remote/http_fetch.h"
#include "remote/url_text.h"
#include "ztensor/byte_source.h"
#include "ztensor/status.h"

namespace zt::http {

// How a non-2xx reply reads in messages, and which code it gets.
struct ReplyWording {
  bool s3 = false;           // S3: 404 is not_found; the XML error text is quoted
  std::string credentials;   // where the credentials came from (s3), for a 403
};

// Errors: those of Fetcher::get, io_error (an HTTP error status), not_found
// (S3: no such bucket or key), unsupported (the server ignores Range; no
// validator and Settings::allow_unvalidated unset).
Result<std::shared_ptr<const ByteSource>> open_byte_source(std::unique_ptr<Fetcher> fetcher, ReplyWording wording);

}  // namespace zt::http
