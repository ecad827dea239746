// Scale-grid transform: fitting a scale per group (encoder), the product and
// cast back to the dtype (decoder). The encoder checks every element with the
// decoder's own arithmetic, so a wrong fit only costs exceptions, never bytes.
#include "codec/transform/scale_grid.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "codec/common/byte_io.h"

namespace z4ai::detail {
namespace {

// q is one signed byte, -127..127; the byte 0x80 (-128) stands for -0, so
// that -0.0 elements (np.rint gives -0 for small negative quotients: 8 % of
// an int4 tensor) are on the grid: -0 * s = -0 for s > 0.
constexpr int kMinQ = -127;
constexpr int kMaxQ = 127;
constexpr uint8_t kNegativeZero = 0x80;
constexpr float kRoundShift = 12582912.0f;
inline float q_value(uint8_t b) {
  const float q = float(int8_t(b));
  return b == kNegativeZero ? -0.0f : q;
}
// A chunk with more exceptions than n / kMaxExceptionDivisor is not a grid:
// each exception costs ~width + 2 coded bytes, q costs one.
constexpr size_t kMaxExceptionDivisor = 64;
// Scale candidates are m / k, k = 1..divisors, m the group's smallest nonzero
// magnitude (q = +-1 is common in int8 and int4 groups; int4 groups of 32
// may lack it; int8 groups of 32 may lack every |q| below 5).
constexpr int kEncodeDivisors = 8;
constexpr int kDetectDivisors = 4;
// A candidate reproducing at least 1/4 of a group is refined: its q values
// bound the scale (the wrong ones scatter, the right ones agree). Trained
// weights miss nearly every element and stop there.
constexpr double kRefineMaxMissShare = 0.75;
constexpr int kRefinePasses = 2;
// The search stops at the first scale (largest first: smallest q) that leaves
// at most g / kGoodFitDivisor exceptions (int8 clipped to -128, outliers):
// searching on for the last few costs 20-30 passes over the group.
constexpr size_t kGoodFitDivisor = 128;
// The encoder's largest group: 1024 elements (a scale per 1024 is ~0.4 % of
// int8 q, ~1 % of int4 q; larger groups made the group-size probe cost more
// than the fit of the whole chunk).
constexpr uint8_t kEncodeMaxLog2 = 10;
// Groups probed per group size when the encoder picks G.
constexpr size_t kProbeGroups = 8;
// Detector: kDetectWindows windows of kDetectWindowElems elements; a window
// fits when a scale reproduces all but kDetectMaxMisses of it (>= 96.9 %),
// the sample is a grid when kDetectMinHits windows fit. 64 elements: an int8
// window lacks every |q| <= 4 (the candidates it tries) 0.3 % of the time,
// against 6 % for 32 (one corpus chunk in 50 missed the grid).
constexpr size_t kDetectWindows = 8;
constexpr size_t kDetectWindowElems = 64;
constexpr size_t kDetectMaxMisses = 2;
constexpr size_t kDetectMinHits = 5;
constexpr size_t kMaxGroup = size_t{1} << kEncodeMaxLog2;

uint32_t f2u(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float u2f(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// fp32 -> bf16 and fp16 bits, round to nearest even (what numpy and
// ml_dtypes do for finite values). Branch-free enough to vectorise.
inline uint16_t to_bf16(float x) {
  const uint32_t u = f2u(x);
  return uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
inline uint16_t to_fp16(float x) {
  const uint32_t u = f2u(x);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7FFFFFFFu;
  // All three computed, one selected: no branches, so loops vectorise.
  // >= 65536, inf, NaN:
  const uint32_t big = a > 0x7F800000u ? 0x7E00u : 0x7C00u;
  // Below fp16's smallest normal 2^-14, adding 0.5 puts 2^-24 (fp16's
  // subnormal step) at the last fp32 bit: the hardware's rounding does the rest.
  const uint32_t sub = f2u(u2f(a) + 0.5f) - 0x3F000000u;
  // Normal: rebias the exponent (127 -> 15), round the 13 dropped bits.
  const uint32_t normal = (a - 0x38000000u + 0xFFFu + ((a >> 13) & 1u)) >> 13;
  const uint32_t h = a >= 0x47800000u ? big : a < 0x38800000u ? sub : normal;
  return uint16_t(h | sign);
}
inline float fp16_value(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
  const float sub = u2f(sign | 0x3F800000u) * float(m) * 0x1p-24f;  // +-m * 2^-24
  const uint32_t exp = e == 31 ? 0xFFu : e + 112;
  return e == 0 ? sub : u2f(sign | exp << 23 | m << 13);
}

// The decoder's cast of a product, as element bits.
inline uint32_t cast_bits(float p, DType dt) {
  if (dt == DType::fp32) return f2u(p);
  return dt == DType::bf16 ? to_bf16(p) : to_fp16(p);
}

uint32_t element_bits(const uint8_t* src, size_t i, DType dt) {
  if (dt == DType::fp32) return load_u32(src + 4 * i);
  return load_u16(src + 2 * i);
}
float bits_value(uint32_t b, DType dt) {
  if (dt == DType::fp32) return u2f(b);
  return dt == DType::bf16 ? u2f(b << 16) : fp16_value(uint16_t(b));
}
uint32_t sign_bit(DType dt) { return dt == DType::fp32 ? 0x80000000u : 0x8000u; }
uint32_t magnitude_mask(DType dt) { return dt == DType::fp32 ? 0x7FFFFFFFu : 0x7FFFu; }
uint32_t infinity_bits(DType dt) {
  if (dt == DType::fp32) return 0x7F800000u;
  return dt == DType::bf16 ? 0x7F80u : 0x7C00u;
}

// One group: element bits and values.
struct Group {
  const uint32_t* bits;
  const float* x;
  size_t g;
  DType dt;
};

// Fits q to scale s; q_raw keeps the rounded quotient even where it missed
// (the refinement reads it). Returns the misses.
template <DType DT>
size_t try_scale_as(const Group& gr, float s, uint8_t* q, int16_t* q_raw) {
  // Vectorisable pass: the nearest q (x * 1/s may be a unit off where x / s
  // is not; the fix-up pass tries the neighbours), its product, a match?
  const float inv = 1.0f / s;
  uint8_t hit[kMaxGroup];
  size_t miss = 0;
  // Locals: q's stores could alias gr's fields.
  const size_t g = gr.g;
  const float* __restrict x = gr.x;
  const uint32_t* __restrict bits = gr.bits;
  for (size_t i = 0; i < g; ++i) {
    const float r = x[i] * inv;
    const bool in = std::abs(r) <= float(kMaxQ);  // false for NaN
    // Round to nearest even by the 1.5 * 2^23 shift (no libm call).
    const float qf = in ? (r + kRoundShift) - kRoundShift : 0.0f;
    const int qi = int(qf);
    const bool ok = in & (cast_bits(qf * s, DT) == bits[i]);
    q_raw[i] = int16_t(qi);
    q[i] = uint8_t(ok ? qi : 0);
    hit[i] = ok;
    miss += !ok;
  }
  if (miss == 0) return 0;
  // Fix-up: q one off (double rounding, 1/s), q = +-127 from just outside,
  // and -0 (s > 0).
  for (size_t i = 0; i < gr.g; ++i) {
    if (hit[i]) continue;
    if (bits[i] == sign_bit(DT)) {  // -0 (8 % of an int4 tensor): -0 * s = -0
      q[i] = kNegativeZero, --miss;
      continue;
    }
    const float r = gr.x[i] * inv;
    if (!(std::abs(r) <= float(kMaxQ) + 1)) continue;
    const int q0 = std::clamp(int(std::lrint(r)), kMinQ, kMaxQ);
    for (int qi : {q0, q0 - 1, q0 + 1}) {
      if (qi < kMinQ || qi > kMaxQ || cast_bits(float(qi) * s, DT) != gr.bits[i]) continue;
      q[i] = uint8_t(int8_t(qi)), q_raw[i] = int16_t(qi), --miss;
      break;
    }
  }
  return miss;
}

// Only the rounded quotients of x / s (for the refinement).
void quotients(const Group& gr, float s, int16_t* q_raw) {
  const float inv = 1.0f / s;
  for (size_t i = 0; i < gr.g; ++i) {
    const float r = gr.x[i] * inv;
    const float qf = (r + kRoundShift) - kRoundShift;
    q_raw[i] = int16_t(int(std::abs(r) <= float(kMaxQ) ? qf : 0.0f));
  }
}

size_t try_scale(const Group& gr, float s, uint8_t* q, int16_t* q_raw) {
  switch (gr.dt) {
    case DType::fp32: return try_scale_as<DType::fp32>(gr, s, q, q_raw);
    case DType::bf16: return try_scale_as<DType::bf16>(gr, s, q, q_raw);
    default: return try_scale_as<DType::fp16>(gr, s, q, q_raw);
  }
}

// A scale that reproduces every element whose rounded quotient is q_raw:
// each such element bounds s to (the values that round to it) / |q|; the
// middle of their intersection, or 0 when no element counts. Only quotients
// up to max_q count. When outliers empty the intersection, only the bounds
// around the median bound's centre are intersected (wrong quotients scatter,
// right ones agree).
// The intersection [lo, hi] of the counted elements' bounds (one branch-free
// pass); returns how many counted. Bounds in double for fp32 (its intervals
// are 2^-24 wide), float for bf16/fp16 (2^-9, 2^-12).
template <DType DT>
size_t intersect_bounds(const Group& gr, const int16_t* __restrict q_raw, int max_q, double& lo_out, double& hi_out) {
  using T = std::conditional_t<DT == DType::fp32, double, float>;
  const uint32_t mag_mask = magnitude_mask(DT), inf = infinity_bits(DT);
  const size_t g = gr.g;
  const uint32_t* __restrict bits = gr.bits;
  // kLanes running bounds, one per lane, so the loop is elementwise (a
  // conditional max reduction does not vectorise).
  constexpr size_t kLanes = 8;
  T lo_l[kLanes], hi_l[kLanes];
  uint32_t counted_l[kLanes];
  for (size_t j = 0; j < kLanes; ++j) lo_l[j] = 0, hi_l[j] = std::numeric_limits<T>::infinity(), counted_l[j] = 0;
  auto step = [&](size_t i, size_t j) {
    const uint32_t mag = bits[i] & mag_mask;
    const int aq = std::abs(int(q_raw[i]));
    const bool use = (aq != 0) & (aq <= max_q) & (mag != 0) & (mag < inf);
    const T v = bits_value(mag, DT);
    const T half_inv = T(0.5) / T(aq == 0 ? 1 : aq);
    // The neighbour past the largest finite value is inf: hi = inf.
    const T lo = (v + T(bits_value(mag - 1, DT))) * half_inv;
    const T hi = (v + T(bits_value(mag + 1, DT))) * half_inv;
    lo_l[j] = use & (lo > lo_l[j]) ? lo : lo_l[j];
    hi_l[j] = use & (hi < hi_l[j]) ? hi : hi_l[j];
    counted_l[j] += use;
  };
  size_t i = 0;
  for (; i + kLanes <= g; i += kLanes)
    for (size_t j = 0; j < kLanes; ++j) step(i + j, j);
  for (; i < g; ++i) step(i, 0);
  T lo_all = 0, hi_all = std::numeric_limits<T>::infinity();
  size_t counted = 0;
  for (size_t j = 0; j < kLanes; ++j)
    lo_all = std::max(lo_all, lo_l[j]), hi_all = std::min(hi_all, hi_l[j]), counted += counted_l[j];
  lo_out = double(lo_all), hi_out = double(hi_all);
  return counted;
}

double refine_scale(const Group& gr, const int16_t* q_raw, int max_q, bool robust) {
  const uint32_t mag_mask = magnitude_mask(gr.dt), inf = infinity_bits(gr.dt);
  // Element i's bounds on s, or false when it does not count.
  auto bounds = [&](size_t i, double& lo, double& hi) {
    const uint32_t mag = gr.bits[i] & mag_mask;
    const int aq = std::abs(int(q_raw[i]));
    if (aq == 0 || aq > max_q || mag == 0 || mag >= inf) return false;
    const double v = bits_value(mag, gr.dt);
    lo = (v + double(bits_value(mag - 1, gr.dt))) * 0.5 / aq;
    hi = (v + double(bits_value(mag + 1, gr.dt))) * 0.5 / aq;
    return true;
  };
  double lo_all = 0, hi_all = HUGE_VAL, lo, hi;
  size_t counted = 0;
  switch (gr.dt) {
    case DType::fp32: counted = intersect_bounds<DType::fp32>(gr, q_raw, max_q, lo_all, hi_all); break;
    case DType::bf16: counted = intersect_bounds<DType::bf16>(gr, q_raw, max_q, lo_all, hi_all); break;
    default: counted = intersect_bounds<DType::fp16>(gr, q_raw, max_q, lo_all, hi_all); break;
  }
  auto middle = [](double l, double h) { return std::isfinite(h) ? (l + h) / 2 : l; };
  if (counted == 0) return 0;
  if (lo_all < hi_all) return middle(lo_all, hi_all);
  if (!robust) return 0;
  thread_local std::vector<std::pair<double, double>> all;
  all.clear();
  for (size_t i = 0; i < gr.g; ++i)
    if (bounds(i, lo, hi)) all.push_back({lo, hi});
  auto centre = [](const std::pair<double, double>& b) { return (b.first + b.second) / 2; };
  auto mid = all.begin() + long(all.size() / 2);
  std::nth_element(all.begin(), mid, all.end(), [&](const auto& a, const auto& b) { return centre(a) < centre(b); });
  const double c = centre(*mid);
  lo_all = 0, hi_all = HUGE_VAL;
  for (const auto& b : all) {
    if (b.first > c || b.second < c) continue;
    lo_all = std::max(lo_all, b.first);
    hi_all = std::min(hi_all, b.second);
  }
  return middle(lo_all, hi_all);
}

// The smallest difference between two distinct finite nonzero magnitudes of
// the group (0 when there are fewer than two).
float smallest_gap(const Group& gr) {
  std::vector<float> mags;
  mags.reserve(gr.g);
  for (size_t i = 0; i < gr.g; ++i)
    if (std::isfinite(gr.x[i]) && gr.x[i] != 0) mags.push_back(std::abs(gr.x[i]));
  std::sort(mags.begin(), mags.end());
  float gap = HUGE_VALF;
  for (size_t i = 1; i < mags.size(); ++i)
    if (mags[i] > mags[i - 1]) gap = std::min(gap, mags[i] - mags[i - 1]);
  return std::isfinite(gap) ? gap : 0.0f;
}

// Quotients of m / k up to this are right: bf16 keeps m and each element
// within 2^-9 of their exact products, so x / m is within |q| * 2^-8 of q,
// a quarter at most for |q| <= 64 (fp16: 2^-12, every |q| <= 127).
// The first refinement uses only those (no outlier sweep), the second all.
int reliable_q(DType dt) { return dt == DType::bf16 ? 64 : kMaxQ; }

// The smallest finite nonzero |x| (HUGE_VALF when none), over kLanes
// running minima so the loop vectorises.
float smallest_magnitude(const float* __restrict x, size_t g) {
  constexpr size_t kLanes = 8;
  float m[kLanes];
  for (size_t j = 0; j < kLanes; ++j) m[j] = HUGE_VALF;
  auto step = [&](size_t i, size_t j) {
    const float a = std::abs(x[i]);
    m[j] = (a > 0) & (a < m[j]) ? a : m[j];  // false for NaN
  };
  size_t i = 0;
  for (; i + kLanes <= g; i += kLanes)
    for (size_t j = 0; j < kLanes; ++j) step(i + j, j);
  for (; i < g; ++i) step(i, 0);
  return *std::min_element(m, m + kLanes);
}

struct Fit {
  float s = 1.0f;
  size_t misses = SIZE_MAX;
};

// Search effort of fit_group: the detector wants a quick no on trained
// weights (no outlier handling: a window with an outlier just fails), the
// encoder every fit it can get.
struct FitEffort {
  int divisors;       // m / k candidates, k = 1..divisors
  bool gap_fallback;  // then the smallest magnitude gap
  bool robust;        // intersect around the median bound when outliers empty it
};
constexpr FitEffort kDetect{kDetectDivisors, false, false};
constexpr FitEffort kProbe{kDetectDivisors, false, true};
constexpr FitEffort kEncode{kEncodeDivisors, true, true};

// The best scale for one group, its q in `q`, searched as hard as `e` says;
// stops at the first good fit (kGoodFitDivisor).
Fit fit_group(const Group& gr, const FitEffort& e, uint8_t* q) {
  const float m = smallest_magnitude(gr.x, gr.g);
  uint8_t tq[kMaxGroup];
  int16_t q_raw[kMaxGroup];
  Fit best;
  auto consider = [&](float s) {
    if (!(s > 0) || !std::isfinite(s)) return false;
    const size_t miss = try_scale(gr, s, tq, q_raw);
    if (miss < best.misses) {
      best = {s, miss};
      std::memcpy(q, tq, gr.g);
    }
    return miss <= gr.g / kGoodFitDivisor;
  };
  if (!std::isfinite(m)) {  // zeros, NaN and inf only: q = 0 reproduces +0
    consider(1.0f);
    return best;
  }
  size_t last = 0;  // misses of the latest candidate
  auto consider_last = [&](float s) {
    const size_t before = best.misses;
    const bool good = consider(s);
    last = best.misses < before ? best.misses : gr.g;
    return good;
  };
  for (int k = 1; k <= e.divisors; ++k) {
    const float s = m / float(k);
    // fp32: m / k is s itself when q = +-k is the smallest and k a power of
    // two. Otherwise (bf16/fp16 lost the fp32 scale's low bits; m / 3 is
    // rounded) m / k is near s, and the quotients bound it.
    if (gr.dt == DType::fp32 && (k & (k - 1)) == 0) {
      if (consider_last(s)) return best;
      if (last > gr.g * kRefineMaxMissShare) continue;
    } else {
      quotients(gr, s, q_raw);
    }
    // Twice: the first pass uses the quotients m / k gets right, the second
    // all of the first's.
    for (int pass = 0; pass < kRefinePasses; ++pass) {
      const float r = float(refine_scale(gr, q_raw, pass == 0 ? reliable_q(gr.dt) : kMaxQ, e.robust));
      const size_t before = best.misses;
      if (consider_last(r)) return best;
      if (last > gr.g * kRefineMaxMissShare) break;
      if (best.misses == before) {  // one fp32 step either way
        for (float c : {std::nextafter(r, 0.0f), std::nextafter(r, HUGE_VALF)})
          if (consider(c)) return best;
        break;
      }
    }
  }
  // No |q| up to `divisors` in the group: the smallest gap between distinct
  // magnitudes is s times a small integer too (usually 1).
  if (best.misses > 0 && e.gap_fallback) {
    // The gap is rounded: its quotients are right, its products are not.
    float d = smallest_gap(gr);
    for (int pass = 0; pass < kRefinePasses + 1 && d > 0; ++pass) {
      if (consider(d)) return best;
      d = float(refine_scale(gr, q_raw, kMaxQ, e.robust));
    }
  }
  if (best.misses == SIZE_MAX) consider(1.0f);  // every m / k underflowed
  return best;
}

// Element bits and values of elements [begin, begin + g).
template <DType DT>
void load_group_as(const uint8_t* src, size_t g, uint32_t* bits, float* x) {
  for (size_t i = 0; i < g; ++i) {
    bits[i] = element_bits(src, i, DT);
    x[i] = bits_value(bits[i], DT);
  }
}
void load_group(const uint8_t* src, size_t begin, size_t g, DType dt, uint32_t* bits, float* x) {
  src += begin * dtype_width(dt);
  switch (dt) {
    case DType::fp32: return load_group_as<DType::fp32>(src, g, bits, x);
    case DType::bf16: return load_group_as<DType::bf16>(src, g, bits, x);
    default: return load_group_as<DType::fp16>(src, g, bits, x);
  }
}

// Misses of fitting groups of 2^log2 at kProbeGroups spread places, and the
// elements probed.
std::pair<size_t, size_t> probe(const uint8_t* src, size_t n, DType dt, uint8_t log2) {
  const size_t g = size_t{1} << log2, groups = (n + g - 1) / g;
  const size_t probes = std::min(groups, kProbeGroups);
  uint32_t bits[kMaxGroup];
  float x[kMaxGroup];
  uint8_t q[kMaxGroup];
  size_t misses = 0, elems = 0;
  for (size_t j = 0; j < probes; ++j) {
    const size_t begin = (probes == 1 ? 0 : (groups - 1) * j / (probes - 1)) * g;
    const size_t len = std::min(g, n - begin);
    load_group(src, begin, len, dt, bits, x);
    misses += fit_group({bits, x, len, dt}, kProbe, q).misses;
    elems += len;
  }
  return {misses, elems};
}

// The group size with the smallest estimated cost: exceptions at ~width + 2
// bytes each, scales at 4 bytes per group. Larger groups first, until the
// cost rises.
uint8_t choose_log2(const uint8_t* src, size_t n, DType dt) {
  const double w = dtype_width(dt);
  uint8_t best = kGridMinLog2;
  double best_cost = HUGE_VAL;
  for (int l = kEncodeMaxLog2; l >= kGridMinLog2; --l) {
    const auto [misses, elems] = probe(src, n, dt, uint8_t(l));
    const double groups = std::ceil(double(n) / double(size_t{1} << l));
    const double cost = double(misses) / double(elems) * double(n) * (w + 2) + 4 * groups;
    // Past the true group size smaller groups only add scales.
    if (cost > best_cost) break;
    best = uint8_t(l), best_cost = cost;
  }
  return best;
}

template <class Store>
void expand(const uint8_t* scales, const uint8_t* q, size_t n, uint8_t log2, uint8_t* dst, Store store) {
  const size_t g = size_t{1} << log2;
  for (size_t begin = 0, k = 0; begin < n; begin += g, ++k) {
    const float s = u2f(load_u32(scales + 4 * k));
    const size_t end = std::min(n, begin + g);
    for (size_t i = begin; i < end; ++i) store(dst, i, q_value(q[i]) * s);
  }
}

zt::Status corrupt(const std::string& what) {
  return {zt::ErrorCode::corrupt_stream, "z4ai chunk: scale grid: " + what};
}
zt::Status mismatch(const std::string& what) {
  return {zt::ErrorCode::length_mismatch, "z4ai chunk: scale grid: " + what};
}

}  // namespace

bool grid_dtype(DType dtype) { return dtype == DType::fp32 || dtype == DType::bf16 || dtype == DType::fp16; }

bool grid_plausible(const uint8_t* src, size_t n, DType dt) {
  if (!grid_dtype(dt) || n < kDetectWindows * kDetectWindowElems) return false;
  uint32_t bits[kDetectWindowElems];
  float x[kDetectWindowElems];
  uint8_t q[kDetectWindowElems];
  size_t hits = 0, misfits = 0;
  for (size_t j = 0; j < kDetectWindows; ++j) {
    const size_t begin = (n / kDetectWindows * j) & ~(kDetectWindowElems - 1);
    load_group(src, begin, kDetectWindowElems, dt, bits, x);
    const Group gr{bits, x, kDetectWindowElems, dt};
    // All-zero windows say nothing (sparse data has its own path).
    if (std::all_of(x, x + kDetectWindowElems, [](float v) { return v == 0; })) continue;
    if (fit_group(gr, kDetect, q).misses <= kDetectMaxMisses) ++hits;
    else if (++misfits > kDetectWindows - kDetectMinHits) return false;  // trained weights stop here
  }
  return hits >= kDetectMinHits;
}

bool grid_encode(const uint8_t* src, size_t n, DType dt, std::vector<std::vector<uint8_t>>& streams) {
  if (!grid_dtype(dt) || n == 0) return false;
  const uint32_t w = dtype_width(dt);
  const uint8_t log2 = choose_log2(src, n, dt);
  const size_t g = size_t{1} << log2, max_exceptions = n / kMaxExceptionDivisor;
  streams.assign(kGridStreams, {});
  auto& scales = streams[1];
  auto& q = streams[2];
  auto& positions = streams[3];
  auto& values = streams[4];
  q.resize(n);
  uint32_t bits[kMaxGroup];
  float x[kMaxGroup];
  size_t exceptions = 0, next = 0;  // next: the position after the last exception
  for (size_t begin = 0; begin < n; begin += g) {
    const size_t len = std::min(g, n - begin);
    load_group(src, begin, len, dt, bits, x);
    const Group gr{bits, x, len, dt};
    uint8_t* gq = q.data() + begin;
    const Fit f = fit_group(gr, kEncode, gq);
    put_u32(scales, f2u(f.s));
    if (f.misses == 0) continue;
    // Exceptions: whatever the decoder's product does not reproduce. The fit
    // leaves q = 0 at every miss, so only those are checked.
    for (size_t i = 0; i < len; ++i) {
      if (gq[i] != 0 || cast_bits(0.0f * f.s, dt) == bits[i]) continue;
      if (++exceptions > max_exceptions) return false;
      put_u32(positions, uint32_t(begin + i - next));
      for (uint32_t b = 0; b < w; ++b) values.push_back(uint8_t(bits[i] >> (8 * b)));
      next = begin + i + 1;
    }
  }
  auto& header = streams[0];
  put_u8(header, log2);
  put_u32(header, uint32_t(exceptions));
  return true;
}

zt::Status grid_check_lengths(const uint8_t* header, const uint32_t* raw_lens, size_t n, DType dt) {
  const uint8_t log2 = header[0];
  if (log2 < kGridMinLog2 || log2 > kGridMaxLog2)
    return corrupt("group size log2 " + std::to_string(log2) + " is outside " + std::to_string(kGridMinLog2) +
                   ".." + std::to_string(kGridMaxLog2));
  const uint64_t count = load_u32(header + 1);
  if (count > n)
    return corrupt(std::to_string(count) + " exceptions in a chunk of " + std::to_string(n) + " elements");
  const uint64_t groups = (uint64_t(n) + (uint64_t{1} << log2) - 1) >> log2;
  const uint64_t want[kGridStreams] = {kGridHeaderBytes, 4 * groups, n, kGridPositionBytes * count,
                                       dtype_width(dt) * count};
  for (uint32_t i = 0; i < kGridStreams; ++i)
    if (raw_lens[i] != want[i])
      return mismatch("stream " + std::to_string(i) + " raw length " + std::to_string(raw_lens[i]) + ", expected " +
                      std::to_string(want[i]));
  return {};
}

zt::Status grid_decode(const uint8_t* const* streams, size_t n, DType dt, uint8_t* dst) {
  const uint8_t log2 = streams[0][0];
  const size_t count = load_u32(streams[0] + 1);
  switch (dt) {
    case DType::fp32:
      expand(streams[1], streams[2], n, log2, dst, [](uint8_t* d, size_t i, float p) { std::memcpy(d + 4 * i, &p, 4); });
      break;
    case DType::bf16:
      expand(streams[1], streams[2], n, log2, dst, [](uint8_t* d, size_t i, float p) { store_u16(d + 2 * i, to_bf16(p)); });
      break;
    default:
      expand(streams[1], streams[2], n, log2, dst, [](uint8_t* d, size_t i, float p) { store_u16(d + 2 * i, to_fp16(p)); });
      break;
  }
  const uint32_t w = dtype_width(dt);
  uint64_t next = 0;
  for (size_t e = 0; e < count; ++e) {
    const uint64_t pos = next + load_u32(streams[3] + kGridPositionBytes * e);
    if (pos >= n)
      return corrupt("exception " + std::to_string(e) + " at element " + std::to_string(pos) + " is past the chunk");
    std::memcpy(dst + pos * w, streams[4] + size_t(w) * e, w);
    next = pos + 1;
  }
  return {};
}

}  // namespace z4ai::detail
