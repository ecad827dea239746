#include "remote/http_exchange.h"

#include "remote/ca_bundle.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <sys/socket.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>

namespace zt::http {
namespace {

// Bytes of a non-2xx body kept for the message (S3's XML error fits).
constexpr size_t kMaxErrorBody = 4096;

// libcurl's text for a refused certificate says what failed, not what to do.
std::string tls_hint(CURLcode rc) {
  if (rc != CURLE_PEER_FAILED_VERIFICATION && rc != CURLE_SSL_CACERT_BADFILE && rc != CURLE_SSL_CERTPROBLEM)
    return "";
  return " (the server's TLS certificate could not be verified: set ZT_CA_BUNDLE to the CA file that signed it)";
}

struct Transfer {
  CURL* curl;
  std::span<uint8_t> out;
  RangeReply* reply;
  ClassMask allowed;
};

bool is_success(CURL* c) {
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  return status >= 200 && status < 300;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  RangeReply& reply = *t->reply;
  if (!is_success(t->curl)) {  // a redirect's or an error's body: keep the start for the message
    const size_t keep = std::min(n, kMaxErrorBody - reply.error_body.size());
    reply.error_body.append(data, keep);
    return n;
  }
  // A 200 carrying the whole file, or a wrong range: stop at once rather
  // than buffer bytes nobody asked for (returning less aborts the transfer).
  if (n > t->out.size() - reply.received) {
    reply.overflow = true;
    return 0;
  }
  std::memcpy(t->out.data() + reply.received, data, n);
  reply.received += n;
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
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a 100-continue)
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

// Every connection's address is judged before it is made: a redirect to a
// name that resolves to a private address is refused like a literal one.
curl_socket_t on_open_socket(void* user, curlsocktype, curl_sockaddr* a) {
  auto* t = static_cast<Transfer*>(user);
  char text[INET6_ADDRSTRLEN] = {};
  const void* ip = nullptr;
  if (a->family == AF_INET) ip = &reinterpret_cast<const sockaddr_in*>(&a->addr)->sin_addr;
  if (a->family == AF_INET6) ip = &reinterpret_cast<const sockaddr_in6*>(&a->addr)->sin6_addr;
  if (t->allowed != kAnyAddress) {
    std::optional<AddressClass> cls;
    if (ip && inet_ntop(a->family, ip, text, sizeof text)) cls = classify_ip(text);
    if (!cls || !(t->allowed & mask_of(*cls))) {
      t->reply->refused_address = text[0] ? text : "an address of an unknown family";
      t->reply->refused_class = cls.value_or(AddressClass::reserved);
      return CURL_SOCKET_BAD;
    }
  }
  return ::socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
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

struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

// The request's own options on a freshly reset handle.
void set_options(CURL* c, const Request& req, const std::string& range, curl_slist* headers) {
  curl_easy_setopt(c, CURLOPT_URL, req.url->c_str());
  curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
  // Only HTTP(S); redirects are judged and followed by the caller.
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  if (const char* ca = ca_bundle()) curl_easy_setopt(c, CURLOPT_CAINFO, ca);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(req.connect_timeout_ms));
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, static_cast<long>((req.stall_timeout_ms + 999) / 1000));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(req.timeout_ms));
  // Compressed transfer encodings would break byte offsets.
  curl_easy_setopt(c, CURLOPT_HTTP_CONTENT_DECODING, 0L);
  if (req.auth && !req.auth->empty()) {
    curl_easy_setopt(c, CURLOPT_USERNAME, req.auth->user.c_str());
    curl_easy_setopt(c, CURLOPT_PASSWORD, req.auth->password.c_str());
    curl_easy_setopt(c, CURLOPT_AWS_SIGV4, req.auth->sigv4.c_str());
  }
  if (headers) curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
}

}  // namespace

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

Handle::Handle() : curl_((global_init(), curl_easy_init())) {}
Handle::~Handle() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

Status get_range(Handle& h, const Request& req, RangeReply& reply) {
  reply = RangeReply{};
  CURL* c = static_cast<CURL*>(h.get());
  if (!c) return Status(ErrorCode::io_error, "libcurl could not create a handle");
  Transfer t{c, req.out, &reply, req.allowed};
  const std::string range = std::to_string(req.first) + "-" + std::to_string(req.first + req.out.size() - 1);
  static const std::vector<std::string> kNoHeaders;
  curl_slist* list = nullptr;
  for (const std::string& line : req.auth ? req.auth->headers : kNoHeaders) {
    curl_slist* grown = curl_slist_append(list, line.c_str());
    if (!grown) {
      curl_slist_free_all(list);
      return Status(ErrorCode::io_error, "libcurl could not build the request headers");
    }
    list = grown;
  }
  std::unique_ptr<curl_slist, SlistFree> headers(list);
  curl_easy_reset(c);  // keeps the connection cache, forgets the previous request's options
  set_options(c, req, range, headers.get());
  curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
  curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, &t);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &reply);
  char error[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  const CURLcode rc = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply.status);
  char* ip = nullptr;
  if (curl_easy_getinfo(c, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK && ip) reply.primary_ip = ip;
  // A request that went out was connected: its timeout is a stall or the deadline.
  long request_bytes = 0;
  curl_off_t retry_after = 0;
  curl_easy_getinfo(c, CURLINFO_REQUEST_SIZE, &request_bytes);
  reply.connected = request_bytes > 0;
  if (curl_easy_getinfo(c, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0)
    reply.retry_after_s = static_cast<long>(retry_after);
  if (reply.status >= 300 && reply.status < 400) {
    char* location = nullptr;
    if (curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location) reply.location = location;
  }
  if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && reply.overflow)) {
    reply.transient = reply.refused_address.empty() && transient_curl_error(rc);
    reply.timed_out = rc == CURLE_OPERATION_TIMEDOUT;
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
