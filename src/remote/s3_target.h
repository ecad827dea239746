// An s3://bucket/key URL as the HTTPS request that reads it: path-style
// against a custom endpoint (moto, MinIO, Ceph, R2...), virtual-hosted
// against AWS, signed with SigV4 by libcurl unless anonymous.
#pragma once

#include <string>

#include "remote/aws_config.h"
#include "remote/http_fetch.h"
#include "ztensor/status.h"

namespace zt::aws {

struct S3Location {
  std::string bucket, key;
};

// Errors: invalid_argument (no bucket, or no key: a bucket is not a file).
Result<S3Location> parse_s3_url(std::string_view url);

// The request target for `loc` with `access`. Errors: invalid_argument (an
// endpoint that is not an http(s) URL).
Result<http::Target> s3_target(const S3Location& loc, const S3Access& access);

// S3's error document (<Code>NoSuchKey</Code><Message>...</Message>) as
// "NoSuchKey: The specified key does not exist."; "" when `body` has none.
std::string s3_error_text(std::string_view body);

}  // namespace zt::aws
