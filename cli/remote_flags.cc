#include "remote_flags.h"

namespace zt::cli {

const char* const kRemoteFlagsHelp =
    "URL inputs (http://, https://, s3://; docs/remote.md), each flag winning\n"
    "over its environment variable:\n"
    "  --connect-timeout S    TCP and TLS connect, per request\n"
    "  --stall-timeout S      abort a request receiving nothing this long\n"
    "  --open-deadline S      opening a URL, retries included; 0 = none\n"
    "  --read-deadline S      one read with all its parts and retries; 0 = none\n"
    "  --max-attempts N       tries per request for transient failures (1..100)\n"
    "  --redirects POLICY     none, same-origin, public (default) or any\n"
    "  --allow-unvalidated    read from a server sending no ETag/Last-Modified\n"
    "  --endpoint-url URL     s3:// endpoint (MinIO, Ceph, R2, moto...)\n"
    "  --region REGION        s3:// region\n"
    "  --profile NAME         s3:// profile of ~/.aws/credentials and config\n"
    "  --anon                 s3:// without credentials (unsigned requests)\n"
    "  (S: seconds, fractions allowed. s3:// credentials come from the AWS_*\n"
    "  environment or a profile, never from the command line.)\n";

bool remote_args_from(const ParsedArgs& a, RemoteArgs* out, std::string* error) {
  for (const RemoteFlag& f : kRemoteFlags) {
    const std::string* value = a.get(f.flag);
    if (!value) continue;
    const std::string text = f.takes_value ? *value : "true";
    if (Status s = out->options.set(f.option, text); !s.ok()) {
      *error = "--" + std::string(f.flag) + ": " + s.message();
      return false;
    }
    out->texts[f.option] = text;
  }
  return true;
}

std::string url_output_error(const std::string& out) {
  if (out.find("://") == std::string::npos) return "";
  return "OUT '" + out + "' is a URL; zt writes local files only (write a local file and upload it, or use " +
         "ztensor.convert, which writes to object stores)";
}

}  // namespace zt::cli
