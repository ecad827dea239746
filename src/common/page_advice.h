// Fresh multi-MB output buffers (a decoded tensor, a frame handed to Python)
// are faulted in 4 KiB at a time, at ~2 GB/s on a VM: slower than decoding.
// Transparent huge pages on the buffer's 2 MiB-aligned interior cut that
// cost ~4x. Advisory only: where the kernel says no, nothing changes.
#pragma once

#include <cstddef>

namespace zt {

// Buffers smaller than this are left alone (few faults, and often recycled
// heap memory that is already mapped).
inline constexpr size_t kHugePageAdviceMinBytes = size_t{8} << 20;

void advise_huge_pages(void* data, size_t size);

}  // namespace zt
