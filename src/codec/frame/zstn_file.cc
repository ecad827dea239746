// ZSTN v3 files in bounded memory: the container is read with pread, one
// window of tensors at a time, and each window's bytes go to the output
// before the next is decoded. A file truncated under a read is a
// length_mismatch: nothing here maps the container, so there is no SIGBUS.
// compress_file reads its safetensors input with pread too (zstn_input.h):
// a truncated input is an io_error.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <string>

#include "codec/common/byte_io.h"
#include "codec/common/digest.h"
#include "codec/common/safetensors_input.h"
#include "codec/common/thread_pool.h"
#include "codec/frame/chunk_codec.h"
#include "codec/frame/frame_format.h"
#include "codec/pypi/legacy_format.h"
#include "codec/frame/zstn_input.h"
#include "ztensor/test_pause.h"
#include "z4ai/zstn.h"
#include "common/atomic_file.h"
#include "common/mapped_file.h"

namespace z4ai::zstn {
namespace {

// A window holds at most this many entries per worker and, past its first
// entry, this many decoded bytes: what decode_file keeps in memory at once. A
// larger entry streams alone, this many bytes of chunks at a time.
constexpr size_t kWindowEntriesPerWorker = 4;
constexpr uint64_t kWindowBytes = uint64_t{64} << 20;

zt::Status corrupt(const std::string& path, const std::string& what) {
  return {zt::ErrorCode::corrupt_stream, "ZSTN container '" + path + "': " + what};
}

// Positional reads of one file; safe from many threads.
class PreadFile {
 public:
  static zt::Result<std::unique_ptr<PreadFile>> open(const std::string& path) {
    std::unique_ptr<PreadFile> f(new PreadFile);
    f->path_ = path;
    f->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f->fd_ < 0) return zt::Status::from_errno(zt::ErrorCode::io_error, "cannot open '" + path + "'", errno);
    struct stat st {};
    if (::fstat(f->fd_, &st) != 0)
      return zt::Status::from_errno(zt::ErrorCode::io_error, "cannot stat '" + path + "'", errno);
    f->size_ = uint64_t(st.st_size);
    return f;
  }
  ~PreadFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

  zt::Status read_at(uint64_t offset, std::span<uint8_t> out) const {
    size_t got = 0;
    while (got < out.size()) {
      const ssize_t n = ::pread(fd_, out.data() + got, out.size() - got, off_t(offset + got));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return zt::Status::from_errno(zt::ErrorCode::io_error, "cannot read '" + path_ + "'", errno);
      if (n == 0)
        return {zt::ErrorCode::length_mismatch, "'" + path_ + "' ends at byte " + std::to_string(offset + got) +
                                                    ", reading " + std::to_string(out.size()) + " bytes at " +
                                                    std::to_string(offset) + " (truncated while open?)"};
      got += size_t(n);
    }
    return {};
  }
  // `n` bytes at `offset`; the caller has bounded n by size().
  zt::Result<std::vector<uint8_t>> read_vec(uint64_t offset, uint64_t n) const {
    if (offset > size_ || n > size_ - offset)
      return zt::Status(zt::ErrorCode::length_mismatch, "'" + path_ + "' is too short: needs " +
                                                            std::to_string(offset + n) + " bytes, has " +
                                                            std::to_string(size_));
    std::vector<uint8_t> v(static_cast<size_t>(n));
    ZT_RETURN_IF_ERROR(read_at(offset, v));
    return v;
  }

