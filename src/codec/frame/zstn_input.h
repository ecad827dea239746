// How the ZSTN writer reads a safetensors file it does not map. compress_file
// gives the writer an anonymous image of the file (address space only): the
// writer asks for each tensor's bytes just before it codes or hashes them,
// they are read into the image with pread, and handed back to the kernel
// after use. Memory holds one window of tensors, as with a mapping, and a
// file truncated under the writer is an error instead of SIGBUS.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "z4ai/zstn.h"
#include "ztensor/status.h"

namespace z4ai::zstn {

struct InputPager {
  // Makes data-buffer bytes [begin, end) of the image hold the file's bytes.
  std::function<zt::Status(uint64_t begin, uint64_t end)> fetch;
  // Releases the whole pages inside [begin, end); they read as zeros until
  // fetched again. A page [begin, end) shares with a neighbour stays.
  std::function<void(uint64_t begin, uint64_t end)> drop;
  // Releases every data page, shared ones too: for when no tensor's bytes
  // are in use (after the pass over all tensors, after each window).
  std::function<void()> drop_all;
};

// compress_to over `image` (the safetensors file's size, its prefix and
// header already in place), fetching tensor bytes through `pager`.
zt::Status compress_paged(std::span<const uint8_t> image, const Options& options, const ByteSink& sink,
                          const InputPager& pager);

}  // namespace z4ai::zstn
