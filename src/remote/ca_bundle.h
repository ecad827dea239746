#pragma once

namespace zt::http {

// The CA certificate file for https:// reads, or nullptr to keep libcurl's compiled-in default.
// The manylinux wheel bundles Debian's libcurl, whose default (/etc/ssl/certs/ca-certificates.crt)
// does not exist on Fedora, RHEL, openSUSE or Alpine; there the distribution's own bundle is used.
// ZT_CA_BUNDLE, then CURL_CA_BUNDLE, then SSL_CERT_FILE (the curl tool's and OpenSSL's
// conventions) override both; they are read per request.
const char* ca_bundle();

}  // namespace zt::http