 private:
  PreadFile() = default;
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string path_;
};

// A file truncated under compress_file's reads is a failed read of its
// input (io_error), not a malformed container.
zt::Status as_io_error(zt::Status s) {
  if (s.code() != zt::ErrorCode::length_mismatch) return s;
  return {zt::ErrorCode::io_error, s.message()};
}

// Address space the size of a file, backed by no memory until written:
// pages are filled by pread and handed back with MADV_DONTNEED.
class AnonymousImage {
 public:
  static zt::Result<AnonymousImage> reserve(uint64_t size, const std::string& path) {
    AnonymousImage image;
    if (size == 0) return image;
    void* p = ::mmap(nullptr, size_t(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return zt::Status::from_errno(zt::ErrorCode::limit_exceeded,
                                    "cannot reserve " + std::to_string(size) + " bytes of address space for '" + path + "'",
                                    errno);
    image.data_ = static_cast<uint8_t*>(p);
    image.size_ = size_t(size);
    return image;
  }
  AnonymousImage(AnonymousImage&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr; }
  AnonymousImage& operator=(AnonymousImage&&) = delete;
  ~AnonymousImage() {
    if (data_) ::munmap(data_, size_);
  }
  std::span<uint8_t> bytes() const { return {data_, size_}; }
  // The whole pages inside [begin, end): a neighbour's bytes on a shared
  // page stay.
  void release(uint64_t begin, uint64_t end) {
    const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
    const uint64_t first = (begin + page - 1) / page * page, last = end / page * page;
    if (first < last) ::madvise(data_ + first, size_t(last - first), MADV_DONTNEED);
  }

 private:
  AnonymousImage() = default;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Decodes one FRAME entry's frame, read from the file, into fresh memory.
zt::Result<std::vector<uint8_t>> decode_entry(const PreadFile& f, const IndexEntry& e, unsigned threads) {
  ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> frame, f.read_vec(e.frame_offset, e.frame_len));
  // The frame must declare its span before that span is allocated.
  ZT_ASSIGN_OR_RETURN(FrameInfo info, peek(frame));
  const uint64_t n = e.dest_end - e.dest_begin;
  if ((info.kind != FrameKind::z4ai && info.kind != FrameKind::zara) || info.original_length != n)
    return zt::Status(zt::ErrorCode::length_mismatch, "frame declares " + std::to_string(info.original_length) +
                                                          " bytes, the index " + std::to_string(n));
  std::vector<uint8_t> out;
  try {
    out.resize(size_t(n));
  } catch (const std::bad_alloc&) {
    return zt::Status(zt::ErrorCode::limit_exceeded, "cannot allocate " + std::to_string(n) + " bytes");
  }
  ZT_RETURN_IF_ERROR(decompress_into(frame, out, threads));
  return out;
}

// A chunked (mode 0) frame of a FRAME entry, decoded a group of chunks at a
// time: each chunk body is read with pread, the decoded chunks are hashed in
// order and handed to `emit`, so memory holds one group, not the tensor.
// `frame_entry` names the frame (a REF's target); `span` is the output span.
using Emit = std::function<zt::Status(std::span<const uint8_t>)>;
zt::Status stream_frame(const PreadFile& f, const IndexEntry& frame_entry, uint64_t span, unsigned workers,
                        const Emit& emit) {
  using detail::kFrameHeaderBytes;
  const uint64_t at = frame_entry.frame_offset, len = frame_entry.frame_len;
  if (len < kFrameHeaderBytes) return {zt::ErrorCode::corrupt_stream, "z4ai frame: shorter than its 32-byte header"};
  ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> head, f.read_vec(at, kFrameHeaderBytes));
  const uint64_t table_bytes = 4 * uint64_t(detail::load_u32(head.data() + 28));
  if (table_bytes > len - kFrameHeaderBytes)
    return {zt::ErrorCode::corrupt_stream, "z4ai frame: chunk table runs past the end of the frame"};
  ZT_ASSIGN_OR_RETURN(head, f.read_vec(at, kFrameHeaderBytes + table_bytes));
  ZT_ASSIGN_OR_RETURN(detail::FrameHeader h, detail::read_frame_header(head));
  const std::span<const uint8_t> table = std::span<const uint8_t>(head).subspan(kFrameHeaderBytes);
  ZT_RETURN_IF_ERROR(detail::check_chunk_table(table, len - kFrameHeaderBytes - table_bytes));
  if (h.original_length != span)
    return zt::Status(zt::ErrorCode::length_mismatch, "frame declares " + std::to_string(h.original_length) +
                                                          " bytes, the index " + std::to_string(span));
  const size_t n = h.n_chunks;
  std::vector<uint64_t> offset(n + 1, at + kFrameHeaderBytes + table_bytes);
  for (size_t i = 0; i < n; ++i) offset[i + 1] = offset[i] + detail::load_u32(table.data() + 4 * i);
  const size_t group = size_t(std::clamp<uint64_t>(kWindowBytes / h.chunk_bytes, 1, workers));
  // Left uninitialised: decode_chunk checks each chunk's streams against its
  // bytes before it writes (and so faults in) any of its output.
  const size_t out_bytes = size_t(std::min<uint64_t>(group * uint64_t(h.chunk_bytes), h.original_length));
  std::unique_ptr<uint8_t[]> out;
  try {
    out.reset(new uint8_t[out_bytes]);
  } catch (const std::bad_alloc&) {
    return {zt::ErrorCode::limit_exceeded, "cannot allocate " + std::to_string(out_bytes) + " bytes for its chunks"};
  }
  detail::Xxh3Stream hash;
  for (size_t first = 0; first < n; first += group) {
    const size_t count = std::min(group, n - first);
    auto chunk_out = [&](size_t k) {
      const uint64_t begin = uint64_t(first + k) * h.chunk_bytes;
      return std::span<uint8_t>(out.get(), out_bytes)
          .subspan(size_t(k * h.chunk_bytes), size_t(std::min<uint64_t>(h.chunk_bytes, h.original_length - begin)));
    };
    std::vector<zt::Status> status(count);
    detail::parallel_for(count, workers, [&](size_t k) {
      const size_t i = first + k;
      auto body = f.read_vec(offset[i], offset[i + 1] - offset[i]);
      status[k] = body.ok() ? detail::decode_chunk(body.value(), h.dtype, h.zara, chunk_out(k)) : body.status();
    });
    for (size_t k = 0; k < count; ++k) {
      if (!status[k].ok()) return {status[k].code(), "chunk " + std::to_string(first + k) + ": " + status[k].message()};
      hash.update(chunk_out(k));
      ZT_RETURN_IF_ERROR(emit(chunk_out(k)));
    }
  }
  if (hash.digest() != h.digest)
    return {zt::ErrorCode::digest_mismatch, "z4ai frame: decoded bytes do not match the stored XXH3-64 checksum"};
  return {};
}

// A contiguous = 0 container: one opaque frame, decoded whole; the
// tensors are counted from the header.
zt::Status decode_opaque(const PreadFile& f, const Prefix& p, std::span<const uint8_t> head, unsigned workers,
                         const Emit& emit, FileStats& stats) {
  const std::string& path = f.path();
  ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> len, f.read_vec(p.body_offset, 8));
  const uint64_t flen = detail::load_u64(len.data());
  if (flen != f.size() - p.body_offset - 8) return corrupt(path, "opaque frame length is wrong");
  ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> frame, f.read_vec(p.body_offset + 8, flen));
  ZT_ASSIGN_OR_RETURN(FrameInfo info, peek(frame));
  if (info.original_length != p.data_len || (info.kind != FrameKind::z4ai && info.kind != FrameKind::zara))
    return zt::Status(zt::ErrorCode::length_mismatch, "ZSTN '" + path + "': opaque frame does not decode to data_len");
  std::vector<uint8_t> st(head.begin() + 6, head.end() - 8);  // u64 header length + header
  ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> data, z4ai::decompress(frame, workers));
  detail::put_bytes(st, data);
  data = {};
  // Written from a file whose tensors need not tile its data buffer.
  ZT_ASSIGN_OR_RETURN(zt::SafetensorsLayout layout, detail::parse_safetensors_input(st, /*require_tiling=*/false));
  stats.tensors = layout.parsed.tensors.size();
  return emit(std::span<const uint8_t>(st).subspan(size_t(8 + p.header_len)));
}

