// zt: inspect, convert, compress and verify tensor files. Dispatches to subcommands.
#include <cstdio>
#include <string_view>

#include "args.h"
#include "command.h"

#ifndef ZT_VERSION
#define ZT_VERSION "0.0.0"
#endif

namespace {

constexpr const char* kHelp =
    "zt - inspect, convert, compress and verify .zt files and other weight formats\n"
    "\n"
    "Usage: zt COMMAND [OPTIONS] ...\n"
    "\n"
    "Commands:\n";

// After the commands' lines.
constexpr const char* kHelpTail =
    "\n"
    "Options:\n"
    "  -h, --help                    show help (also: zt COMMAND --help)\n"
    "  --version                     show the version\n"
    "\n"
    "Examples:\n"
    "  zt info model.zt\n"
    "  zt convert model.safetensors model.zt --compress zstd --checksum sha256\n"
    "  zt convert model.zt model.safetensors\n"
    "  zt verify model.zt\n"
    "  zt diff model.safetensors model.zt\n"
    "  zt compress model.safetensors model.zstn --effort max\n"
    "  zt compress model.safetensors model.zt --effort max --scheduler tcp://h:8786\n"
    "  zt decompress model.zstn model.safetensors\n"
    "  zt delta base.safetensors finetuned.safetensors finetuned.z4dm\n"
    "  zt delta --apply base.safetensors finetuned.z4dm finetuned.safetensors\n"
    "\n"
    "FILE may be .zt (v1.2, v1.1, v0.1), safetensors (or a sharded model's\n"
    "index.json), GGUF, .npy/.npz, a PyTorch zip checkpoint or .onnx; the\n"
    "format is detected from the content, ONNX's from its first fields,\n"
    "whatever the file is called (the name decides only for an index.json\n"
    "and a zip holding neither .npy members nor a torch.save record).\n"
    "FILE may also be an http://, https:// or s3:// URL of .zt, safetensors\n"
    "(or an index), GGUF or .npy, read by range. The environment bounds and\n"
    "steers those reads (docs/remote.md): ZT_HTTP_CONNECT_TIMEOUT (10),\n"
    "ZT_HTTP_STALL_TIMEOUT (30), ZT_HTTP_OPEN_DEADLINE (120),\n"
    "ZT_HTTP_READ_DEADLINE (0: none), all in seconds; ZT_HTTP_MAX_ATTEMPTS (5);\n"
    "ZT_HTTP_REDIRECTS=none|same-origin|public|any (public: same origin or\n"
    "public hosts, never https->http); ZT_HTTP_ALLOW_UNVALIDATED=1 reads from a\n"
    "server that sends no ETag/Last-Modified. s3:// uses AWS_ACCESS_KEY_ID,\n"
    "AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION, AWS_PROFILE,\n"
    "AWS_ENDPOINT_URL and ~/.aws/credentials and config.\n"
    "Every command that prints results takes --json (one JSON object or array\n"
    "on stdout).\n"
    "Exit codes: 0 ok, 1 bad input or a failed check (the error is printed),\n"
    "2 usage error, 130/143 when compress, decompress or delta is interrupted\n"
    "by SIGINT/SIGTERM (nothing is left at OUT). diff follows diff(1): 0 same,\n"
    "1 different, 2 trouble (a missing or unreadable file).\n";

void print_help(std::FILE* to) {
  std::fputs(kHelp, to);
  for (const zt::cli::Command* c : zt::cli::commands()) std::fputs(c->listing, to);
  std::fputs(kHelpTail, to);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace zt::cli;
  if (argc < 2) {
    print_help(stderr);
    return kExitUsage;
  }
  const std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_help(stdout);
    return kExitOk;
  }
  if (name == "--version" || name == "-V") {
    std::printf("zt %s (zTensor format 1.2.0)\n", ZT_VERSION);
    return kExitOk;
  }
  if (const Command* c = find_command(name))
    return run_command(*c, std::span<char* const>(argv + 2, static_cast<size_t>(argc - 2)));
  return usage_error("", "unknown command '" + std::string(name) + "'");
}
