// Z4DM encoder: aligns target tensors with base tensors by name (then by
// identical bytes, which catches renames), and keeps the smallest of COPY,
// DELTA and FULL per tensor; bytes between tensors go into opaque FULL entries.
#include "z4ai/model_delta.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "codec/common/byte_io.h"
#include "codec/common/digest.h"
#include "codec/common/safetensors_input.h"
#include "codec/common/thread_pool.h"
#include "codec/delta/delta_format.h"
#include "codec/delta/model_delta_format.h"
#include "z4ai/codec.h"

namespace z4ai {
namespace {

using detail::ModelDeltaKind;
using zt::SafetensorsTensor;

struct Plan {
  std::string name;
  std::string dtype;  // codec dtype name, "" = opaque
  uint64_t begin = 0, end = 0;
  const SafetensorsTensor* tensor = nullptr;  // null for bytes between tensors
  const SafetensorsTensor* base = nullptr;  // same name, dtype and shape
  ModelDeltaKind kind = ModelDeltaKind::full;
  uint64_t base_begin = 0, base_end = 0;
  std::vector<uint8_t> frame;
};

// Entries must tile the data buffer: gaps become opaque entries, and a tensor
// overlapping an earlier one is dropped (its bytes are already covered).
Plan make_plan(std::string name, std::string dtype, uint64_t begin, uint64_t end, const SafetensorsTensor* t) {
  Plan p;
  p.name = std::move(name);
  p.dtype = std::move(dtype);
  p.begin = begin;
  p.end = end;
  p.tensor = t;
  return p;
}

std::vector<Plan> tile(const std::vector<SafetensorsTensor>& tensors, uint64_t data_len) {
  std::vector<Plan> plans;
  uint64_t pos = 0;
  for (const SafetensorsTensor& t : tensors) {
    if (t.begin < pos) continue;
    if (t.begin > pos) plans.push_back(make_plan("", "", pos, t.begin, nullptr));
    auto dt = parse_dtype(t.st_dtype);
    plans.push_back(make_plan(t.name, dt.ok() ? dtype_name(dt.value()) : "", t.begin, t.end, &t));
    pos = t.end;
  }
  if (pos < data_len) plans.push_back(make_plan("", "", pos, data_len, nullptr));
  return plans;
}

zt::Status encode(Plan& p, std::span<const uint8_t> target, std::span<const uint8_t> base_data,
                  const CompressOptions& co) {
  CompressOptions o = co;
  o.dtype = p.dtype;
  ZT_ASSIGN_OR_RETURN(p.frame, compress(target, o));
  p.kind = ModelDeltaKind::full;
  if (p.base == nullptr) return {};
  auto ref = base_data.subspan(size_t(p.base->begin), size_t(p.base->end - p.base->begin));
  ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> delta, detail::compress_delta_given_full(target, ref, o, p.frame));
  if (delta.size() + 16 < p.frame.size()) {  // DELTA also stores the base span
    p.frame = std::move(delta);
    p.kind = ModelDeltaKind::delta;
    p.base_begin = p.base->begin;
    p.base_end = p.base->end;
  }
  return {};
}

void put_entry(std::vector<uint8_t>& out, const Plan& p) {
  detail::put_u16(out, uint16_t(p.name.size()));
  detail::put_bytes(out, {reinterpret_cast<const uint8_t*>(p.name.data()), p.name.size()});
  detail::put_u64(out, p.begin);
  detail::put_u64(out, p.end);
  detail::put_u8(out, uint8_t(p.kind));
  if (p.kind != ModelDeltaKind::full) detail::put_u64(out, p.base_begin);
  if (p.kind == ModelDeltaKind::delta) detail::put_u64(out, p.base_end);
  if (p.kind != ModelDeltaKind::copy) {
    detail::put_u64(out, p.frame.size());
    detail::put_bytes(out, p.frame);
  }
}

}  // namespace

bool is_model_delta(std::span<const uint8_t> bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), detail::kMagicModelDelta, 4) == 0;
}

