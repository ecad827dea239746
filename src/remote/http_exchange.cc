#include "remote/http_exchange.h"

#include "remote/ca_bundle.h"

#include <curl/curl.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>

namespace zt::http {
namespace {

// A server that accepts the connection but sends nothing for this long is
// treated as a dropped connection (and retried by the caller).
constexpr long kConnectTimeoutSeconds = 10;
constexpr long kStallSeconds = 30;
constexpr long kStallBytesPerSecond = 1;
constexpr long kMaxRedirects = 5;

// libcurl's text for a refused certificate says what failed, not what to do.
std::string tls_hint(CURLcode rc) {
  if (rc != CURLE_PEER_FAILED_VERIFICATION && rc != CURLE_SSL_CACERT_BADFILE && rc != CURLE_SSL_CERTPROBLEM)
    return "";
  return " (the server's TLS certificate could not be verified: set ZT_CA_BUNDLE to the CA file that signed it)";
}

struct Transfer {
  std::span<uint8_t> out;
  RangeReply* reply;
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  // A 200 carrying the whole file, or a wrong range: stop at once rather
  // than buffer bytes nobody asked for (returning less aborts the transfer).
  if (n > t->out.size() - t->reply->received) {
    t->reply->overflow = true;
    return 0;
  }
  std::memcpy(t->out.data() + t->reply->received, data, n);
  t->reply->received += n;
  return n;
}

bool header_is(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  return true;
}

std::string header_value(std::string_view line, size_t name_size) {
  std::string_view v = line.substr(name_size + 1);
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
  return std::string(v);
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* reply = static_cast<RangeReply*>(user);
  std::string_view line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a redirect or 100-continue)
    reply->etag.clear();
    reply->last_modified.clear();
    reply->content_range.clear();
  } else if (header_is(line, "etag")) {
    reply->etag = header_value(line, 4);
  } else if (header_is(line, "last-modified")) {
    reply->last_modified = header_value(line, 13);
  } else if (header_is(line, "content-range")) {
    reply->content_range = header_value(line, 13);
  }
  return size * count;
}

bool transient_curl_error(CURLcode c) {
  switch (c) {
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_COULDNT_CONNECT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
      return true;
    default:
      return false;
  }
}

}  // namespace

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

Handle::Handle() : curl_((global_init(), curl_easy_init())) {}
Handle::~Handle() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

Status get_range(Handle& h, const std::string& url, uint64_t first, std::span<uint8_t> out, RangeReply& reply) {
  reply = RangeReply{};
  CURL* c = static_cast<CURL*>(h.get());
  if (!c) return Status(ErrorCode::io_error, "libcurl could not create a handle");
  Transfer t{out, &reply};
  const std::string range = std::to_string(first) + "-" + std::to_string(first + out.size() - 1);
  curl_easy_reset(c);  // keeps the connection cache, forgets the previous request's options
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
  // Only HTTP(S), also after a redirect (never file://, ftp://, ... from a
  // server's Location header).
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, kMaxRedirects);
  if (const char* ca = ca_bundle()) curl_easy_setopt(c, CURLOPT_CAINFO, ca);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, kConnectTimeoutSeconds);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, kStallBytesPerSecond);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, kStallSeconds);
  // Compressed transfer encodings would break byte offsets.
  curl_easy_setopt(c, CURLOPT_HTTP_CONTENT_DECODING, 0L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &reply);
  char error[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  CURLcode rc = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply.status);
  if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && reply.overflow)) {
    reply.transient = transient_curl_error(rc);
    return Status(ErrorCode::io_error, std::string(error[0] ? error : curl_easy_strerror(rc)) + tls_hint(rc));
  }
  reply.transient = reply.status >= 500 || reply.status == 429;
  return Status::Ok();
}

bool parse_content_range(const std::string& v, uint64_t& first, uint64_t& last, uint64_t& total) {
  unsigned long long a = 0, b = 0, n = 0;
  int used = 0;
  if (std::sscanf(v.c_str(), "bytes %llu-%llu/%llu%n", &a, &b, &n, &used) != 3 ||
      static_cast<size_t>(used) != v.size() || b < a)
    return false;
  first = a;
  last = b;
  total = n;
  return true;
}

}  // namespace zt::http
