// A tiny command-line parser: long options (--name VALUE, --name=VALUE),
// flags, positionals, and "--" to end options. Enough for `zt`; no deps.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

namespace zt::cli {

struct OptionSpec {
  const char* name;  // without the leading "--"
  bool takes_value;
};

struct ParsedArgs {
  std::vector<std::string> positionals;
  std::map<std::string, std::string> options;  // name -> value ("" for flags)

  bool has(const std::string& name) const { return options.count(name) != 0; }
  const std::string* get(const std::string& name) const {
    auto it = options.find(name);
    return it == options.end() ? nullptr : &it->second;
  }
};

// Parses args[0..]. "-h" is accepted as "--help". Returns false and sets
// *error for an unknown option, a missing value, or a repeated option.
bool parse_args(std::span<char* const> args, std::span<const OptionSpec> spec, ParsedArgs* out, std::string* error);

// Exit codes of `zt`: 0 ok, 1 bad input, 2 usage error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;
// `zt diff` follows diff(1): 0 same, 1 differ, 2 trouble (a file that is
// missing or does not read, as well as a usage error).
inline constexpr int kExitDiffDiffer = 1;
inline constexpr int kExitDiffTrouble = 2;

// Prints "zt: usage error: MSG" and a hint to stderr; returns kExitUsage.
int usage_error(const std::string& command, const std::string& message);

}  // namespace zt::cli

namespace zt {
class Status;
}

namespace zt::cli {
// Prints "zt: error: <code>: <message>" to stderr; returns kExitBadInput.
int status_error(const zt::Status& status);
}  // namespace zt::cli
