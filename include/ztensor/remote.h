// Reading weight files at http://, https:// and s3:// URLs: the options a
// caller can set, and opening a URL as a ByteSource. docs/remote.md lists
// every option with its default and its environment variable.
//
// Each option is set by name from a string, with the same names in the C API
// (zt_remote_options_set), Python's storage_options and, as ZT_HTTP_* and the
// standard AWS_* variables, the environment. An option set on the call wins
// over the environment, which wins over the default.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ztensor/byte_source.h"
#include "ztensor/export.h"
#include "ztensor/status.h"

namespace zt {

// Which HTTP redirects a remote read follows. public_only (the default):
// the same origin, or another host whose addresses are public, over the same
// or a stronger scheme; loopback, private, link-local and cloud-metadata
// targets only when the original URL was already of that kind.
enum class RedirectPolicy : uint8_t { none, same_origin, public_only, any };

struct RemoteOptions {
  // Bounds, in milliseconds (set in seconds through set()).
  std::optional<uint32_t> connect_timeout_ms;  // TCP + TLS connect, per request
  std::optional<uint32_t> stall_timeout_ms;    // no body byte for this long aborts the request
  std::optional<uint32_t> open_deadline_ms;    // the size probe that opens a URL, retries included; 0 = none
  std::optional<uint32_t> read_deadline_ms;    // one read (all its parts and retries); 0 = none
  std::optional<uint32_t> max_attempts;        // tries per request for transient failures
  std::optional<RedirectPolicy> redirects;
  // A server that sends neither ETag nor Last-Modified cannot prove that two
  // requests saw one version of the file; it is refused unless this is set.
  std::optional<bool> allow_unvalidated;
  // s3://: credentials, region, endpoint and profile, or anonymous access.
  std::optional<std::string> key, secret, token, region, endpoint_url, profile;
  std::optional<bool> anon;

  // Sets the option named `key` ("connect_timeout", "redirects", "key",
  // ...; docs/remote.md) from its text ("2.5" seconds, "same-origin",
  // "true"). Errors: invalid_argument naming the key (unknown, or a value it
  // cannot take).
  Status set(std::string_view key, std::string_view value);
};

// Whether zTensor reads `path` itself as a URL: http://, https:// or s3://
// (case-insensitive scheme).
bool is_native_url(std::string_view path);

// Opens an http(s):// or s3:// URL for positional reads with `options` (the
// environment and the defaults fill what it leaves unset). Errors:
// invalid_argument (not such a URL, or an option or environment variable
// with a bad value), io_error (cannot connect, HTTP or S3 error, a deadline
// passed, a redirect refused), not_found (no such S3 bucket or key),
// unsupported (the server ignores Range, or sends no validator).
Result<std::shared_ptr<const ByteSource>> open_remote(const std::string& url, const RemoteOptions& options = {});

// While the guard lives, every URL opened on this thread without explicit
// options (open_source, a sharded index's shards, the C API) uses `options`.
// Guards nest; the innermost wins.
class ScopedRemoteOptions {
 public:
  explicit ScopedRemoteOptions(RemoteOptions options);
  ~ScopedRemoteOptions();
  ScopedRemoteOptions(const ScopedRemoteOptions&) = delete;
  ScopedRemoteOptions& operator=(const ScopedRemoteOptions&) = delete;
  // The options of the innermost guard on this thread; empty options if none.
  static const RemoteOptions& current();

 private:
  RemoteOptions options_;
  const ScopedRemoteOptions* outer_;
};

}  // namespace zt
