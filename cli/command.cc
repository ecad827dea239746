#include "command.h"

#include <cstdio>
#include <exception>
#include <new>
#include <vector>

#include "commands.h"

namespace zt::cli {
namespace {

// A new command is one more row here (and its file defining the row).
const Command* const kCommands[] = {&kInfoCommand,     &kLsCommand,       &kConvertCommand,
                                    &kVerifyCommand,   &kDiffCommand,     &kCompressCommand,
                                    &kDecompressCommand, &kDeltaCommand};

int parse_and_run(const Command& c, std::span<char* const> args) {
  std::vector<OptionSpec> spec(c.options.begin(), c.options.end());
  spec.push_back({"help", false});
  if (c.reads_urls)
    for (const RemoteFlag& f : kRemoteFlags) spec.push_back({f.flag, f.takes_value});
  ParsedArgs a;
  std::string err;
  if (!parse_args(args, spec, &a, &err)) return usage_error(c.name, err);
  if (a.has("help")) {
    std::fputs(c.help, stdout);
    if (c.reads_urls) std::printf("\n%s", kRemoteFlagsHelp);
    return kExitOk;
  }
  if (c.operands != kOperandsCheckedByRun && a.positionals.size() != c.operands)
    return usage_error(c.name, c.operands_error);
  RemoteArgs remote;
  if (!remote_args_from(a, &remote, &err)) return usage_error(c.name, err);
  ScopedRemoteOptions in_force(remote.options);  // every URL this command opens on this thread
  return c.run(Invocation{a, remote});
}

}  // namespace

std::span<const Command* const> commands() { return kCommands; }

const Command* find_command(std::string_view name) {
  for (const Command* c : kCommands)
    if (name == c->name) return c;
  return nullptr;
}

int run_command(const Command& c, std::span<char* const> args) {
  try {
    return parse_and_run(c, args);
  } catch (const std::bad_alloc&) {  // the input asked for more than this machine holds
    std::fputs("zt: error: limit_exceeded: out of memory\n", stderr);
    return c.error_exit;
  } catch (const std::exception& e) {  // a bug of ours: still a clean exit
    std::fprintf(stderr, "zt: error: internal: %s\n", e.what());
    return c.error_exit;
  }
}

}  // namespace zt::cli
