// Throughput of the field-split, byte-plane and exponent-pair kernels against
// the library's scalar loops (codec/transform/field_kernels_scalar.h, which
// also finish each SIMD kernel's tail), on the same buffers in the same run.
// The "bytes" counter is the tensor size (split input = merge output) per
// second, SI units (G/s = GB/s). Each kernel runs on 45 MB of bf16 / 90 MB of
// fp32 weights (memory-bound) and on one 4 MiB codec chunk (cache-resident,
// what the codec sees per call).
//   field_kernels_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "codec/transform/field_kernels.h"
#include "codec/transform/field_kernels_scalar.h"

namespace {

namespace zd = z4ai::detail;
namespace zs = z4ai::detail::scalar;

constexpr size_t kChunkBytes = 4u << 20;

using Streams = std::vector<std::vector<uint8_t>>;
struct Ptrs {
  std::vector<uint8_t*> w;
  std::vector<const uint8_t*> r;
  explicit Ptrs(Streams& s) {
    for (auto& v : s) w.push_back(v.data()), r.push_back(v.data());
  }
};

// One tensor of Gaussian weights (std 0.02, the exponents of real
// checkpoints) with every encoded form precomputed by the scalar reference.
struct Case {
  size_t width, n;
  std::vector<uint8_t> tensor, out;
  Streams fields, planes, planes8;  // field split; byte planes of width `width` and of width 8
  uint8_t base = 0;
  size_t n_esc = 0;
  std::vector<uint8_t> pairs, esc;

  Case(size_t w, size_t bytes) : width(w), n(bytes / w), tensor(bytes), out(bytes) {
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 0.02f);
    for (size_t i = 0; i < n; ++i) {
      float f = normal(rng);
      std::memcpy(&tensor[i * w], reinterpret_cast<const uint8_t*>(&f) + (4 - w), w);  // bf16 = top half
    }
    fields.assign(w, std::vector<uint8_t>(n));
    planes = fields;
    planes8.assign(8, std::vector<uint8_t>(bytes / 8));
    Ptrs f(fields);
    if (w == 2) zs::bf16_split(tensor.data(), n, f.w[0], f.w[1]);
    else zs::fp32_split(tensor.data(), n, f.w[0], f.w[1], f.w[2], f.w[3]);
    base = best_base(fields[0]);
    pairs.resize((n + 1) / 2);
    esc.resize(n);
    n_esc = zs::pack_exponent_pairs(fields[0].data(), n, base, pairs.data(), esc.data());
  }
  // The base that leaves the fewest escapes.
  static uint8_t best_base(const std::vector<uint8_t>& exp) {
    std::vector<size_t> hist(256);
    for (uint8_t e : exp) ++hist[e];
    size_t best = 0, best_cover = 0;
    for (size_t b = 0; b < 256; ++b) {
      size_t cover = 0;
      for (size_t k = 0; k < 15; ++k) cover += hist[(b + k) & 0xFF];
      if (cover > best_cover) best = b, best_cover = cover;
    }
    return uint8_t(best);
  }
};

// range(0): element width (2 = bf16, 4 = fp32); range(1): 1 = full size, 0 = one chunk.
Case& get(const benchmark::State& s) {
  static std::map<std::pair<int64_t, int64_t>, std::unique_ptr<Case>> cache;
  auto& c = cache[{s.range(0), s.range(1)}];
  if (!c) {
    size_t w = size_t(s.range(0));
    c = std::make_unique<Case>(w, s.range(1) ? (w == 2 ? 45'000'000 : 90'000'000) : kChunkBytes);
  }
  return *c;
}

template <class F>
void run(benchmark::State& state, const Case& c, F body) {
  for (auto _ : state) {
    body();
    benchmark::ClobberMemory();
  }
  state.counters["bytes"] = benchmark::Counter(double(c.tensor.size()), benchmark::Counter::kIsIterationInvariantRate);
}

void FieldSplit(benchmark::State& s, bool simd) {
  Case& c = get(s);
  Ptrs f(c.fields);
  run(s, c, [&] {
    if (c.width == 2) {
      if (simd) zd::bf16_split_kernel(c.tensor.data(), c.n, f.w[0], f.w[1]);
      else zs::bf16_split(c.tensor.data(), c.n, f.w[0], f.w[1]);
    } else {
      if (simd) zd::fp32_split_kernel(c.tensor.data(), c.n, f.w[0], f.w[1], f.w[2], f.w[3]);
      else zs::fp32_split(c.tensor.data(), c.n, f.w[0], f.w[1], f.w[2], f.w[3]);
    }
  });
}
void FieldMerge(benchmark::State& s, bool simd) {
  Case& c = get(s);
  Ptrs f(c.fields);
  run(s, c, [&] {
    if (c.width == 2) {
      if (simd) zd::bf16_merge_kernel(f.r[0], f.r[1], c.n, c.out.data());
      else zs::bf16_merge(f.r[0], f.r[1], c.n, c.out.data());
    } else {
      if (simd) zd::fp32_merge_kernel(f.r[0], f.r[1], f.r[2], f.r[3], c.n, c.out.data());
      else zs::fp32_merge(f.r[0], f.r[1], f.r[2], f.r[3], c.n, c.out.data());
    }
  });
}

