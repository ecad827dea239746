// RemoteOptions by name: one table of keys serves set() (the C API, Python's
// storage_options) and the ZT_HTTP_* environment, so the three spellings
// cannot drift apart.
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <variant>

#include "remote/redirect_policy.h"
#include "remote/remote_settings.h"
#include "remote/url_text.h"
#include "ztensor/remote.h"

namespace zt {
namespace {

// Longest bound accepted, in seconds: a day. Past it a bound is a typo, and
// milliseconds of a day fit a uint32.
constexpr double kMaxBoundSeconds = 86'400;
// Most tries per request a caller may ask for.
constexpr uint32_t kMaxAttemptsCap = 100;

enum class Kind { bound, deadline, count, policy, flag, text };
using Member = std::variant<std::optional<uint32_t> RemoteOptions::*, std::optional<bool> RemoteOptions::*,
                            std::optional<std::string> RemoteOptions::*,
                            std::optional<RedirectPolicy> RemoteOptions::*>;
struct Key {
  std::string_view name;
  Kind kind;
  Member member;
  bool from_zt_env;  // read from ZT_HTTP_<NAME>; the s3 keys have the AWS variables (aws_config.cc)
};

constexpr Key kKeys[] = {
    {"connect_timeout", Kind::bound, &RemoteOptions::connect_timeout_ms, true},
    {"stall_timeout", Kind::bound, &RemoteOptions::stall_timeout_ms, true},
    {"open_deadline", Kind::deadline, &RemoteOptions::open_deadline_ms, true},
    {"read_deadline", Kind::deadline, &RemoteOptions::read_deadline_ms, true},
    {"max_attempts", Kind::count, &RemoteOptions::max_attempts, true},
    {"redirects", Kind::policy, &RemoteOptions::redirects, true},
    {"allow_unvalidated", Kind::flag, &RemoteOptions::allow_unvalidated, true},
    {"key", Kind::text, &RemoteOptions::key, false},
    {"secret", Kind::text, &RemoteOptions::secret, false},
    {"token", Kind::text, &RemoteOptions::token, false},
    {"region", Kind::text, &RemoteOptions::region, false},
    {"endpoint_url", Kind::text, &RemoteOptions::endpoint_url, false},
    {"profile", Kind::text, &RemoteOptions::profile, false},
    {"anon", Kind::flag, &RemoteOptions::anon, false},
};

// Seconds as text ("2", "0.5") to milliseconds; a deadline may be 0 (none).
std::optional<uint32_t> parse_seconds(std::string_view v, bool zero_ok) {
  double s = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), s);
  if (ec != std::errc() || end != v.data() + v.size() || !std::isfinite(s) || s < 0 || s > kMaxBoundSeconds)
    return std::nullopt;
  const auto ms = static_cast<uint32_t>(std::llround(s * 1000));
  if (ms == 0 && !zero_ok) return std::nullopt;
  return ms;
}

std::optional<bool> parse_flag(std::string_view v) {
  const std::string t = lower_ascii(v);
  if (t == "1" || t == "true" || t == "yes" || t == "on") return true;
  if (t == "0" || t == "false" || t == "no" || t == "off") return false;
  return std::nullopt;
}

const char* expected(Kind kind) {
  switch (kind) {
    case Kind::bound: return "seconds, more than 0 and at most 86400";
    case Kind::deadline: return "seconds, at most 86400 (0 = no deadline)";
    case Kind::count: return "a whole number from 1 to 100";
    case Kind::policy: return "none, same-origin, public or any";
    case Kind::flag: return "true or false";
    case Kind::text: return "text";
  }
  return "";
}