// The index of a contiguous = 1 container, from its footer.
zt::Result<std::vector<IndexEntry>> read_index(const PreadFile& f, const Prefix& p) {
  const std::string& path = f.path();
  if (f.size() < p.body_offset + kFooterBytes) return corrupt(path, "too short for the footer");
  ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> footer, f.read_vec(f.size() - kFooterBytes, kFooterBytes));
  auto where = parse_footer(footer, f.size(), p.body_offset);
  if (!where.ok()) return zt::Status(where.status().code(), where.status().message() + " (in '" + path + "')");
  ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> index, f.read_vec(where->index_offset, where->index_len));
  return parse_index(index, p.data_len, p.body_offset, where->index_offset);
}

// The tensors of a contiguous = 1 container in order, a window of entries at
// a time: what decode_file keeps in memory at once.
zt::Status decode_entries(const PreadFile& f, const std::vector<IndexEntry>& entries, unsigned workers,
                          const Emit& emit) {
  const std::string& path = f.path();
  const unsigned n_workers = detail::resolve_threads(workers);
  const unsigned inner = workers == 1 ? 1 : 0;
  auto span_of = [&](size_t i) { return entries[i].dest_end - entries[i].dest_begin; };
  auto frame_of = [&](size_t i) -> const IndexEntry& {
    return entries[i].kind == EntryKind::frame ? entries[i] : entries[entries[i].ref_index];
  };
  auto failed = [&](size_t i, const zt::Status& s) {
    return zt::Status(s.code(), "ZSTN '" + path + "' tensor '" + entries[i].name + "': " + s.message());
  };
  for (size_t first = 0; first < entries.size();) {
    // A tensor over the window size alone streams chunk by chunk when its
    // frame is chunked (a whole-buffer zstd frame is decoded whole).
    if (span_of(first) > kWindowBytes) {
      // Byte 6 is the mode of our Z4AI/ZARA v2 header; PyPI z4ai 0.x frames
      // (version byte 1) have another layout and are decoded whole.
      ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> head7, f.read_vec(frame_of(first).frame_offset, 7));
      if (!detail::is_legacy_frame(head7) && head7[6] == 0) {
        zt::Status s = stream_frame(f, frame_of(first), span_of(first), n_workers, emit);
        if (!s.ok()) return failed(first, s);
        ++first;
        continue;
      }
    }
    size_t last = first;
    uint64_t bytes = 0;
    while (last < entries.size() && last - first < n_workers * kWindowEntriesPerWorker &&
           (last == first || (bytes < kWindowBytes && span_of(last) <= kWindowBytes))) {
      bytes += span_of(last);
      ++last;
    }
    std::vector<zt::Result<std::vector<uint8_t>>> decoded(last - first, std::vector<uint8_t>{});
    detail::parallel_for(decoded.size(), n_workers, [&](size_t k) {
      // A REF decodes the frame it names again: tied tensors are few, and
      // the window keeps no earlier output to copy from.
      decoded[k] = decode_entry(f, frame_of(first + k), inner);
    });
    for (size_t k = 0; k < decoded.size(); ++k) {
      if (!decoded[k].ok()) return failed(first + k, decoded[k].status());
      ZT_RETURN_IF_ERROR(emit(decoded[k].value()));
      decoded[k] = std::vector<uint8_t>{};
    }
    first = last;
  }
  return {};
}

