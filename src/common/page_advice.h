// Fresh multi-MB output buffers (a decoded tensor, a frame handed to Python)
// are faulted in 4 KiB at a time, one trap per page, at ~2 GB/s on a VM:
// slower than decoding. Populating the range in one madvise call does the
// same page work without the traps (~1.3x faster here). Transparent huge
// pages were tried and dropped: on a VM a fresh 2 MiB page can be host-cold
// and cost 10x more than the 4 KiB pages the kernel recycles.
#pragma once

#include <cstddef>

namespace zt {

// Callers prefault only buffers of at least this size: smaller ones have few
// faults and are often recycled heap memory that is already mapped. A
// decoder prefaults chunk by chunk in the thread that fills the chunk, so
// the page work stays parallel.
inline constexpr size_t kPrefaultMinBytes = size_t{8} << 20;

// Advisory: on kernels without MADV_POPULATE_WRITE (< 5.14) nothing happens.
// Pages already resident (mincore) are skipped: a repeated call's output is
// often recycled heap memory.
void prefault_pages(void* data, size_t size);

}  // namespace zt
