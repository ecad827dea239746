// ZSTN v3 writer: parses the safetensors header (codec/safetensors_header.h,
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
#include "codec/common/safetensors_header.h"
#include "codec/common/thread_pool.h"
#include "codec/frame/frame_format.h"
#include "z4ai/zstn.h"

namespace z4ai::zstn {
namespace {

constexpr uint8_t kMagic[4] = {'Z', 'S', 'T', 'N'};
// compress_to codes tensors in windows of at most this many per worker and,
// past the first tensor, this many input bytes: the frames of one window are
// what it holds in memory (issue 14: a .zstn of any size in bounded memory).
constexpr size_t kWindowTensorsPerWorker = 4;
constexpr uint64_t kWindowBytes = uint64_t{64} << 20;

using Tensor = detail::SafetensorsTensor;

bool is_contiguous(const std::vector<Tensor>& tensors, uint64_t data_len) {
  uint64_t pos = 0;
  for (const Tensor& t : tensors) {
    if (t.begin != pos) return false;
    pos = t.end;
  }
  return pos == data_len;
}

}  // namespace

bool is_zstn(std::span<const uint8_t> bytes) { return bytes.size() >= 4 && std::memcmp(bytes.data(), kMagic, 4) == 0; }

namespace {

// compress_to with `stream_large`: a unique tensor over kWindowBytes is coded
// by detail::compress_streamed (twice the coding time, a group of chunks in
// memory); compress(), which holds the whole container anyway, does not.
zt::Status write_container(std::span<const uint8_t> st, const Options& o, const ByteSink& sink, bool stream_large) {
  ZT_ASSIGN_OR_RETURN(detail::SafetensorsLayout layout, detail::parse_safetensors(st));
  const uint64_t header_len = layout.header_len;
  std::vector<Tensor>& tensors = layout.tensors;  // names already capped at 65535 bytes
  const std::span<const uint8_t> data = st.subspan(size_t(8 + header_len));
  const bool contiguous = is_contiguous(tensors, data.size());
  if (tensors.size() > UINT32_MAX) return zt::Status(zt::ErrorCode::limit_exceeded, "ZSTN: too many tensors");

  uint64_t written = 0;
  std::vector<uint8_t> out(kMagic, kMagic + 4);
  auto flush = [&]() -> zt::Status {
    written += out.size();
    zt::Status s = sink(out);
    out.clear();
    return s;
  };
  detail::put_u8(out, kVersion);
  detail::put_u8(out, contiguous ? 1 : 0);
  detail::put_u64(out, header_len);
  detail::put_bytes(out, st.subspan(8, size_t(header_len)));
  detail::put_u64(out, data.size());

  CompressOptions co;
  co.level = o.level;
  co.threads = o.threads;
  co.effort = o.effort;
  const uint64_t total = data.size();
  uint64_t done = 0;
  auto report = [&](uint64_t bytes) {
    done += bytes;
    if (o.progress) o.progress(done, total);
  };
  report(0);
  if (!contiguous) {
    ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> frame, z4ai::compress(data, co));
    detail::put_u64(out, frame.size());
    ZT_RETURN_IF_ERROR(flush());
    ZT_RETURN_IF_ERROR(sink(frame));
    report(total);
    return zt::Status();
  }

  // Tied weights: a tensor byte-identical to an earlier one becomes a REF.
  std::vector<int64_t> ref(tensors.size(), -1);
  std::vector<size_t> unique;
  std::unordered_map<uint64_t, std::vector<size_t>> seen;
  for (size_t i = 0; i < tensors.size(); ++i) {
    auto raw = data.subspan(size_t(tensors[i].begin), size_t(tensors[i].end - tensors[i].begin));
    auto& bucket = seen[detail::xxh3_64(raw)];
    for (size_t j : bucket) {
      auto other = data.subspan(size_t(tensors[j].begin), size_t(tensors[j].end - tensors[j].begin));
      if (other.size() == raw.size() && std::equal(raw.begin(), raw.end(), other.begin())) {
        ref[i] = int64_t(j);
        break;
      }
    }
    if (ref[i] < 0) {
      bucket.push_back(i);
      unique.push_back(i);
    }
  }
  uint64_t tied = 0;
  for (size_t i = 0; i < tensors.size(); ++i)
    if (ref[i] >= 0) tied += tensors[i].end - tensors[i].begin;
  report(tied);

