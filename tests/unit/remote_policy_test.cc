// The pure parts of remote reads: address classes and the redirect verdict,
// options by name and from the environment, s3:// URLs and the AWS
// credential chain (the network paths are tested against real servers in
// tests/python/test_redirects.py, test_remote_bounds.py, test_s3_native.py).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "remote/aws_config.h"
#include "remote/redirect_policy.h"
#include "remote/remote_settings.h"
#include "remote/s3_target.h"
#include "test_util.h"

namespace zt {
namespace {

using http::AddressClass;

TEST(AddressClass, NamesEveryNonPublicRange) {
  const std::map<std::string, AddressClass> cases = {
      {"127.0.0.1", AddressClass::loopback},       {"127.9.9.9", AddressClass::loopback},
      {"::1", AddressClass::loopback},             {"[::1]", AddressClass::loopback},
      {"10.1.2.3", AddressClass::private_net},     {"172.16.0.1", AddressClass::private_net},
      {"172.31.255.255", AddressClass::private_net}, {"192.168.1.1", AddressClass::private_net},
      {"100.64.0.1", AddressClass::private_net},   {"fd12::1", AddressClass::private_net},
      {"169.254.1.1", AddressClass::link_local},   {"fe80::1", AddressClass::link_local},
      {"169.254.169.254", AddressClass::metadata}, {"fd00:ec2::254", AddressClass::metadata},
      {"100.100.100.200", AddressClass::metadata}, {"::ffff:169.254.169.254", AddressClass::metadata},
      {"64:ff9b::a9fe:a9fe", AddressClass::metadata},  // NAT64 form of 169.254.169.254
      {"::ffff:127.0.0.1", AddressClass::loopback}, {"0.0.0.0", AddressClass::reserved},
      {"::", AddressClass::reserved},              {"224.0.0.1", AddressClass::reserved},
      {"255.255.255.255", AddressClass::reserved}, {"8.8.8.8", AddressClass::public_net},
      {"172.32.0.1", AddressClass::public_net},    {"2606:4700::1111", AddressClass::public_net},
  };
  for (const auto& [ip, cls] : cases) {
    auto got = http::classify_ip(ip);
    ASSERT_TRUE(got.has_value()) << ip;
    EXPECT_EQ(*got, cls) << ip << " is " << http::address_class_name(*got);
  }
  EXPECT_FALSE(http::classify_ip("example.org").has_value());
  EXPECT_FALSE(http::classify_ip("").has_value());
}

TEST(AddressClass, KnowsMetadataNamesAndLocalhost) {
  EXPECT_EQ(http::classify_host("metadata.google.internal"), AddressClass::metadata);
  EXPECT_EQ(http::classify_host("METADATA.google.internal."), AddressClass::metadata);
  EXPECT_EQ(http::classify_host("localhost"), AddressClass::loopback);
  EXPECT_EQ(http::classify_host("10.0.0.1"), AddressClass::private_net);
  EXPECT_FALSE(http::classify_host("cdn.example.org").has_value());
}

http::Origin origin(const std::string& url) {
  auto o = http::parse_origin(url);
  EXPECT_TRUE(o.ok()) << url << ": " << o.status().message();
  return o.ok() ? o.value() : http::Origin{};
}

std::string verdict(RedirectPolicy p, const std::string& from, const std::string& to,
                    AddressClass origin_class = AddressClass::public_net) {
  return http::judge_redirect(p, origin(from), origin_class, origin(from), origin(to)).refusal;
}

TEST(RedirectPolicy, PublicFollowsSameOriginAndPublicHostsOnly) {
  const auto pub = RedirectPolicy::public_only;
  EXPECT_EQ(verdict(pub, "https://a.org/m.zt", "https://a.org/b/m.zt"), "");
  EXPECT_EQ(verdict(pub, "https://a.org/m.zt", "https://cdn.b.org/m.zt"), "");
  EXPECT_EQ(verdict(pub, "http://a.org/m.zt", "https://cdn.b.org/m.zt"), "");  // a stronger scheme
  EXPECT_EQ(verdict(pub, "https://a.org/m.zt", "http://cdn.b.org/m.zt"), "a downgrade from https to http");
  EXPECT_EQ(verdict(pub, "http://a.org/m.zt", "http://169.254.169.254/latest/meta-data/"), "a cloud metadata service");
  EXPECT_EQ(verdict(pub, "http://a.org/m.zt", "http://metadata.google.internal/"), "a cloud metadata service");
  EXPECT_EQ(verdict(pub, "http://a.org/m.zt", "http://127.0.0.1:8080/"), "a loopback address");
  EXPECT_EQ(verdict(pub, "http://a.org/m.zt", "http://[fe80::1]/"), "a link-local address");
  EXPECT_EQ(verdict(pub, "http://a.org/m.zt", "http://192.168.0.10/"), "a private-network address");
  // The caller already reads from a loopback server: other loopback ports are its own.
  EXPECT_EQ(verdict(pub, "http://127.0.0.1:1/m.zt", "http://127.0.0.1:2/m.zt", AddressClass::loopback), "");
  EXPECT_EQ(verdict(pub, "http://127.0.0.1:1/m.zt", "http://10.0.0.5/m.zt", AddressClass::loopback),
            "a private-network address");
  EXPECT_EQ(verdict(pub, "http://127.0.0.1:1/m.zt", "http://169.254.169.254/", AddressClass::loopback),
            "a cloud metadata service");
}

TEST(RedirectPolicy, OtherPolicies) {
  EXPECT_EQ(verdict(RedirectPolicy::none, "https://a.org/x", "https://a.org/y"), "redirects are not followed");
  EXPECT_EQ(verdict(RedirectPolicy::same_origin, "https://a.org/x", "https://a.org:443/y"), "");
  EXPECT_EQ(verdict(RedirectPolicy::same_origin, "https://a.org/x", "https://b.org/y"), "another origin");
  EXPECT_EQ(verdict(RedirectPolicy::same_origin, "https://a.org/x", "http://a.org/y"), "another origin");
  EXPECT_EQ(verdict(RedirectPolicy::any, "https://a.org/x", "http://169.254.169.254/"), "");
  // Under "public" the addresses a followed hop may reach: public ones and the origin's kind.
  auto v = http::judge_redirect(RedirectPolicy::public_only, origin("http://a.org/"), AddressClass::loopback,
                                origin("http://a.org/"), origin("http://b.org/"));
  EXPECT_EQ(v.allowed, http::mask_of(AddressClass::public_net) | http::mask_of(AddressClass::loopback));
  EXPECT_FALSE(http::parse_origin("file:///etc/passwd").ok());
}

TEST(RemoteOptions, SetsByNameAndRefusesBadValues) {
  RemoteOptions o;
  EXPECT_TRUE(o.set("connect_timeout", "2.5").ok());
  EXPECT_EQ(o.connect_timeout_ms, 2500u);
  EXPECT_TRUE(o.set("read_deadline", "0").ok());
  EXPECT_EQ(o.read_deadline_ms, 0u);
  EXPECT_TRUE(o.set("redirects", "same-origin").ok());
  EXPECT_EQ(o.redirects, RedirectPolicy::same_origin);
  EXPECT_TRUE(o.set("allow_unvalidated", "true").ok());
  EXPECT_TRUE(o.set("endpoint_url", "http://127.0.0.1:9000").ok());
  for (auto [key, value] : {std::pair{"connect_timeout", "0"}, {"connect_timeout", "-1"}, {"stall_timeout", "nan"},
                            {"open_deadline", "90000"}, {"max_attempts", "0"}, {"max_attempts", "101"},
                            {"redirects", "sometimes"}, {"anon", "maybe"}, {"no_such_option", "1"}}) {
    Status s = o.set(key, value);
    EXPECT_EQ(s.code(), ErrorCode::invalid_argument) << key << "=" << value;
    EXPECT_NE(s.message().find(key), std::string::npos) << s.message();
  }
}

// Sets (or, with nullopt, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    value ? setenv(name, value->c_str(), 1) : unsetenv(name);
  }
  ~ScopedEnv() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(RemoteOptions, EnvironmentUnderTheCallOverTheDefaults) {
  ScopedEnv stall("ZT_HTTP_STALL_TIMEOUT", "3");
  ScopedEnv redirects("ZT_HTTP_REDIRECTS", "none");
  RemoteOptions call;
  ASSERT_TRUE(call.set("redirects", "any").ok());
  auto s = http::resolve_settings(call);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->stall_timeout_ms, 3000u);
  EXPECT_EQ(s->redirects, RedirectPolicy::any);
  EXPECT_EQ(s->connect_timeout_ms, http::kDefaultConnectTimeoutMs);
  ScopedEnv bad("ZT_HTTP_MAX_ATTEMPTS", "lots");
  auto refused = http::resolve_settings({});
  EXPECT_EQ(refused.status().code(), ErrorCode::invalid_argument);
  EXPECT_NE(refused.status().message().find("ZT_HTTP_MAX_ATTEMPTS"), std::string::npos);
}

