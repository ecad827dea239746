// open_remote: an http(s):// or s3:// URL and its options to a ByteSource.
#include "ztensor/remote.h"

#include "remote/aws_config.h"
#include "remote/http_byte_source.h"
#include "remote/remote_settings.h"
#include "remote/s3_target.h"

namespace zt {

bool is_native_url(std::string_view path) { return is_http_url(path) || is_s3_url(path); }

Result<std::shared_ptr<const ByteSource>> open_remote(const std::string& url, const RemoteOptions& options) {
  ZT_ASSIGN_OR_RETURN(http::Settings settings, http::resolve_settings(options));
  if (is_http_url(url)) {
    ZT_ASSIGN_OR_RETURN(auto fetcher, http::Fetcher::create({url, redact_url(url), {}}, settings));
    return http::open_byte_source(std::move(fetcher), {});
  }
  if (is_s3_url(url)) {
    ZT_ASSIGN_OR_RETURN(aws::S3Location loc, aws::parse_s3_url(url));
    ZT_ASSIGN_OR_RETURN(aws::S3Access access, aws::resolve_s3_access(options));
    ZT_ASSIGN_OR_RETURN(http::Target target, aws::s3_target(loc, access));
    ZT_ASSIGN_OR_RETURN(auto fetcher, http::Fetcher::create(std::move(target), settings));
    return http::open_byte_source(std::move(fetcher), {true, access.source});
  }
  return Status(ErrorCode::invalid_argument, "'" + redact_url(url) + "' is not an http://, https:// or s3:// URL");
}

}  // namespace zt
