// A byte vector whose resize() leaves new bytes uninitialised, for buffers
// that are written in full before they are read (transform streams, decoded
// streams): zero-filling them is wasted work, a memset per first use.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace z4ai::detail {

template <class T>
struct NoInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() = default;
  template <class U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using StreamBytes = std::vector<uint8_t, NoInitAllocator<uint8_t>>;

}  // namespace z4ai::detail
