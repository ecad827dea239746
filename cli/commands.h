// The rows of the command table (command.h), one per `zt` command, each
// defined in its cmd_*.cc beside its help and run function.
#pragma once

#include "command.h"

namespace zt::cli {

extern const Command kInfoCommand;
extern const Command kLsCommand;
extern const Command kConvertCommand;
extern const Command kVerifyCommand;
extern const Command kDiffCommand;
// The z4ai codec commands.
extern const Command kCompressCommand;
extern const Command kDecompressCommand;
extern const Command kDeltaCommand;

}  // namespace zt::cli
