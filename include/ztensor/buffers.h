// Output buffers a front end allocates for the library to fill, such as the
// Python bytes object z4ai::compress_to writes a frame into.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace zt {

// Faults in the pages of a fresh buffer the library is about to fill with
// one call instead of one trap per page, when it is large enough for that to
// pay; a small buffer is left alone. Advisory: never fails.
void prepare_output_buffer(void* data, size_t size);

// A writable private (copy-on-write) mapping of stored bytes, for front ends
// whose tensors must be writable (torch): writes stay in this process and
// never reach the file. `owner` unmaps it when its last holder lets go.
struct CopyOnWriteBytes {
  std::span<uint8_t> bytes;
  std::shared_ptr<void> owner;
};

}  // namespace zt
