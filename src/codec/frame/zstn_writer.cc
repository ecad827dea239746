// ZSTN v3 writer: parses the safetensors header (codec/common/safetensors_input.h,
// ties between equal offsets broken in document order), stores byte-identical
// tensors once as REF entries, compresses the unique ones in parallel with
// their declared dtype, window by window, handing the bytes to a sink in
// file order.
#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>

#include "codec/common/byte_io.h"
#include "codec/common/digest.h"
#include "codec/common/safetensors_input.h"
#include "codec/common/thread_pool.h"
#include "codec/frame/frame_format.h"
#include "codec/frame/zstn_input.h"
#include "z4ai/zstn.h"

namespace z4ai::zstn {
namespace {

constexpr uint8_t kMagic[4] = {'Z', 'S', 'T', 'N'};
// compress_to codes tensors in windows of at most this many per worker and,
// past the first tensor, this many input bytes: the frames of one window are
// what it holds in memory, so a .zstn of any size is written in bounded memory.
constexpr size_t kWindowTensorsPerWorker = 4;
constexpr uint64_t kWindowBytes = uint64_t{64} << 20;

using Tensor = zt::SafetensorsTensor;

// The input's bytes on demand: with no pager (`st` all in memory) fetching
// and dropping do nothing.
struct Input {
  const InputPager* pager = nullptr;
  zt::Status fetch(const Tensor& t) const { return pager ? pager->fetch(t.begin, t.end) : zt::Status(); }
  void drop(const Tensor& t) const {
    if (pager) pager->drop(t.begin, t.end);
  }
  void drop_all() const {
    if (pager) pager->drop_all();
  }
};

}  // namespace

bool is_zstn(std::span<const uint8_t> bytes) { return bytes.size() >= 4 && std::memcmp(bytes.data(), kMagic, 4) == 0; }

namespace {

// Tied weights: for each tensor, the index of an earlier byte-identical one
// (it becomes a REF) or -1; `unique` lists the others in file order.
// Each tensor's bytes are fetched while it is hashed or compared, then dropped.
zt::Result<std::vector<int64_t>> find_ties(const std::vector<Tensor>& tensors, std::span<const uint8_t> data,
                                           const Input& input, std::vector<size_t>& unique) {
  std::vector<int64_t> ref(tensors.size(), -1);
  std::unordered_map<uint64_t, std::vector<size_t>> seen;
  for (size_t i = 0; i < tensors.size(); ++i) {
    ZT_RETURN_IF_ERROR(input.fetch(tensors[i]));
    auto raw = data.subspan(size_t(tensors[i].begin), size_t(tensors[i].end - tensors[i].begin));
    auto& bucket = seen[detail::xxh3_64(raw)];
    for (size_t j : bucket) {
      auto other = data.subspan(size_t(tensors[j].begin), size_t(tensors[j].end - tensors[j].begin));
      if (other.size() != raw.size()) continue;
      ZT_RETURN_IF_ERROR(input.fetch(tensors[j]));
      const bool same = std::equal(raw.begin(), raw.end(), other.begin());
      input.drop(tensors[j]);
      if (same) {
        ref[i] = int64_t(j);
        break;
      }
    }
    input.drop(tensors[i]);
    if (ref[i] < 0) {
      bucket.push_back(i);
      unique.push_back(i);
    }
  }
  input.drop_all();  // the pages that tensors shared
  return ref;
}

// One container being written: the bytes not yet handed to the sink, what
// has been, and the progress reported.
class ContainerWriter {
 public:
  ContainerWriter(const Options& o, const ByteSink& sink, uint64_t total) : o_(o), sink_(sink), total_(total) {}

  std::vector<uint8_t>& pending() { return out_; }
  uint64_t written() const { return written_; }
  zt::Status flush() {
    written_ += out_.size();
    zt::Status s = sink_(out_);
    out_.clear();
    return s;
  }
  // Bytes that go to the sink straight, after anything pending.
  zt::Status emit(std::span<const uint8_t> bytes) {
    written_ += bytes.size();
    return sink_(bytes);
  }
  void report(uint64_t bytes) {
    done_ += bytes;
    if (o_.progress) o_.progress(done_, total_);
  }

