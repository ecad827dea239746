// The skeleton every `zt` command fills in. A command is one row of the
// table in commands.cc: its name, its lines of `zt --help`, its own help,
// its options and the function that runs it. run_command() does the rest
// the same way for every command: parse the options, answer --help, count
// the operands, apply the remote-read flags (remote_flags.h) and turn an
// exception into an error line and the command's error exit code. Progress
// lines and summaries are shared helpers too (progress.h, codec_job.h).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "args.h"
#include "remote_flags.h"

namespace zt::cli {

// What a command's run function gets: the parsed command line.
struct Invocation {
  const ParsedArgs& args;    // options and operands (counted when the row says how many)
  const RemoteArgs& remote;  // the remote-read flags given (already in force on this thread)

  const std::string& operand(size_t i) const { return args.positionals[i]; }
  bool json() const { return args.has("json"); }
};

// A row's operand count when its run function checks them itself (their
// number or meaning depends on an option, as `delta --apply`).
inline constexpr size_t kOperandsCheckedByRun = static_cast<size_t>(-1);

struct Command {
  const char* name;
  const char* listing;                  // its lines under "Commands:" in `zt --help`
  const char* help;                     // `zt NAME --help`
  std::span<const OptionSpec> options;  // besides --help (and the remote flags)
  bool reads_urls;                      // takes the remote-read flags of remote_flags.h
  size_t operands;                      // how many, or kOperandsCheckedByRun
  const char* operands_error;           // the usage error when their count is wrong
  int error_exit;                       // exit code of an error: 1 (diff: 2, as diff(1))
  int (*run)(const Invocation&);
};

// The commands, in the order `zt --help` lists them.
std::span<const Command* const> commands();
// The command called `name`, or nullptr.
const Command* find_command(std::string_view name);

// Runs `command` on the arguments after its name; returns the exit code.
int run_command(const Command& command, std::span<char* const> args);

}  // namespace zt::cli
