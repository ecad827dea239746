// Runs fn(i) for i in [0, n) on up to `threads` std::threads (0 = all
// cores). Tasks are claimed from an atomic counter; results must be written
// to per-index slots so the output never depends on the thread count or
// scheduling. Shared by the codec (chunks) and the container (objects).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace zt {

inline unsigned resolve_threads(unsigned threads) {
  if (threads != 0) return threads;
  unsigned hc = std::thread::hardware_concurrency();
  return hc == 0 ? 1 : hc;
}

template <class Fn>
void parallel_for(size_t n, unsigned threads, Fn&& fn) {
  size_t workers = std::min<size_t>(resolve_threads(threads), n);
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (size_t t = 1; t < workers; ++t) pool.emplace_back(run);
  run();
  for (auto& th : pool) th.join();
}

}  // namespace zt
