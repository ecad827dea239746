// Which HTTP redirects a remote read may follow (RedirectPolicy,
// ztensor/remote.h): a redirect from a URL a user was handed must not turn
// the reader into a probe of the user's own network (cloud metadata
// services, loopback admin ports, the LAN), nor downgrade https to http.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ztensor/remote.h"
#include "ztensor/status.h"

namespace zt::http {

// Where an address points. Everything outside the ranges listed in
// redirect_policy.cc is public.
enum class AddressClass : uint8_t { public_net, loopback, private_net, link_local, metadata, reserved };
const char* address_class_name(AddressClass c);  // "a loopback address", ...

// The class of an IPv4 or IPv6 literal ("127.0.0.1", "::1", "[fe80::1]");
// nullopt when `ip` is not a literal.
std::optional<AddressClass> classify_ip(std::string_view ip);
// A host name or literal: the literal's class, `metadata` for the cloud
// metadata service names (metadata.google.internal, ...), nullopt for any
// other name (its class is known only once it resolves).
std::optional<AddressClass> classify_host(std::string_view host);

// The parts of an absolute http(s) URL that decide its origin. Errors:
// invalid_argument (not an absolute http(s) URL).
struct Origin {
  std::string scheme;  // lower case
  std::string host;    // lower case, IPv6 without brackets
  long port = 0;       // the scheme's default when the URL has none
};
Result<Origin> parse_origin(const std::string& url);
bool same_origin(const Origin& a, const Origin& b);

// One bit per AddressClass: the addresses a connection may reach.
using ClassMask = uint32_t;
constexpr ClassMask mask_of(AddressClass c) { return ClassMask{1} << static_cast<int>(c); }
constexpr ClassMask kAnyAddress = ~ClassMask{0};

// The verdict on one redirect hop: `refusal` is empty when the hop may be
// followed, and then `allowed` says which addresses its connection may
// reach (checked when it connects, so a name resolving to a private address
// is caught too).
struct HopVerdict {
  std::string refusal;  // why not, e.g. "a link-local address"
  ClassMask allowed = kAnyAddress;
};
// `origin` is the URL the caller asked for, `origin_class` the class of the
// address it was fetched from, `from` the URL that answered with the
// redirect, `to` its target.
HopVerdict judge_redirect(RedirectPolicy policy, const Origin& origin, AddressClass origin_class, const Origin& from,
                          const Origin& to);

// "none", "same-origin", "public", "any".
const char* redirect_policy_name(RedirectPolicy p);
std::optional<RedirectPolicy> parse_redirect_policy(std::string_view text);

}  // namespace zt::http
