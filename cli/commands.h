// The `zt` subcommands. Each takes the arguments after its name and returns
// the process exit code (see args.h).
#pragma once

#include <span>

namespace zt::cli {

int cmd_info(std::span<char* const> args);
int cmd_convert(std::span<char* const> args);
int cmd_verify(std::span<char* const> args);
int cmd_ls(std::span<char* const> args);
int cmd_diff(std::span<char* const> args);
// The z4ai codec commands.
int cmd_compress(std::span<char* const> args);
int cmd_decompress(std::span<char* const> args);
int cmd_delta(std::span<char* const> args);

}  // namespace zt::cli
