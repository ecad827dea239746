#include "remote/s3_target.h"

#include <cctype>
#include <cstdio>

#include "remote/url_text.h"

namespace zt::aws {
namespace {

// SigV4 signs a hash of the payload, which S3 wants in this header: a GET
// has none, and this is the SHA-256 of the empty string (AWS's SigV4 docs).
constexpr const char* kEmptyPayloadHeader =
    "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
// Longest S3 error text kept for a message.
constexpr size_t kMaxErrorText = 300;

// RFC 3986 unreserved characters and '/' stay; everything else is %XX, as
// SigV4's canonical URI for S3 wants it (each path segment encoded once).
std::string encode_key(std::string_view key) {
  std::string out;
  for (unsigned char c : key) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

// A bucket that can be a DNS label under an https wildcard certificate.
bool virtual_host_ok(const std::string& bucket) {
  if (bucket.size() < 3 || bucket.size() > 63) return false;
  for (unsigned char c : bucket)
    if (!(std::islower(c) || std::isdigit(c) || c == '-')) return false;
  return bucket.front() != '-' && bucket.back() != '-';
}

bool region_ok(const std::string& region) {
  if (region.empty()) return false;
  for (unsigned char c : region)
    if (!(std::islower(c) || std::isdigit(c) || c == '-')) return false;
  return true;
}

std::string between(std::string_view body, std::string_view open, std::string_view close) {
  const size_t a = body.find(open);
  if (a == std::string_view::npos) return "";
  const size_t b = body.find(close, a + open.size());
  if (b == std::string_view::npos) return "";
  return std::string(body.substr(a + open.size(), std::min(b - a - open.size(), kMaxErrorText)));
}

}  // namespace

Result<S3Location> parse_s3_url(std::string_view url) {
  std::string_view rest = url.substr(std::min<size_t>(url.size(), 5));  // after "s3://"
  const size_t slash = rest.find('/');
  S3Location loc;
  loc.bucket = std::string(rest.substr(0, slash));
  if (loc.bucket.empty())
    return Status(ErrorCode::invalid_argument, "'" + std::string(url) + "': an s3:// URL names a bucket and a key");
  if (slash == std::string_view::npos || slash + 1 == rest.size())
    return Status(ErrorCode::invalid_argument, "'" + std::string(url) + "': names a bucket, not an object (s3://" +
                                                   loc.bucket + "/KEY)");
  loc.key = std::string(rest.substr(slash + 1));
  return loc;
}

Result<http::Target> s3_target(const S3Location& loc, const S3Access& access) {
  http::Target t;
  t.name = "s3://" + loc.bucket + "/" + loc.key;
  if (!region_ok(access.region))  // it goes into a host name and the signature scope
    return Status(ErrorCode::invalid_argument, "AWS region '" + access.region + "' is not a region name");
  if (!access.endpoint_url.empty()) {
    if (!is_http_url(access.endpoint_url))
      return Status(ErrorCode::invalid_argument, "S3 endpoint '" + access.endpoint_url + "' is not an http(s) URL");
    std::string base = access.endpoint_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    t.url = base + "/" + encode_key(loc.bucket) + "/" + encode_key(loc.key);
  } else {
    const std::string aws = ".amazonaws.com/";
    t.url = virtual_host_ok(loc.bucket)
                ? "https://" + loc.bucket + ".s3." + access.region + aws + encode_key(loc.key)
                : "https://s3." + access.region + aws + encode_key(loc.bucket) + "/" + encode_key(loc.key);
  }
  if (!access.key.empty()) {
    t.auth.user = access.key;
    t.auth.password = access.secret;
    t.auth.sigv4 = "aws:amz:" + access.region + ":s3";
    t.auth.headers.push_back(kEmptyPayloadHeader);
    if (!access.token.empty()) t.auth.headers.push_back("x-amz-security-token: " + access.token);
  }
  return t;
}

std::string s3_error_text(std::string_view body) {
  const std::string code = between(body, "<Code>", "</Code>");
  if (code.empty()) return "";
  const std::string message = between(body, "<Message>", "</Message>");
  return message.empty() ? code : code + ": " + message;
}

}  // namespace zt::aws
