#include "common/page_advice.h"

#include <sys/mman.h>

#include <cstdint>

namespace zt {

void advise_huge_pages(void* data, size_t size) {
#ifdef MADV_HUGEPAGE
  if (size < kHugePageAdviceMinBytes) return;
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + size) & ~(kHuge - 1);
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)size;
#endif
}

}  // namespace zt
