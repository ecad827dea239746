// `zt convert/compress --scheduler ADDRESS`: Dask is a Python library, so
// zt hands the conversion to the Python front end (ztensor.convert with a
// dask.distributed.Client, python/ztensor/_dask_cli.py) in a child process
// and prints the same summary a local run prints. The file written is the
// same bytes as a local run's: the writer is the same C++ converter, fed
// components the workers encoded.
#pragma once

#include <map>
#include <string>

#include "ztensor/convert.h"
#include "ztensor/status.h"

namespace zt::cli {

// The interpreter to run: $ZT_PYTHON, else python3 on PATH.
inline constexpr const char* kPythonEnv = "ZT_PYTHON";
inline constexpr const char* kDefaultPython = "python3";
// What to install when the interpreter lacks ztensor or Dask.
inline constexpr const char* kDaskInstallHint = "pip install 'ztensor[dask]'";

struct DaskConvertResult {
  ConvertStats stats;
  std::string input_format;  // as TensorSource::format_name()
};

// Converts `in` to the .zt `out` (one file, or shards with
// options.max_shard_size) with the encoding run on the workers of the Dask
// scheduler at `scheduler` (tcp://host:port); options.progress is called
// as the Python side reports objects done. On SIGINT/SIGTERM the child is
// interrupted, left to remove its temporaries, and zt exits with 128 + the
// signal. Errors: unsupported (no interpreter, or it cannot import ztensor
// or Dask: the message names kDaskInstallHint), io_error (the scheduler
// cannot be reached), and the conversion's own errors with their codes.
// `storage_options` (remote option name -> text, remote_flags.h) reach
// ztensor.convert's storage_options for a URL `in`.
Result<DaskConvertResult> convert_on_dask(const std::string& in, const std::string& out,
                                          const ConvertOptions& options, const std::string& scheduler,
                                          const std::map<std::string, std::string>& storage_options = {});

}  // namespace zt::cli
