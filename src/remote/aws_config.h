// Where an s3:// read gets its credentials, region and endpoint, the way
// the AWS CLI and SDKs do: the caller's options, then the AWS_* environment,
// then the profile in the shared credentials and config files.
#pragma once

#include <string>

#include "ztensor/remote.h"
#include "ztensor/status.h"

namespace zt::aws {

// The region when nothing names one (the AWS CLI's own fallback).
inline constexpr const char* kDefaultRegion = "us-east-1";

struct S3Access {
  std::string key, secret, token;  // empty key: anonymous (unsigned) requests
  std::string region;
  std::string endpoint_url;  // empty: AWS itself
  std::string source;        // where the credentials came from, for messages
};

// Credentials: `key`+`secret` (+`token`) of the call; else, unless the call
// names a `profile`, AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY
// (+ AWS_SESSION_TOKEN); else the profile (`profile`, AWS_PROFILE or
// "default") in AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials), then in
// AWS_CONFIG_FILE (~/.aws/config); else none (anonymous), as with `anon`.
// Region: `region`, AWS_REGION, AWS_DEFAULT_REGION, the profile's region,
// us-east-1. Endpoint: `endpoint_url`, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL,
// the profile's endpoint_url. Errors: invalid_argument (a key without its
// secret, a profile that neither file holds), io_error (a file that exists
// but cannot be read), limit_exceeded (a file over 1 MiB).
Result<S3Access> resolve_s3_access(const RemoteOptions& call);

}  // namespace zt::aws
