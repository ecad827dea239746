#include "remote/url_text.h"

#include <cctype>
#include <cstdint>
#include <cstdio>

namespace zt {
namespace {

bool has_scheme(std::string_view path, std::string_view scheme) {
  if (path.size() < scheme.size()) return false;
  for (size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(path[i])) != scheme[i]) return false;
  return true;
}

}  // namespace

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_http_url(std::string_view path) { return has_scheme(path, "http://") || has_scheme(path, "https://"); }

bool is_s3_url(std::string_view path) { return has_scheme(path, "s3://"); }

std::string redact_url(std::string_view url) {
  url = url.substr(0, url.find_first_of("?#"));
  const size_t host = url.find("://");
  if (host == std::string_view::npos) return std::string(url);
  const size_t path = url.find('/', host + 3);
  const size_t at = url.substr(0, path).rfind('@');
  if (at == std::string_view::npos || at < host) return std::string(url);
  return std::string(url.substr(0, host + 3)) + std::string(url.substr(at + 1));
}

std::string seconds_text(uint32_t ms) {
  char buf[32];
  if (ms % 1000 == 0)
    std::snprintf(buf, sizeof buf, "%u s", ms / 1000);
  else
    std::snprintf(buf, sizeof buf, "%g s", ms / 1000.0);
  return buf;
}

}  // namespace zt
