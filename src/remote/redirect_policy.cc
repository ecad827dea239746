#include "remote/redirect_policy.h"

#include <arpa/inet.h>
#include <curl/curl.h>

#include <array>
#include <cctype>
#include <cstring>
#include <memory>

#include "remote/url_text.h"

namespace zt::http {
namespace {

// An address range: the first `bits` bits of `prefix` (IPv6 layout; IPv4
// ranges are written as IPv4-mapped addresses, ::ffff:a.b.c.d, so one table
// serves both families).
struct Range {
  const char* prefix;
  int bits;
  AddressClass cls;
};

// Non-public ranges (IANA special-purpose registries, RFC 6890 and
// successors). The first match wins, so the metadata hosts come before the
// ranges that hold them. Everything else is public.
constexpr Range kRanges[] = {
    {"::ffff:169.254.169.254", 128, AddressClass::metadata},  // AWS, GCP, Azure, OpenStack metadata
    {"::ffff:169.254.170.2", 128, AddressClass::metadata},    // AWS ECS task metadata
    {"::ffff:100.100.100.200", 128, AddressClass::metadata},  // Alibaba Cloud metadata
    {"fd00:ec2::254", 128, AddressClass::metadata},           // AWS metadata over IPv6
    {"::ffff:0.0.0.0", 104, AddressClass::reserved},          // 0/8 "this network" (0.0.0.0 reaches the host)
    {"::ffff:10.0.0.0", 104, AddressClass::private_net},      // 10/8
    {"::ffff:100.64.0.0", 106, AddressClass::private_net},    // 100.64/10 carrier-grade NAT
    {"::ffff:127.0.0.0", 104, AddressClass::loopback},        // 127/8
    {"::ffff:169.254.0.0", 112, AddressClass::link_local},    // 169.254/16
    {"::ffff:172.16.0.0", 108, AddressClass::private_net},    // 172.16/12
    {"::ffff:192.0.0.0", 120, AddressClass::reserved},        // 192.0.0/24 protocol assignments
    {"::ffff:192.0.2.0", 120, AddressClass::reserved},        // 192.0.2/24 documentation
    {"::ffff:192.168.0.0", 112, AddressClass::private_net},   // 192.168/16
    {"::ffff:198.18.0.0", 111, AddressClass::reserved},       // 198.18/15 benchmarking
    {"::ffff:198.51.100.0", 120, AddressClass::reserved},     // documentation
    {"::ffff:203.0.113.0", 120, AddressClass::reserved},      // documentation
    {"::ffff:224.0.0.0", 100, AddressClass::reserved},        // 224/4 multicast
    {"::ffff:240.0.0.0", 100, AddressClass::reserved},        // 240/4 reserved, broadcast
    {"::", 128, AddressClass::reserved},                      // unspecified
    {"::1", 128, AddressClass::loopback},
    {"fe80::", 10, AddressClass::link_local},
    {"fec0::", 10, AddressClass::private_net},  // site-local (deprecated, still routed inside sites)
    {"fc00::", 7, AddressClass::private_net},   // unique local
    {"ff00::", 8, AddressClass::reserved},      // multicast
    {"2001:db8::", 32, AddressClass::reserved}, // documentation
};

// Names of cloud metadata services (lower case, no trailing dot).
constexpr const char* kMetadataNames[] = {
    "metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal",
    "metadata.tencentyun.com",
};

using Address = std::array<uint8_t, 16>;

bool parse_address(std::string_view text, Address& out) {
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN) return false;
  char buf[INET6_ADDRSTRLEN] = {};
  std::memcpy(buf, text.data(), text.size());
  in_addr v4;
  if (inet_pton(AF_INET, buf, &v4) == 1) {  // as ::ffff:a.b.c.d
    out.fill(0);
    out[10] = out[11] = 0xff;
    std::memcpy(out.data() + 12, &v4, 4);
    return true;
  }
  return inet_pton(AF_INET6, buf, out.data()) == 1;
}

bool in_range(const Address& a, const Range& r) {
  Address p;
  if (!parse_address(r.prefix, p)) return false;
  const int whole = r.bits / 8, rest = r.bits % 8;
  if (std::memcmp(a.data(), p.data(), whole) != 0) return false;
  if (rest == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (a[whole] & mask) == (p[whole] & mask);
}

// IPv6 forms that carry an IPv4 address (NAT64 64:ff9b::/96, the deprecated
// IPv4-compatible ::a.b.c.d) are judged by that address.
void unwrap_ipv4(Address& a) {
  static constexpr uint8_t kNat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  static constexpr uint8_t kZero[12] = {};
  const bool nat64 = std::memcmp(a.data(), kNat64, 12) == 0;
  const bool compat = std::memcmp(a.data(), kZero, 12) == 0 && (a[12] | a[13] | a[14]) != 0;
  if (nat64 || compat) {
    std::memset(a.data(), 0, 10);
    a[10] = a[11] = 0xff;
  }
}

long default_port(const std::string& scheme) { return scheme == "https" ? 443 : 80; }

}  // namespace

const char* address_class_name(AddressClass c) {
  switch (c) {
    case AddressClass::public_net: return "a public address";
    case AddressClass::loopback: return "a loopback address";
    case AddressClass::private_net: return "a private-network address";
    case AddressClass::link_local: return "a link-local address";
    case AddressClass::metadata: return "a cloud metadata service";
    case AddressClass::reserved: return "a reserved address";
  }
  return "an unknown address";
}

std::optional<AddressClass> classify_ip(std::string_view ip) {
  Address a;
  if (!parse_address(ip, a)) return std::nullopt;
  unwrap_ipv4(a);
  for (const Range& r : kRanges)
    if (in_range(a, r)) return r.cls;
  return AddressClass::public_net;
}

std::optional<AddressClass> classify_host(std::string_view host) {
  if (auto literal = classify_ip(host)) return literal;
  std::string name = lower_ascii(host);
  while (!name.empty() && name.back() == '.') name.pop_back();
  for (const char* m : kMetadataNames)
    if (name == m) return AddressClass::metadata;
  if (name == "localhost" || name.ends_with(".localhost")) return AddressClass::loopback;  // RFC 6761
  return std::nullopt;
}

Result<Origin> parse_origin(const std::string& url) {
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> u(curl_url(), curl_url_cleanup);
  if (!u || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
    return Status(ErrorCode::invalid_argument, "not an absolute URL");
  auto part = [&](CURLUPart which, std::string& out) {
    char* v = nullptr;
    if (curl_url_get(u.get(), which, &v, 0) != CURLUE_OK || !v) return false;
    out = lower_ascii(v);
    curl_free(v);
    return true;
  };
  Origin o;
  std::string port;
  if (!part(CURLUPART_SCHEME, o.scheme) || !part(CURLUPART_HOST, o.host))
    return Status(ErrorCode::invalid_argument, "not an absolute URL");
  if (o.scheme != "http" && o.scheme != "https")
    return Status(ErrorCode::invalid_argument, "not an http or https URL");
  if (o.host.size() >= 2 && o.host.front() == '[') o.host = o.host.substr(1, o.host.size() - 2);
  o.port = part(CURLUPART_PORT, port) ? std::strtol(port.c_str(), nullptr, 10) : default_port(o.scheme);
  return o;
}

bool same_origin(const Origin& a, const Origin& b) {
  return a.scheme == b.scheme && a.host == b.host && a.port == b.port;
}

HopVerdict judge_redirect(RedirectPolicy policy, const Origin& origin, AddressClass origin_class, const Origin& from,
                          const Origin& to) {
  if (policy == RedirectPolicy::any) return {};
  if (policy == RedirectPolicy::none) return {"redirects are not followed", 0};
  if (same_origin(origin, to)) return {};
  if (policy == RedirectPolicy::same_origin) return {"another origin", 0};
  if (from.scheme == "https" && to.scheme != "https") return {"a downgrade from https to http", 0};
  // Public addresses, and the kind of address the caller already chose.
  const ClassMask allowed = mask_of(AddressClass::public_net) | mask_of(origin_class);
  if (auto cls = classify_host(to.host); cls && !(allowed & mask_of(*cls))) return {address_class_name(*cls), 0};
  return {"", allowed};
}

const char* redirect_policy_name(RedirectPolicy p) {
  switch (p) {
    case RedirectPolicy::none: return "none";
    case RedirectPolicy::same_origin: return "same-origin";
    case RedirectPolicy::public_only: return "public";
    case RedirectPolicy::any: return "any";
  }
  return "public";
}

std::optional<RedirectPolicy> parse_redirect_policy(std::string_view text) {
  const std::string t = lower_ascii(text);
  for (RedirectPolicy p : {RedirectPolicy::none, RedirectPolicy::same_origin, RedirectPolicy::public_only,
                           RedirectPolicy::any})
    if (t == redirect_policy_name(p)) return p;
  return std::nullopt;
}

}  // namespace zt::http
