// prefault_pages: populates the pages of a range that are not resident yet
// and leaves every byte as it was.
#include "common/page_advice.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace {

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

TEST(PageAdvice, PopulatesAbsentPagesAroundResidentOnesAndKeepsTheBytes) {
  const size_t page = size_t(::sysconf(_SC_PAGESIZE)), pages = 1500;  // more than one mincore block
  void* m = ::mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  auto* p = static_cast<uint8_t*>(m);
  if (::madvise(p, page, MADV_POPULATE_WRITE) != 0) {
    ::munmap(m, pages * page);
    GTEST_SKIP() << "kernel without MADV_POPULATE_WRITE";
  }
  for (size_t i = 700; i < 900; ++i) p[i * page + 5] = uint8_t(i);  // resident in the middle
  zt::prefault_pages(p + 3, pages * page - 3);  // unaligned start: its first page is left out
  std::vector<unsigned char> resident(pages);
  ASSERT_EQ(::mincore(p, pages * page, resident.data()), 0);
  for (size_t i = 1; i < pages; ++i) EXPECT_TRUE(resident[i] & 1) << "page " << i;
  for (size_t i = 700; i < 900; ++i) EXPECT_EQ(p[i * page + 5], uint8_t(i));
  EXPECT_EQ(p[1000 * page], 0);
  ::munmap(m, pages * page);
}

}  // namespace