// The safetensors file a container decodes to, handed to `sink` in order
// (nullptr: decode and check only); `progress` sees the bytes decoded so far
// of the safetensors file's size.
zt::Result<FileStats> decode_file(const std::string& path, unsigned workers, const ByteSink* sink,
                                  const ProgressFn& progress) {
  ZT_ASSIGN_OR_RETURN(auto f, PreadFile::open(path));
  FileStats stats;
  stats.input_bytes = f->size();
  uint64_t total = 0;  // known once the prefix is parsed
  const Emit emit = [&](std::span<const uint8_t> bytes) -> zt::Status {
    stats.output_bytes += bytes.size();
    if (progress) progress(stats.output_bytes, total);
    return sink ? (*sink)(bytes) : zt::Status();
  };
  ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> head, f->read_vec(0, std::min<uint64_t>(f->size(), 14)));
  if (!is_zstn(head)) return zt::Status(zt::ErrorCode::bad_magic, "'" + path + "': magic is not 'ZSTN'");
  const uint64_t header_len = head.size() == 14 ? detail::load_u64(head.data() + 6) : 0;
  if (head.size() < 14 || header_len > f->size() || 22 + header_len > f->size())
    return zt::Status(zt::ErrorCode::length_mismatch, "ZSTN container '" + path + "' is truncated in its prefix");
  ZT_ASSIGN_OR_RETURN(head, f->read_vec(0, 22 + header_len));
  ZT_ASSIGN_OR_RETURN(Prefix p, parse_prefix(head));
  total = 8 + header_len + p.data_len;
  ZT_RETURN_IF_ERROR(emit(std::span<const uint8_t>(head).subspan(6, size_t(8 + header_len))));
  if (!p.contiguous) {
    ZT_RETURN_IF_ERROR(decode_opaque(*f, p, head, workers, emit, stats));
    return stats;
  }
  ZT_ASSIGN_OR_RETURN(std::vector<IndexEntry> entries, read_index(*f, p));
  stats.tensors = entries.size();
  ZT_RETURN_IF_ERROR(decode_entries(*f, entries, workers, emit));
  return stats;
}

}  // namespace

