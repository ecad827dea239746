// One range GET done the way a user can bound and trust: redirects judged
// by the redirect policy (auth never leaves the original origin), transient
// failures retried with backoff or the server's Retry-After, and everything
// within a deadline. Idle connections are kept for the next request.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "remote/http_exchange.h"
#include "remote/redirect_policy.h"
#include "remote/remote_settings.h"
#include "ztensor/status.h"

namespace zt::http {

using Clock = std::chrono::steady_clock;

// When an operation must be over, and the option that said so (for messages).
struct Deadline {
  Clock::time_point at = Clock::time_point::max();
  const char* option = nullptr;  // nullptr: no deadline
  uint32_t ms = 0;
  // `ms` from now; 0 = no deadline.
  static Deadline after(uint32_t ms, const char* option);
  bool set() const { return option != nullptr; }
  bool passed() const { return set() && Clock::now() >= at; }
  // Passed, or so close that a timeout just now was this deadline's:
  // libcurl's timer may fire a little before ours.
  bool due() const { return set() && Clock::now() + std::chrono::milliseconds(50) >= at; }
  // Milliseconds left (at least 1 while not passed); 0 when there is no deadline.
  uint32_t left_ms() const;
};

// What to fetch: the URL requested (for s3://, its https form), the name
// messages show, and the signing credentials if any.
struct Target {
  std::string url;
  std::string name;
  Auth auth;
};

class Fetcher {
 public:
  // Errors: invalid_argument (the target is not an http(s) URL).
  static Result<std::unique_ptr<Fetcher>> create(Target target, Settings settings);

  const std::string& name() const { return target_.name; }
  const Settings& settings() const { return settings_; }

  // One range GET of [first, first + out.size()). ok: a final reply that is
  // not worth retrying (any status: the caller judges it). io_error: the
  // connection failed after the retries, a deadline or bound passed, or a
  // redirect was refused; the message names which.
  Status get(uint64_t first, std::span<uint8_t> out, const Deadline& deadline, RangeReply& reply) const;

  // "'NAME': what".
  Status fail(ErrorCode code, const std::string& what) const { return Status(code, "'" + target_.name + "': " + what); }

 private:
  Fetcher(Target target, Origin origin, Settings settings)
      : target_(std::move(target)), origin_(std::move(origin)), settings_(settings) {}
  // One attempt: the request and the redirects it leads to.
  Status follow(Handle& h, uint64_t first, std::span<uint8_t> out, const Deadline& deadline, RangeReply& reply) const;
  // Why an attempt failed, in a few words ("HTTP 503", "no connection within connect_timeout 1 s").
  std::string describe_failure(const Status& s, const RangeReply& reply, const Deadline& deadline) const;
  std::unique_ptr<Handle> acquire() const;
  void release(std::unique_ptr<Handle> h) const;

  Target target_;
  Origin origin_;
  Settings settings_;
  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<Handle>> idle_;
};

}  // namespace zt::http
