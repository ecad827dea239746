// The options of one remote open with every value decided: the caller's
// RemoteOptions over the ZT_HTTP_* environment over the defaults below.
#pragma once

#include <cstdint>

#include "ztensor/remote.h"
#include "ztensor/status.h"

namespace zt::http {

// Defaults (docs/remote.md). A connect on a healthy network takes well
// under a second; 30 s without a byte is a dead peer, not a slow one; five
// tries ride out a restarting server; the probe that opens a URL is one
// small request, so two minutes covers every retry and Retry-After above.
constexpr uint32_t kDefaultConnectTimeoutMs = 10'000;
constexpr uint32_t kDefaultStallTimeoutMs = 30'000;
constexpr uint32_t kDefaultOpenDeadlineMs = 120'000;
constexpr uint32_t kDefaultReadDeadlineMs = 0;  // none: a large tensor on a slow link is not an error
constexpr uint32_t kDefaultMaxAttempts = 5;

struct Settings {
  uint32_t connect_timeout_ms = kDefaultConnectTimeoutMs;
  uint32_t stall_timeout_ms = kDefaultStallTimeoutMs;
  uint32_t open_deadline_ms = kDefaultOpenDeadlineMs;
  uint32_t read_deadline_ms = kDefaultReadDeadlineMs;
  uint32_t max_attempts = kDefaultMaxAttempts;
  RedirectPolicy redirects = RedirectPolicy::public_only;
  bool allow_unvalidated = false;
};

// Errors: invalid_argument naming the environment variable with a bad value.
Result<Settings> resolve_settings(const RemoteOptions& call);

// The environment variable of an option ("ZT_HTTP_CONNECT_TIMEOUT"), for
// messages that tell the user how to change a bound.
std::string env_name(std::string_view key);

}  // namespace zt::http
