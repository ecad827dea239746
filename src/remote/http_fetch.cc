#include "remote/http_fetch.h"

#include <algorithm>
#include <thread>

#include "remote/url_text.h"

namespace zt::http {
namespace {

// Transient failures are retried after kFirstBackoff, then twice as long
// each time up to kMaxBackoff, unless the server says when (Retry-After).
constexpr auto kFirstBackoff = std::chrono::milliseconds(100);
constexpr auto kMaxBackoff = std::chrono::milliseconds(2000);
// The longest Retry-After honoured: a server asking for more is given up on
// at once rather than waited for silently.
constexpr auto kMaxRetryAfter = std::chrono::seconds(60);
// Redirects followed per request (libcurl's own default is 30).
constexpr int kMaxRedirects = 5;
// At most this many idle connections are kept (one per concurrent part).
constexpr size_t kMaxIdleHandles = 4;

std::string hint(const char* option) {
  return " (the " + std::string(option) + " option, or " + env_name(option) + " for zt)";
}

}  // namespace

Deadline Deadline::after(uint32_t ms, const char* option) {
  if (ms == 0) return {};
  return {Clock::now() + std::chrono::milliseconds(ms), option, ms};
}

uint32_t Deadline::left_ms() const {
  if (!set()) return 0;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(at - Clock::now()).count();
  return static_cast<uint32_t>(std::max<int64_t>(left, 1));
}

Result<std::unique_ptr<Fetcher>> Fetcher::create(Target target, Settings settings) {
  auto origin = parse_origin(target.url);
  if (!origin.ok()) return Status(ErrorCode::invalid_argument, "'" + target.name + "': " + origin.status().message());
  return std::unique_ptr<Fetcher>(new Fetcher(std::move(target), std::move(origin).value(), settings));
}

std::unique_ptr<Handle> Fetcher::acquire() const {
  std::lock_guard lock(mu_);
  if (idle_.empty()) return std::make_unique<Handle>();
  auto h = std::move(idle_.back());
  idle_.pop_back();
  return h;
}

void Fetcher::release(std::unique_ptr<Handle> h) const {
  std::lock_guard lock(mu_);
  if (idle_.size() < kMaxIdleHandles) idle_.push_back(std::move(h));
}

Status Fetcher::follow(Handle& h, uint64_t first, std::span<uint8_t> out, const Deadline& deadline,
                       RangeReply& reply) const {
  std::string url = target_.url;
  Origin at = origin_;
  AddressClass origin_class = AddressClass::public_net;
  ClassMask allowed = kAnyAddress;
  for (int hop = 0;; ++hop) {
    Request req;
    req.url = &url;
    req.first = first;
    req.out = out;
    req.auth = same_origin(at, origin_) ? &target_.auth : nullptr;  // credentials stay with their origin
    req.connect_timeout_ms = settings_.connect_timeout_ms;
    req.stall_timeout_ms = settings_.stall_timeout_ms;
    req.timeout_ms = deadline.left_ms();
    req.allowed = allowed;
    Status s = get_range(h, req, reply);
    if (!reply.refused_address.empty())
      return Status(ErrorCode::io_error, "redirect to '" + redact_url(url) + "' refused: it reached " +
                                           address_class_name(reply.refused_class) + " (" + reply.refused_address +
                                           ") under the redirect policy '" + redirect_policy_name(settings_.redirects) +
                                           "'" + hint("redirects"));
    if (!s.ok() || reply.status < 300 || reply.status >= 400 || reply.location.empty()) return s;
    if (hop == 0) origin_class = classify_ip(reply.primary_ip).value_or(AddressClass::public_net);
    const std::string target = redact_url(reply.location);
    if (hop == kMaxRedirects)
      return Status(ErrorCode::io_error, "more than " + std::to_string(kMaxRedirects) + " redirects (the last to '" +
                                           target + "')");
    auto next = parse_origin(reply.location);
    if (!next.ok())
      return Status(ErrorCode::io_error, "redirect to '" + target + "' refused: only http and https are followed");
    const HopVerdict verdict = judge_redirect(settings_.redirects, origin_, origin_class, at, *next);
    if (!verdict.refusal.empty())
      return Status(ErrorCode::io_error, "redirect to '" + target + "' refused: " + verdict.refusal +
                                           " under the redirect policy '" + redirect_policy_name(settings_.redirects) +
                                           "'" + hint("redirects"));
    url = reply.location;
    at = std::move(next).value();
    allowed = verdict.allowed;
  }
}

std::string Fetcher::describe_failure(const Status& s, const RangeReply& reply, const Deadline& deadline) const {
  if (s.ok()) return "HTTP " + std::to_string(reply.status);
  if (!reply.timed_out || deadline.due()) return s.message();
  if (!reply.connected)
    return "no connection within the connect_timeout of " + seconds_text(settings_.connect_timeout_ms);
  return "no data for the stall_timeout of " + seconds_text(settings_.stall_timeout_ms);
}

Status Fetcher::get(uint64_t first, std::span<uint8_t> out, const Deadline& deadline, RangeReply& reply) const {
  auto wait = std::chrono::duration_cast<Clock::duration>(kFirstBackoff);
  for (uint32_t attempt = 1;; ++attempt) {
    auto h = acquire();
    Status last = follow(*h, first, out, deadline, reply);
    if (last.ok() && !reply.transient) {
      release(std::move(h));
      return last;
    }
    // A handle whose connection failed is not reused.
    if (!reply.transient) return fail(last.code(), last.message());
    const std::string why = describe_failure(last, reply, deadline);
    const std::string tries = " after " + std::to_string(attempt) + (attempt == 1 ? " attempt" : " attempts");
    if (deadline.passed() || (reply.timed_out && deadline.due()))
      return fail(ErrorCode::io_error, "the " + std::string(deadline.option) + " of " + seconds_text(deadline.ms) +
                                           " passed" + tries + " (last: " + why + ")" + hint(deadline.option));
    if (attempt >= settings_.max_attempts) return fail(ErrorCode::io_error, why + " (gave up" + tries + ")");
    auto pause = wait;
    const bool server_asked = reply.retry_after_s > 0 && (reply.status == 429 || reply.status == 503);
    if (server_asked) {
      const auto asked = std::chrono::seconds(reply.retry_after_s);
      if (asked > kMaxRetryAfter)
        return fail(ErrorCode::io_error, why + " asks to retry after " + std::to_string(reply.retry_after_s) +
                                             " s, longer than the " + std::to_string(kMaxRetryAfter.count()) +
                                             " s zTensor waits (gave up" + tries + ")");
      pause = asked;
    }
    if (deadline.set() && Clock::now() + pause >= deadline.at) {
      const std::string asked = server_asked ? " asks to retry after " + std::to_string(reply.retry_after_s) + " s," : "";
      return fail(ErrorCode::io_error, why + asked + " and the " + deadline.option + " of " + seconds_text(deadline.ms) +
                                           " leaves no time to retry (gave up" + tries + ")" + hint(deadline.option));
    }
    std::this_thread::sleep_for(pause);
    wait = std::min(wait * 2, std::chrono::duration_cast<Clock::duration>(kMaxBackoff));
  }
}

}  // namespace zt::http