zt::Result<FileStats> compress_file(const std::string& in_path, const std::string& out_path, const Options& o) {
  ZT_ASSIGN_OR_RETURN(auto in, PreadFile::open(in_path));
  ZT_ASSIGN_OR_RETURN(AnonymousImage image, AnonymousImage::reserve(in->size(), in_path));
  // The prefix and the JSON header now; tensor bytes as the writer asks.
  const uint64_t prefix = std::min<uint64_t>(in->size(), 8);
  ZT_RETURN_IF_ERROR(as_io_error(in->read_at(0, image.bytes().first(size_t(prefix)))));
  const uint64_t header_len = prefix == 8 ? detail::load_u64(image.bytes().data()) : 0;
  const uint64_t data_start = header_len <= in->size() - prefix ? prefix + header_len : prefix;
  ZT_RETURN_IF_ERROR(as_io_error(in->read_at(prefix, image.bytes().subspan(size_t(prefix), size_t(data_start - prefix)))));
  zt::test_pause("zstn:input-opened");
  InputPager pager;
  pager.fetch = [&](uint64_t begin, uint64_t end) {
    return as_io_error(in->read_at(data_start + begin, image.bytes().subspan(size_t(data_start + begin), size_t(end - begin))));
  };
  pager.drop = [&](uint64_t begin, uint64_t end) { image.release(data_start + begin, data_start + end); };
  pager.drop_all = [&] { image.release(data_start, in->size()); };
  ZT_ASSIGN_OR_RETURN(auto out, zt::AtomicFile::create(out_path));
  FileStats stats;
  stats.input_bytes = in->size();
  const ByteSink sink = [&](std::span<const uint8_t> bytes) {
    stats.output_bytes += bytes.size();
    return out->write(bytes);
  };
  zt::Status s = compress_paged(image.bytes(), o, sink, pager);
  if (s.ok()) s = out->commit();
  if (!s.ok()) {
    out->abort();  // the destination is left untouched
    return s;
  }
  return stats;
}

zt::Result<FileStats> decompress_file(const std::string& in_path, const std::string& out_path, unsigned workers,
                                      const ProgressFn& progress) {
  ZT_ASSIGN_OR_RETURN(auto out, zt::AtomicFile::create(out_path));
  const ByteSink sink = [&](std::span<const uint8_t> bytes) { return out->write(bytes); };
  auto stats = decode_file(in_path, workers, &sink, progress);
  zt::Status s = stats.status();
  if (s.ok()) s = out->commit();
  if (!s.ok()) {
    out->abort();
    return s;
  }
  return stats;
}

zt::Result<FileStats> verify_file(const std::string& in_path, unsigned workers, const ProgressFn& progress) {
  return decode_file(in_path, workers, nullptr, progress);
}

}  // namespace z4ai::zstn
