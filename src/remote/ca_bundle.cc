#include "remote/ca_bundle.h"

#include <curl/curl.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

namespace zt::http {
namespace {

// Where distributions keep the system CA bundle, other than Debian's default.
constexpr const char* kKnownBundles[] = {
    "/etc/pki/tls/certs/ca-bundle.crt",                   // Fedora, RHEL, CentOS
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  // the same, newer layout
    "/etc/ssl/ca-bundle.pem",                             // openSUSE
    "/etc/ssl/cert.pem",                                  // Alpine, Arch, macOS-style
    "/etc/ssl/certs/ca-certificates.crt",                 // Debian, Ubuntu
};

bool is_file(const char* path) {
  struct stat st;
  return path && *path && ::stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

// The distribution's bundle when libcurl's compiled-in one is absent, else "".
std::string system_fallback() {
  const curl_version_info_data* info = curl_version_info(CURLVERSION_NOW);
  if (info && is_file(info->cainfo)) return {};
  for (const char* path : kKnownBundles)
    if (is_file(path)) return path;
  return {};
}

}  // namespace

const char* ca_bundle() {
  // Read per request, so a host (or a test) can set it after start; a wrong
  // path is used as given and then fails loudly in the TLS handshake.
  for (const char* var : {"ZT_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE"})
    if (const char* v = std::getenv(var); v && *v) return v;
  static const std::string fallback = system_fallback();
  return fallback.empty() ? nullptr : fallback.c_str();
}

}  // namespace zt::http
