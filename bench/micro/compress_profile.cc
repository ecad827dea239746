// One z4ai compress call on a file, for a per-function instruction profile
// under callgrind (bench/README.md: "what compress costs"). The Python
// extension is stripped; this links the static library, which keeps its
// symbols.
//   compress_profile MODE FILE DTYPE [REFERENCE]
//   MODE: auto | noauto (auto_select=false) | delta (compress_delta) | mdelta (compress_model_delta)
// Prints the frame's size; with PROF_OUT set, also writes the frame there.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "z4ai/codec.h"
#include "z4ai/delta.h"
#include "z4ai/model_delta.h"

namespace {

std::vector<uint8_t> slurp(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || ((std::string(argv[1]) == "delta" || std::string(argv[1]) == "mdelta") && argc < 5)) {
    std::fprintf(stderr, "usage: %s auto|noauto|delta|mdelta FILE DTYPE|- [REFERENCE]\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const std::vector<uint8_t> data = slurp(argv[2]);
  z4ai::CompressOptions o;
  o.dtype = std::string(argv[3]) == "-" ? "" : argv[3];
  o.threads = 1;
  o.auto_select = mode != "noauto";
  zt::Result<std::vector<uint8_t>> frame = std::vector<uint8_t>{};
  if (mode == "delta") {
    frame = z4ai::compress_delta(data, slurp(argv[4]), o);
  } else if (mode == "mdelta") {
    z4ai::ModelDeltaOptions mo;
    mo.threads = 1;
    frame = z4ai::compress_model_delta(data, slurp(argv[4]), mo);
  } else {
    frame = z4ai::compress(data, o);
  }
  if (!frame.ok()) {
    std::fprintf(stderr, "%s\n", frame.status().message().c_str());
    return 1;
  }
  if (const char* out = std::getenv("PROF_OUT"))
    std::ofstream(out, std::ios::binary).write(reinterpret_cast<const char*>(frame.value().data()),
                                               std::streamsize(frame.value().size()));
  std::printf("%zu\n", frame.value().size());
  return 0;
}
