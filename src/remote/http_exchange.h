// One HTTP range GET on a libcurl easy handle: the body is written straight
// into the caller's span (never more than it holds: a longer body aborts the
// transfer), and the reply's status and validators are returned for the
// caller to check. Retrying is the caller's job; this only says whether a
// failure is worth retrying.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ztensor/status.h"

namespace zt::http {

struct RangeReply {
  long status = 0;             // HTTP status of the final response (after redirects)
  std::string etag;            // validators, empty when the server sent none
  std::string last_modified;
  std::string content_range;   // e.g. "bytes 0-0/1234"
  uint64_t received = 0;       // body bytes written into the span
  bool overflow = false;       // the body was longer than the span (transfer aborted)
  bool transient = false;      // a failure worth retrying (timeout, reset, 5xx, 429)
};

// Initialises libcurl once per process (thread-safe).
void global_init();

// An owned easy handle (void* keeps curl.h out of this header).
class Handle {
 public:
  Handle();
  ~Handle();
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  void* get() const { return curl_; }

 private:
  void* curl_;
};

// GET `url` with "Range: bytes=first-(first+out.size()-1)". ok when the
// transfer completed at the HTTP level (any status: the caller checks it);
// io_error with `reply.transient` set when the connection failed.
Status get_range(Handle& h, const std::string& url, uint64_t first, std::span<uint8_t> out, RangeReply& reply);

// Parses "bytes FIRST-LAST/TOTAL"; false when malformed or TOTAL is "*".
bool parse_content_range(const std::string& v, uint64_t& first, uint64_t& last, uint64_t& total);

}  // namespace zt::http