TEST(S3Url, BucketAndKey) {
  auto loc = aws::parse_s3_url("s3://models/dir/m v1.zt");
  ASSERT_TRUE(loc.ok());
  EXPECT_EQ(loc->bucket, "models");
  EXPECT_EQ(loc->key, "dir/m v1.zt");
  EXPECT_EQ(aws::parse_s3_url("s3://models").status().code(), ErrorCode::invalid_argument);
  EXPECT_EQ(aws::parse_s3_url("s3://models/").status().code(), ErrorCode::invalid_argument);
  EXPECT_EQ(aws::parse_s3_url("s3:///key").status().code(), ErrorCode::invalid_argument);
}

TEST(S3Url, PathStyleForEndpointsVirtualHostedForAws) {
  aws::S3Access a;
  a.region = "eu-west-1";
  a.key = "AK";
  a.secret = "S";
  auto t = aws::s3_target({"models", "dir/m v1.zt"}, a);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->url, "https://models.s3.eu-west-1.amazonaws.com/dir/m%20v1.zt");
  EXPECT_EQ(t->name, "s3://models/dir/m v1.zt");
  EXPECT_EQ(t->auth.sigv4, "aws:amz:eu-west-1:s3");
  t = aws::s3_target({"my.dotted.bucket", "k"}, a);  // no wildcard certificate covers dots
  EXPECT_EQ(t->url, "https://s3.eu-west-1.amazonaws.com/my.dotted.bucket/k");
  a.endpoint_url = "http://127.0.0.1:5000/";
  a.key.clear();
  t = aws::s3_target({"models", "m.zt"}, a);
  EXPECT_EQ(t->url, "http://127.0.0.1:5000/models/m.zt");
  EXPECT_TRUE(t->auth.empty());  // anonymous
  a.region = "us-east-1.evil.org/";
  EXPECT_EQ(aws::s3_target({"models", "m.zt"}, a).status().code(), ErrorCode::invalid_argument);
}