Status set_value(RemoteOptions& o, const Key& key, std::string_view value) {
  bool ok = true;
  switch (key.kind) {
    case Kind::bound:
    case Kind::deadline: {
      auto ms = parse_seconds(value, key.kind == Kind::deadline);
      ok = ms.has_value();
      if (ok) o.*std::get<std::optional<uint32_t> RemoteOptions::*>(key.member) = *ms;
      break;
    }
    case Kind::count: {
      uint32_t n = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      ok = ec == std::errc() && end == value.data() + value.size() && n >= 1 && n <= kMaxAttemptsCap;
      if (ok) o.*std::get<std::optional<uint32_t> RemoteOptions::*>(key.member) = n;
      break;
    }
    case Kind::policy: {
      auto p = http::parse_redirect_policy(value);
      ok = p.has_value();
      if (ok) o.*std::get<std::optional<RedirectPolicy> RemoteOptions::*>(key.member) = *p;
      break;
    }
    case Kind::flag: {
      auto f = parse_flag(value);
      ok = f.has_value();
      if (ok) o.*std::get<std::optional<bool> RemoteOptions::*>(key.member) = *f;
      break;
    }
    case Kind::text:
      o.*std::get<std::optional<std::string> RemoteOptions::*>(key.member) = std::string(value);
      break;
  }
  if (ok) return Status::Ok();
  return Status(ErrorCode::invalid_argument, "remote option '" + std::string(key.name) + "': '" + std::string(value) +
                                                 "' is not " + expected(key.kind));
}

std::string known_keys() {
  std::string out;
  for (const Key& k : kKeys) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

// Copies every option `top` sets over `base`.
void overlay(const RemoteOptions& top, RemoteOptions& base) {
  for (const Key& k : kKeys)
    std::visit(
        [&](auto member) {
          if ((top.*member).has_value()) base.*member = top.*member;
        },
        k.member);
}

thread_local const ScopedRemoteOptions* g_scope = nullptr;

}  // namespace

Status RemoteOptions::set(std::string_view key, std::string_view value) {
  for (const Key& k : kKeys)
    if (k.name == key) return set_value(*this, k, value);
  return Status(ErrorCode::invalid_argument,
                "unknown remote option '" + std::string(key) + "' (known: " + known_keys() + ")");
}

ScopedRemoteOptions::ScopedRemoteOptions(RemoteOptions options) : options_(std::move(options)), outer_(g_scope) {
  g_scope = this;
}

ScopedRemoteOptions::~ScopedRemoteOptions() { g_scope = outer_; }

const RemoteOptions& ScopedRemoteOptions::current() {
  static const RemoteOptions kNone;
  return g_scope ? g_scope->options_ : kNone;
}

namespace http {

std::string env_name(std::string_view key) {
  std::string name = "ZT_HTTP_";
  for (char c : key) name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

Result<Settings> resolve_settings(const RemoteOptions& call) {
  // Read per open, like ZT_CA_BUNDLE: a host (or a test) may set them after start.
  RemoteOptions merged;
  for (const Key& k : kKeys) {
    if (!k.from_zt_env) continue;
    const std::string var = env_name(k.name);
    const char* v = std::getenv(var.c_str());
    if (!v || !*v) continue;
    Status s = set_value(merged, k, v);
    if (!s.ok()) return Status(ErrorCode::invalid_argument, "environment variable " + var + ": " + s.message());
  }
  overlay(call, merged);
  Settings out;
  out.connect_timeout_ms = merged.connect_timeout_ms.value_or(out.connect_timeout_ms);
  out.stall_timeout_ms = merged.stall_timeout_ms.value_or(out.stall_timeout_ms);
  out.open_deadline_ms = merged.open_deadline_ms.value_or(out.open_deadline_ms);
  out.read_deadline_ms = merged.read_deadline_ms.value_or(out.read_deadline_ms);
  out.max_attempts = merged.max_attempts.value_or(out.max_attempts);
  out.redirects = merged.redirects.value_or(out.redirects);
  out.allow_unvalidated = merged.allow_unvalidated.value_or(out.allow_unvalidated);
  return out;
}

}  // namespace http
}  // namespace zt
