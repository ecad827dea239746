// The remote-read options a user sets per call (include/ztensor/remote.h,
// docs/remote.md) as flags of every `zt` command that reads a URL. Each
// flag is the option's name with dashes (--read-deadline is read_deadline)
// and wins over its environment variable. Credentials are not flags: a
// command line is visible to every user of the machine (ps), so they stay
// in the environment or a profile (--profile).
#pragma once

#include <map>
#include <string>

#include "args.h"
#include "ztensor/remote.h"

namespace zt::cli {

struct RemoteFlag {
  const char* flag;    // without the leading "--"
  const char* option;  // RemoteOptions::set's key
  bool takes_value;    // false: a switch that sets the option to "true"
};

inline constexpr RemoteFlag kRemoteFlags[] = {
    {"connect-timeout", "connect_timeout", true}, {"stall-timeout", "stall_timeout", true},
    {"open-deadline", "open_deadline", true},     {"read-deadline", "read_deadline", true},
    {"max-attempts", "max_attempts", true},       {"redirects", "redirects", true},
    {"allow-unvalidated", "allow_unvalidated", false},
    {"endpoint-url", "endpoint_url", true},       {"region", "region", true},
    {"profile", "profile", true},                 {"anon", "anon", false},
};

// The flags' lines of a command's --help.
extern const char* const kRemoteFlagsHelp;

// The remote options the command line gave: the options themselves, and
// their texts by option name (what the Python front end takes as
// storage_options).
struct RemoteArgs {
  RemoteOptions options;
  std::map<std::string, std::string> texts;
  bool any() const { return !texts.empty(); }
};

// Reads the flags of kRemoteFlags from `a`. Returns false with *error
// naming the flag for a value its option cannot take.
bool remote_args_from(const ParsedArgs& a, RemoteArgs* out, std::string* error);

// zt reads URLs but writes local files only: the usage error for an OUT
// that is a URL (scheme://...), or "" for a path.
std::string url_output_error(const std::string& out);

}  // namespace zt::cli