  // Compress unique tensors concurrently; many small tensors share out the
  // cores across tensors, a few big ones use threads inside each frame.
  const unsigned workers = std::max<unsigned>(1, std::min<unsigned>(detail::resolve_threads(o.workers),
                                                                    unsigned(std::max<size_t>(1, unique.size()))));
  if (o.threads == 0 && workers > 1) co.threads = std::max(1u, detail::resolve_threads(0) / workers);
  ZT_RETURN_IF_ERROR(flush());
  std::vector<uint64_t> offset(tensors.size()), length(tensors.size());
  // Windows of tensors in file order: each is coded in parallel, written and
  // freed before the next, so memory holds one window's frames, not the
  // model's. Frames do not depend on the window: the output is the same.
  for (size_t first = 0; first < unique.size();) {
    const Tensor& big = tensors[unique[first]];
    if (stream_large && big.end - big.begin > kWindowBytes) {
      CompressOptions to = co;
      to.threads = o.threads;  // a tensor alone in its window has every worker's threads
      auto dt = parse_dtype(big.dtype);
      to.dtype = dt.ok() ? dtype_name(dt.value()) : "";
      const uint64_t at = written;
      ZT_ASSIGN_OR_RETURN(bool streamed,
                          detail::compress_streamed(data.subspan(size_t(big.begin), size_t(big.end - big.begin)), to,
                                                    [&](std::span<const uint8_t> bytes) {
                                                      written += bytes.size();
                                                      return sink(bytes);
                                                    }));
      if (streamed) {
        offset[unique[first]] = at;
        length[unique[first]] = written - at;
        report(big.end - big.begin);
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
    std::vector<zt::Result<std::vector<uint8_t>>> frames(last - first, std::vector<uint8_t>{});
    detail::parallel_for(frames.size(), workers, [&](size_t k) {
      const Tensor& t = tensors[unique[first + k]];
      CompressOptions to = co;
      auto dt = parse_dtype(t.dtype);
      to.dtype = dt.ok() ? dtype_name(dt.value()) : "";
      frames[k] = z4ai::compress(data.subspan(size_t(t.begin), size_t(t.end - t.begin)), to);
    });
    for (size_t k = 0; k < frames.size(); ++k) {
      ZT_RETURN_IF_ERROR(frames[k].status());
      offset[unique[first + k]] = written;
      length[unique[first + k]] = frames[k]->size();
      written += frames[k]->size();
      ZT_RETURN_IF_ERROR(sink(frames[k].value()));
      frames[k] = std::vector<uint8_t>{};
      const Tensor& t = tensors[unique[first + k]];
      report(t.end - t.begin);
    }
    first = last;
  }
  const uint64_t index_offset = written;
  detail::put_u32(out, uint32_t(tensors.size()));
  for (size_t i = 0; i < tensors.size(); ++i) {
    detail::put_u16(out, uint16_t(tensors[i].name.size()));
    detail::put_bytes(out, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(tensors[i].name.data()),
                                                    tensors[i].name.size()));
    detail::put_u64(out, tensors[i].begin);
    detail::put_u64(out, tensors[i].end);
    detail::put_u8(out, ref[i] < 0 ? 0 : 1);
    if (ref[i] < 0) {
      detail::put_u64(out, offset[i]);
      detail::put_u64(out, length[i]);
    } else {
      detail::put_u32(out, uint32_t(ref[i]));
    }
  }
  const uint64_t index_len = out.size();
  detail::put_u64(out, index_offset);
  detail::put_u64(out, index_len);
  detail::put_bytes(out, kMagic);
  return flush();
}

}  // namespace

zt::Status compress_to(std::span<const uint8_t> st, const Options& o, const ByteSink& sink) {
  return write_container(st, o, sink, /*stream_large=*/true);
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
