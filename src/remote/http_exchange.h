// One HTTP range GET on a libcurl easy handle, redirects not followed: the
// body is written straight into the caller's span (never more than it holds:
// a longer body aborts the transfer), and the reply's status, validators,
// redirect target and error text are returned for the caller to judge.
// Following redirects, retrying and deadlines are http_fetch's job.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "remote/redirect_policy.h"
#include "ztensor/status.h"

namespace zt::http {

// Credentials for an s3:// read: libcurl signs each request (SigV4).
struct Auth {
  std::string user, password;        // access key id, secret access key
  std::string sigv4;                 // CURLOPT_AWS_SIGV4, e.g. "aws:amz:us-east-1:s3"
  std::vector<std::string> headers;  // "x-amz-security-token: ...", ...
  bool empty() const { return sigv4.empty(); }
};

struct Request {
  const std::string* url = nullptr;
  uint64_t first = 0;
  std::span<uint8_t> out;        // the range is [first, first + out.size())
  const Auth* auth = nullptr;    // sign the request (never for another origin)
  uint32_t connect_timeout_ms = 0;
  uint32_t stall_timeout_ms = 0; // rounded up to whole seconds (libcurl's low-speed check)
  uint32_t timeout_ms = 0;       // what is left of the deadline; 0 = none
  ClassMask allowed = kAnyAddress;  // addresses the connection may reach
};

struct RangeReply {
  long status = 0;             // HTTP status of this response
  std::string etag;            // validators, empty when the server sent none
  std::string last_modified;
  std::string content_range;   // e.g. "bytes 0-0/1234"
  std::string location;        // a 3xx's absolute target, else empty
  std::string error_body;      // the first bytes of a non-2xx body (S3's XML error)
  std::string primary_ip;      // the address the connection reached
  long retry_after_s = 0;      // Retry-After in seconds (0 when absent)
  uint64_t received = 0;       // body bytes written into the span
  bool overflow = false;       // the body was longer than the span (transfer aborted)
  bool transient = false;      // a failure worth retrying (timeout, reset, 5xx, 429)
  bool timed_out = false;      // libcurl's timeout: connect, stall or the deadline
  bool connected = false;      // a connection was made (so a timeout was not the connect's)
  std::string refused_address; // the address the request was not allowed to reach
  AddressClass refused_class = AddressClass::public_net;
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

// GET `req.url` with "Range: bytes=first-(first+out.size()-1)". ok when the
// transfer completed at the HTTP level (any status: the caller checks it);
// io_error when it did not, with `reply.transient` set when worth retrying.
Status get_range(Handle& h, const Request& req, RangeReply& reply);

// Parses "bytes FIRST-LAST/TOTAL"; false when malformed or TOTAL is "*".
bool parse_content_range(const std::string& v, uint64_t& first, uint64_t& last, uint64_t& total);

}  // namespace zt::http