zt::Result<std::vector<uint8_t>> compress_model_delta(std::span<const uint8_t> target_st,
                                                      std::span<const uint8_t> base_st,
                                                      const ModelDeltaOptions& options) {
  ZT_ASSIGN_OR_RETURN(zt::SafetensorsLayout target, detail::parse_safetensors_input(target_st));
  ZT_ASSIGN_OR_RETURN(zt::SafetensorsLayout base, detail::parse_safetensors_input(base_st));
  std::vector<Plan> plans = tile(target.parsed.tensors, target.data.size());
  if (plans.size() > UINT32_MAX) return zt::Status(zt::ErrorCode::limit_exceeded, "Z4DM: too many tensors");

  std::unordered_map<std::string_view, const SafetensorsTensor*> by_name;
  std::unordered_map<uint64_t, std::vector<const SafetensorsTensor*>> by_digest;
  for (const SafetensorsTensor& t : base.parsed.tensors) {
    by_name.emplace(t.name, &t);
    by_digest[detail::xxh3_64(base.data.subspan(size_t(t.begin), size_t(t.end - t.begin)))].push_back(&t);
  }
  std::vector<size_t> to_encode;
  for (size_t i = 0; i < plans.size(); ++i) {
    Plan& p = plans[i];
    auto bytes = target.data.subspan(size_t(p.begin), size_t(p.end - p.begin));
    if (const SafetensorsTensor* t = p.tensor)
      if (auto it = by_name.find(t->name);
          it != by_name.end() && it->second->st_dtype == t->st_dtype && it->second->shape == t->shape)
        p.base = it->second;
    // COPY: identical bytes anywhere in the base (same name first, then renames).
    const SafetensorsTensor* same = nullptr;
    auto equal = [&](const SafetensorsTensor* b) {
      auto other = base.data.subspan(size_t(b->begin), size_t(b->end - b->begin));
      return other.size() == bytes.size() && std::equal(bytes.begin(), bytes.end(), other.begin());
    };
    if (p.base && equal(p.base)) same = p.base;
    if (!same && p.tensor && !bytes.empty())
      if (auto it = by_digest.find(detail::xxh3_64(bytes)); it != by_digest.end())
        for (const SafetensorsTensor* b : it->second)
          if (equal(b)) {
            same = b;
            break;
          }
    if (same) {
      p.kind = ModelDeltaKind::copy;
      p.base_begin = same->begin;
      p.base_end = same->end;
    } else {
      to_encode.push_back(i);
    }
  }

  // Many small tensors share the cores across tensors; a few big ones use
  // threads inside each frame (as the ZSTN writer does).
  CompressOptions co;
  co.level = options.level;
  co.threads = options.threads;
  const unsigned workers = std::max<unsigned>(
      1, std::min<unsigned>(detail::resolve_threads(options.threads), unsigned(std::max<size_t>(1, to_encode.size()))));
  if (workers > 1) co.threads = std::max(1u, detail::resolve_threads(options.threads) / workers);
  std::vector<zt::Status> status(to_encode.size());
  detail::parallel_for(to_encode.size(), workers, [&](size_t k) {
    Plan& p = plans[to_encode[k]];
    status[k] = encode(p, target.data.subspan(size_t(p.begin), size_t(p.end - p.begin)), base.data, co);
  });
  for (size_t k = 0; k < status.size(); ++k)
    if (!status[k].ok())
      return zt::Status(status[k].code(), "Z4DM tensor '" + plans[to_encode[k]].name + "': " + status[k].message());

  std::vector<uint8_t> out(detail::kMagicModelDelta, detail::kMagicModelDelta + 4);
  detail::put_u8(out, detail::kModelDeltaVersion);
  for (int i = 0; i < 3; ++i) detail::put_u8(out, 0);
  detail::put_u64(out, target.parsed.header_len);
  detail::put_bytes(out, target.header);
  detail::put_u64(out, target.data.size());
  detail::put_u64(out, base.data.size());
  detail::put_u64(out, detail::xxh3_64(base.data));
  detail::put_u32(out, uint32_t(plans.size()));
  for (const Plan& p : plans) put_entry(out, p);
  detail::put_u64(out, detail::xxh3_64(out));
  return out;
}

}  // namespace z4ai