TEST(S3Url, ErrorDocument) {
  EXPECT_EQ(aws::s3_error_text("<Error><Code>NoSuchKey</Code><Message>The specified key does not exist."
                               "</Message></Error>"),
            "NoSuchKey: The specified key does not exist.");
  EXPECT_EQ(aws::s3_error_text("<html>nope</html>"), "");
}

class AwsChain : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) / "aws_chain";
    std::filesystem::create_directories(dir_);
    write("credentials", "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = FILESECRET\n"
                         "[other]\naws_access_key_id=OTHERKEY\naws_secret_access_key=OTHERSECRET\n"
                         "aws_session_token = OTHERTOKEN\n");
    write("config", "[default]\nregion = eu-central-1\n[profile other]\nregion=ap-south-1\n"
                    "endpoint_url = http://127.0.0.1:9000\ns3 =\n  addressing_style = path\n");
  }
  void write(const char* name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::string path(const char* name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

TEST_F(AwsChain, ProfilesEnvironmentAndCallInOrder) {
  ScopedEnv cred("AWS_SHARED_CREDENTIALS_FILE", path("credentials")), conf("AWS_CONFIG_FILE", path("config"));
  ScopedEnv k("AWS_ACCESS_KEY_ID", std::nullopt), s("AWS_SECRET_ACCESS_KEY", std::nullopt),
      t("AWS_SESSION_TOKEN", std::nullopt), p("AWS_PROFILE", std::nullopt), r("AWS_REGION", std::nullopt),
      dr("AWS_DEFAULT_REGION", std::nullopt), e("AWS_ENDPOINT_URL", std::nullopt),
      es("AWS_ENDPOINT_URL_S3", std::nullopt);
  auto a = aws::resolve_s3_access({});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->key, "FILEKEY");
  EXPECT_EQ(a->region, "eu-central-1");
  EXPECT_EQ(a->endpoint_url, "");
  {
    ScopedEnv env_key("AWS_ACCESS_KEY_ID", "ENVKEY"), env_secret("AWS_SECRET_ACCESS_KEY", "ENVSECRET");
    ScopedEnv region("AWS_REGION", "us-west-2");
    a = aws::resolve_s3_access({});
    EXPECT_EQ(a->key, "ENVKEY");
    EXPECT_EQ(a->region, "us-west-2");
    RemoteOptions named;  // a profile named by the caller wins over the environment's keys
    ASSERT_TRUE(named.set("profile", "other").ok());
    a = aws::resolve_s3_access(named);
    EXPECT_EQ(a->key, "OTHERKEY");
    EXPECT_EQ(a->token, "OTHERTOKEN");
    EXPECT_EQ(a->endpoint_url, "http://127.0.0.1:9000");
  }
  {
    ScopedEnv profile("AWS_PROFILE", "absent");
    EXPECT_EQ(aws::resolve_s3_access({}).status().code(), ErrorCode::invalid_argument);
  }
  RemoteOptions call;
  ASSERT_TRUE(call.set("key", "CALLKEY").ok());
  EXPECT_EQ(aws::resolve_s3_access(call).status().code(), ErrorCode::invalid_argument);  // no secret
  ASSERT_TRUE(call.set("secret", "CALLSECRET").ok());
  EXPECT_EQ(aws::resolve_s3_access(call)->key, "CALLKEY");
  ASSERT_TRUE(call.set("anon", "true").ok());
  EXPECT_EQ(aws::resolve_s3_access(call)->key, "");
}

}  // namespace
}  // namespace zt
