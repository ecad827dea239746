// read_components: many components fetched and decoded at once, one worker
// per core. Each worker reads whole components (its fetch overlaps the
// others' decoding on a remote source) into the buffer read_component
// allocates for it, so nothing is copied twice. A worker that claims a
// component first asks the source to read the next one ahead, so a remote
// link keeps streaming while every worker decodes.
#include <algorithm>
#include <atomic>
#include <numeric>
#include <vector>

#include "common/parallel_for.h"
#include "ztensor/reader.h"
#include "ztensor/source.h"
#include "ztensor/test_pause.h"

namespace zt {
namespace {

std::atomic<uint64_t> g_batch_components_read{0};

// Indices of `refs`, largest stored component first (ties in file order):
// the longest decode starts first instead of running alone at the end.
std::vector<size_t> largest_first(std::span<const ComponentRef> refs) {
  std::vector<uint64_t> stored(refs.size(), 0);
  for (size_t i = 0; i < refs.size(); ++i)
    if (const Component* c = refs[i].object->find(refs[i].role)) stored[i] = c->length;
  std::vector<size_t> order(refs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return stored[a] > stored[b]; });
  return order;
}

}  // namespace

uint64_t batch_components_read() { return g_batch_components_read.load(); }

Result<std::vector<ComponentBytes>> read_components(const TensorSource& source, std::span<const ComponentRef> refs,
                                                    unsigned threads) {
  const unsigned total = resolve_threads(threads);
  const size_t workers = std::min<size_t>(total, refs.size());
  // Workers share the cores: a component decodes on the threads its worker
  // leaves over (all of them when it is read alone).
  const unsigned per_component = workers ? std::max(1u, static_cast<unsigned>(total / workers)) : 1u;
  const std::vector<size_t> order = largest_first(refs);
  std::vector<ComponentBytes> out(refs.size());
  std::vector<Status> failures(refs.size());
  std::atomic<bool> failed{false};
  parallel_for(refs.size(), static_cast<unsigned>(workers), [&](size_t k) {
    if (failed.load(std::memory_order_relaxed)) return;
    const size_t i = order[k];
    if (k + 1 < order.size()) source.prefetch(*refs[order[k + 1]].object, refs[order[k + 1]].role);
    test_pause("read_components:read");
    auto r = source.read_component_with_threads(*refs[i].object, refs[i].role, per_component);
    if (!r.ok()) {
      failures[i] = r.status();
      failed.store(true, std::memory_order_relaxed);
      return;
    }
    out[i] = std::move(r).value();
    g_batch_components_read.fetch_add(1);
  });
  if (failed.load()) {
    for (Status& s : failures)
      if (!s.ok()) return s;
  }
  return out;
}

}  // namespace zt
