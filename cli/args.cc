#include "args.h"

#include <cstdio>
#include <string_view>

namespace zt::cli {

bool parse_args(std::span<char* const> args, std::span<const OptionSpec> spec, ParsedArgs* out, std::string* error) {
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (options_done || a.size() < 2 || a[0] != '-') {
      out->positionals.emplace_back(a);
      continue;
    }
    if (a == "--") {
      options_done = true;
      continue;
    }
    if (a == "-h") a = "--help";
    if (a.substr(0, 2) != "--") {
      *error = "unknown option '" + std::string(a) + "'";
      return false;
    }
    std::string_view body = a.substr(2);
    std::string_view name = body, value;
    bool inline_value = false;
    if (auto eq = body.find('='); eq != std::string_view::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      inline_value = true;
    }
    const OptionSpec* found = nullptr;
    for (const auto& s : spec)
      if (name == s.name) found = &s;
    if (!found) {
      *error = "unknown option '--" + std::string(name) + "'";
      return false;
    }
    if (out->has(found->name)) {
      *error = "option '--" + std::string(name) + "' given more than once";
      return false;
    }
    if (found->takes_value && !inline_value) {
      if (i + 1 >= args.size()) {
        *error = "option '--" + std::string(name) + "' needs a value";
        return false;
      }
      value = args[++i];
    } else if (!found->takes_value && inline_value) {
      *error = "option '--" + std::string(name) + "' takes no value";
      return false;
    }
    out->options[found->name] = std::string(value);
  }
  return true;
}

int usage_error(const std::string& command, const std::string& message) {
  std::fprintf(stderr, "zt: usage error: %s\nTry 'zt %s--help'.\n", message.c_str(),
               command.empty() ? "" : (command + " ").c_str());
  return kExitUsage;
}

}  // namespace zt::cli

#include "ztensor/status.h"

namespace zt::cli {

int status_error(const zt::Status& status) {
  std::fprintf(stderr, "zt: error: %s: %s\n", error_code_name(status.code()), status.message().c_str());
  return kExitBadInput;
}

}  // namespace zt::cli
