// htscodecs' 32-way order-1 rANS encoder reads just outside its input. A
// tensor handed over as a view of a memory-mapped file can start (and end)
// at a page boundary, so encode_rans must never let it: the input here sits
// between two PROT_NONE pages, where the old code died with SIGSEGV.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "codec/entropy/entropy.h"

namespace z4ai::detail {
namespace {

class GuardedPages {
 public:
  explicit GuardedPages(size_t bytes) : page_(size_t(sysconf(_SC_PAGESIZE))) {
    data_bytes_ = (bytes + page_ - 1) / page_ * page_;
    total_ = data_bytes_ + 2 * page_;
    void* p = mmap(nullptr, total_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    base_ = p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
    if (base_ && mprotect(base_ + page_, data_bytes_, PROT_READ | PROT_WRITE) != 0) base_ = nullptr;
  }
  ~GuardedPages() {
    if (base_) munmap(base_, total_);
  }
  uint8_t* data() { return base_ ? base_ + page_ : nullptr; }
  size_t size() const { return data_bytes_; }

 private:
  size_t page_, data_bytes_ = 0, total_ = 0;
  uint8_t* base_ = nullptr;
};

TEST(RansGuard, Order1EncodeOfAPageBoundedInputStaysInside) {
  GuardedPages pages(256 * 1024);  // over 64 KiB: the 32-way coder
  ASSERT_NE(pages.data(), nullptr);
  for (size_t i = 0; i < pages.size(); ++i) pages.data()[i] = static_cast<uint8_t>((i * 31 + (i >> 9)) % 23);
  std::span<const uint8_t> in(pages.data(), pages.size());
  for (int order : {0, 1}) {
    std::vector<uint8_t> coded;
    ASSERT_TRUE(encode_rans(in, order, coded)) << "order " << order;
    std::vector<uint8_t> out(in.size());
    ASSERT_TRUE(decode_rans(coded, out).ok());
    EXPECT_EQ(0, std::memcmp(out.data(), in.data(), in.size()));
  }
}

}  // namespace
}  // namespace z4ai::detail