 private:
  const Options& o_;
  const ByteSink& sink_;
  uint64_t total_;
  std::vector<uint8_t> out_;
  uint64_t written_ = 0, done_ = 0;
};

CompressOptions tensor_options(const CompressOptions& co, const Tensor& t) {
  CompressOptions to = co;
  auto dt = parse_dtype(t.st_dtype);
  to.dtype = dt.ok() ? dtype_name(dt.value()) : "";
  return to;
}

std::span<const uint8_t> bytes_of(std::span<const uint8_t> data, const Tensor& t) {
  return data.subspan(size_t(t.begin), size_t(t.end - t.begin));
}

// Where each unique tensor's frame lies in the container.
struct FrameSpans {
  std::vector<uint64_t> offset, length;
  explicit FrameSpans(size_t n) : offset(n), length(n) {}
};

// A tensor over kWindowBytes coded by detail::compress_streamed (twice the
// coding time, a group of chunks in memory) straight to the sink; false
// when its frame cannot stream (compress() decides it whole).
zt::Result<bool> stream_tensor(ContainerWriter& w, std::span<const uint8_t> data, const Input& input, const Tensor& t,
                               size_t i, const CompressOptions& to, FrameSpans& spans) {
  const uint64_t at = w.written();
  ZT_RETURN_IF_ERROR(input.fetch(t));
  ZT_ASSIGN_OR_RETURN(bool streamed, detail::compress_streamed(bytes_of(data, t), to, [&](std::span<const uint8_t> b) {
                        return w.emit(b);
                      }));
  if (!streamed) return false;
  input.drop(t);
  spans.offset[i] = at;
  spans.length[i] = w.written() - at;
  w.report(t.end - t.begin);
  return true;
}

// The unique tensors [first, last) coded in parallel, then written in order
// and freed.
zt::Status write_window(ContainerWriter& w, const std::vector<Tensor>& tensors, std::span<const uint8_t> data,
                        const Input& input, std::span<const size_t> window, const CompressOptions& co,
                        unsigned workers, FrameSpans& spans) {
  for (size_t i : window) ZT_RETURN_IF_ERROR(input.fetch(tensors[i]));
  std::vector<zt::Result<std::vector<uint8_t>>> frames(window.size(), std::vector<uint8_t>{});
  detail::parallel_for(frames.size(), workers, [&](size_t k) {
    const Tensor& t = tensors[window[k]];
    frames[k] = z4ai::compress(bytes_of(data, t), tensor_options(co, t));
  });
  for (size_t k = 0; k < frames.size(); ++k) {
    ZT_RETURN_IF_ERROR(frames[k].status());
    spans.offset[window[k]] = w.written();
    spans.length[window[k]] = frames[k]->size();
    ZT_RETURN_IF_ERROR(w.emit(frames[k].value()));
    frames[k] = std::vector<uint8_t>{};
    input.drop(tensors[window[k]]);
    w.report(tensors[window[k]].end - tensors[window[k]].begin);
  }
  input.drop_all();
  return {};
}

// The unique tensors' frames in file order, window by window: memory holds
// one window's frames, not the model's, and frames do not depend on the
// window. A window holds up to kWindowTensorsPerWorker tensors per worker
// and, past its first, kWindowBytes of input. With `stream_large` a tensor
// over kWindowBytes streams alone with every worker's threads.
zt::Status write_frames(ContainerWriter& w, const std::vector<Tensor>& tensors, std::span<const uint8_t> data,
                        const Input& input, const std::vector<size_t>& unique, const CompressOptions& co, unsigned large_threads,
                        unsigned workers, bool stream_large, FrameSpans& spans) {
  for (size_t first = 0; first < unique.size();) {
    const Tensor& big = tensors[unique[first]];
    if (stream_large && big.end - big.begin > kWindowBytes) {
      CompressOptions to = tensor_options(co, big);
      to.threads = large_threads;
      ZT_ASSIGN_OR_RETURN(bool streamed, stream_tensor(w, data, input, big, unique[first], to, spans));
      if (streamed) {
        ++first;
        continue;
      }
    }
    size_t last = first;
    uint64_t bytes = 0;
    while (last < unique.size() && last - first < workers * kWindowTensorsPerWorker &&
           (last == first || bytes < kWindowBytes)) {
      bytes += tensors[unique[last]].end - tensors[unique[last]].begin;
      ++last;
    }
    const std::span<const size_t> window(unique.data() + first, last - first);
    ZT_RETURN_IF_ERROR(write_window(w, tensors, data, input, window, co, workers, spans));
    first = last;
  }
  return {};
}

// The index (per tensor in data-buffer order: name, span, FRAME or REF) and
// the footer, appended to `out`; the index starts at `index_offset`.
void put_index(std::vector<uint8_t>& out, const std::vector<Tensor>& tensors, const std::vector<int64_t>& ref,
               const FrameSpans& spans, uint64_t index_offset) {
  const size_t start = out.size();
  detail::put_u32(out, uint32_t(tensors.size()));
  for (size_t i = 0; i < tensors.size(); ++i) {
    detail::put_u16(out, uint16_t(tensors[i].name.size()));
    detail::put_bytes(out, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(tensors[i].name.data()),
                                                    tensors[i].name.size()));
    detail::put_u64(out, tensors[i].begin);
    detail::put_u64(out, tensors[i].end);
    detail::put_u8(out, ref[i] < 0 ? 0 : 1);
    if (ref[i] < 0) {
      detail::put_u64(out, spans.offset[i]);
      detail::put_u64(out, spans.length[i]);
    } else {
      detail::put_u32(out, uint32_t(ref[i]));
    }
  }
  const uint64_t index_len = out.size() - start;
  detail::put_u64(out, index_offset);
  detail::put_u64(out, index_len);
  detail::put_bytes(out, kMagic);
}

// compress_to with `stream_large`; compress(), which holds the whole
// container anyway, does not stream. `input.pager` (null: `st` is all in
// memory) fetches tensor bytes before each use.
zt::Status write_container(std::span<const uint8_t> st, const Options& o, const ByteSink& sink, bool stream_large,
                           const Input& input = {}) {
  // The parser refuses tensors that do not tile the data buffer, so every
  // container written is contiguous = 1 (readers still take the opaque
  // contiguous = 0 containers earlier writers made of such files).
  ZT_ASSIGN_OR_RETURN(zt::SafetensorsLayout layout, detail::parse_safetensors_input(st));
  const uint64_t header_len = layout.parsed.header_len;
  const std::vector<Tensor>& tensors = layout.parsed.tensors;  // names already capped at 65535 bytes
  const std::span<const uint8_t> data = layout.data;
  if (tensors.size() > UINT32_MAX) return zt::Status(zt::ErrorCode::limit_exceeded, "ZSTN: too many tensors");

  ContainerWriter w(o, sink, data.size());
  std::vector<uint8_t>& out = w.pending();
  detail::put_bytes(out, kMagic);
  detail::put_u8(out, kVersion);
  detail::put_u8(out, 1);  // contiguous
  detail::put_u64(out, header_len);
  detail::put_bytes(out, layout.header);
  detail::put_u64(out, data.size());

  CompressOptions co;
  co.level = o.level;
  co.threads = o.threads;
  co.effort = o.effort;
  w.report(0);

  std::vector<size_t> unique;
  ZT_ASSIGN_OR_RETURN(const std::vector<int64_t> ref, find_ties(tensors, data, input, unique));
  uint64_t tied = 0;
  for (size_t i = 0; i < tensors.size(); ++i)
    if (ref[i] >= 0) tied += tensors[i].end - tensors[i].begin;
  w.report(tied);

  // Many small tensors share out the cores across tensors, a few big ones
  // use threads inside each frame.
  const unsigned workers = std::max<unsigned>(1, std::min<unsigned>(detail::resolve_threads(o.workers),
                                                                    unsigned(std::max<size_t>(1, unique.size()))));
  if (o.threads == 0 && workers > 1) co.threads = std::max(1u, detail::resolve_threads(0) / workers);
  ZT_RETURN_IF_ERROR(w.flush());
  FrameSpans spans(tensors.size());
  ZT_RETURN_IF_ERROR(write_frames(w, tensors, data, input, unique, co, o.threads, workers, stream_large, spans));
  put_index(out, tensors, ref, spans, w.written());
  return w.flush();
}

}  // namespace

zt::Status compress_to(std::span<const uint8_t> st, const Options& o, const ByteSink& sink) {
  return write_container(st, o, sink, /*stream_large=*/true);
}

zt::Status compress_paged(std::span<const uint8_t> image, const Options& o, const ByteSink& sink,
                          const InputPager& pager) {
  return write_container(image, o, sink, /*stream_large=*/true, Input{&pager});
}

zt::Result<std::vector<uint8_t>> compress(std::span<const uint8_t> st, const Options& o) {
  std::vector<uint8_t> out;
  ZT_RETURN_IF_ERROR(write_container(
      st, o,
      [&](std::span<const uint8_t> bytes) {
        detail::put_bytes(out, bytes);
        return zt::Status();
      },
      /*stream_large=*/false));
  return out;
}

}  // namespace z4ai::zstn
