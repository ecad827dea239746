// The pure parts of the HTTP byte source: URL recognition, redaction for
// messages, and Content-Range parsing (the network paths are tested against
// real servers in tests/python/test_remote.py).
#include <gtest/gtest.h>

#include "remote/url_text.h"
#include "remote/http_exchange.h"

namespace zt {
namespace {

TEST(RemoteUrl, RecognisesHttpSchemesOnly) {
  EXPECT_TRUE(is_http_url("http://h/m.zt"));
  EXPECT_TRUE(is_http_url("HTTPS://h/m.zt"));
  EXPECT_FALSE(is_http_url("ftp://h/m.zt"));
  EXPECT_FALSE(is_http_url("/data/http://x.zt"));
  EXPECT_FALSE(is_http_url("http:/"));
}

TEST(RemoteUrl, RedactsCredentialsAndQuery) {
  EXPECT_EQ(redact_url("https://user:secret@host/a/m.zt?X-Amz-Signature=abc#f"), "https://host/a/m.zt");
  EXPECT_EQ(redact_url("http://host/a@b/m.zt"), "http://host/a@b/m.zt");
  EXPECT_EQ(redact_url("http://host:8080/m.zt"), "http://host:8080/m.zt");
}

TEST(RemoteUrl, ParsesContentRange) {
  uint64_t a = 0, b = 0, n = 0;
  EXPECT_TRUE(http::parse_content_range("bytes 0-0/1234", a, b, n));
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 0u);
  EXPECT_EQ(n, 1234u);
  EXPECT_TRUE(http::parse_content_range("bytes 100-199/1000", a, b, n));
  EXPECT_EQ(b, 199u);
  EXPECT_FALSE(http::parse_content_range("bytes 0-9/*", a, b, n));      // unknown size
  EXPECT_FALSE(http::parse_content_range("bytes 9-0/10", a, b, n));     // reversed
  EXPECT_FALSE(http::parse_content_range("bytes 0-9/10 x", a, b, n));   // trailing junk
  EXPECT_FALSE(http::parse_content_range("", a, b, n));
}

}  // namespace
}  // namespace zt