// Byte planes of the element width; PlanesX8 views the same bytes as 8-byte elements.
template <uint32_t W>
void split(bool simd, const Case& c, Ptrs& p, size_t n) {
  if (simd) zd::split_planes_kernel(c.tensor.data(), n, W, p.w.data());
  else zs::split_planes(c.tensor.data(), n, W, p.w.data());
}
template <uint32_t W>
void join(bool simd, Case& c, Ptrs& p, size_t n) {
  if (simd) zd::join_planes_kernel(p.r.data(), n, W, c.out.data());
  else zs::join_planes(p.r.data(), n, W, c.out.data());
}
void PlanesSplit(benchmark::State& s, bool simd) {
  Case& c = get(s);
  Ptrs p(c.planes);
  run(s, c, [&] { c.width == 2 ? split<2>(simd, c, p, c.n) : split<4>(simd, c, p, c.n); });
}
void PlanesJoin(benchmark::State& s, bool simd) {
  Case& c = get(s);
  Ptrs p(c.planes);
  run(s, c, [&] { c.width == 2 ? join<2>(simd, c, p, c.n) : join<4>(simd, c, p, c.n); });
}
void PlanesX8Split(benchmark::State& s, bool simd) {
  Case& c = get(s);
  Ptrs p(c.planes8);
  run(s, c, [&] { split<8>(simd, c, p, c.tensor.size() / 8); });
}
void PlanesX8Join(benchmark::State& s, bool simd) {
  Case& c = get(s);
  Ptrs p(c.planes8);
  run(s, c, [&] { join<8>(simd, c, p, c.tensor.size() / 8); });
}

// Exponent pairs: split fused with packing; the decoder's escape count
// check followed by the fused merge.
void PairedSplit(benchmark::State& s, bool simd) {
  Case& c = get(s);
  Ptrs f(c.fields);
  size_t k = 0;
  run(s, c, [&] {
    if (c.width == 2) {
      k = simd ? zd::bf16_split_paired(c.tensor.data(), c.n, c.base, c.pairs.data(), c.esc.data(), f.w[1])
               : zs::bf16_split_paired(c.tensor.data(), c.n, c.base, c.pairs.data(), c.esc.data(), f.w[1]);
    } else {
      k = simd ? zd::fp32_split_paired(c.tensor.data(), c.n, c.base, c.pairs.data(), c.esc.data(), f.w[1], f.w[2],
                                       f.w[3])
               : zs::fp32_split_paired(c.tensor.data(), c.n, c.base, c.pairs.data(), c.esc.data(), f.w[1],
                                             f.w[2], f.w[3]);
    }
  });
  if (k != c.n_esc) s.SkipWithError("escape count differs from the reference");
  s.counters["escape_pct"] = 100.0 * double(c.n_esc) / double(c.n);
}
void PairedMerge(benchmark::State& s, bool simd) {
  Case& c = get(s);
  Ptrs f(c.fields);
  bool ok = true;
  run(s, c, [&] {
    size_t k = 0;
    if (simd) {
      ok &= zd::count_pair_escapes(c.pairs.data(), c.n, &k) && k == c.n_esc;
      if (c.width == 2) zd::bf16_merge_paired(c.pairs.data(), c.esc.data(), c.base, f.r[1], c.n, c.out.data());
      else zd::fp32_merge_paired(c.pairs.data(), c.esc.data(), c.base, f.r[1], f.r[2], f.r[3], c.n, c.out.data());
    } else {
      ok &= zs::count_pair_escapes(c.pairs.data(), c.n, &k) && k == c.n_esc;
      const uint8_t* esc = c.esc.data();  // the scalar merge advances it
      if (c.width == 2) zs::bf16_merge_paired(c.pairs.data(), esc, c.base, f.r[1], 0, c.n, c.out.data());
      else zs::fp32_merge_paired(c.pairs.data(), esc, c.base, f.r[1], f.r[2], f.r[3], 0, c.n, c.out.data());
    }
  });
  if (!ok || c.out != c.tensor) s.SkipWithError("merge did not restore the tensor");
}

void Args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"width", "full"})->Unit(benchmark::kMillisecond);
  for (int64_t full : {1, 0})
    for (int64_t w : {2, 4}) b->Args({w, full});
}

#define ZT_PAIR(fn)                                   \
  BENCHMARK_CAPTURE(fn, scalar, false)->Apply(Args); \
  BENCHMARK_CAPTURE(fn, simd, true)->Apply(Args)

ZT_PAIR(FieldSplit);
ZT_PAIR(FieldMerge);
ZT_PAIR(PlanesSplit);
ZT_PAIR(PlanesJoin);
ZT_PAIR(PlanesX8Split);
ZT_PAIR(PlanesX8Join);
ZT_PAIR(PairedSplit);
ZT_PAIR(PairedMerge);

}  // namespace

BENCHMARK_MAIN();
