#include "remote/http_byte_source.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <thread>
#include <vector>

#include "remote/s3_target.h"

namespace zt::http {
namespace {

// A read of at least two parts of this size is split into that many
// concurrent range requests, at most kMaxParallelRequests.
constexpr uint64_t kMinPartBytes = uint64_t{8} << 20;
constexpr uint64_t kMaxParallelRequests = 4;
// The size probe on open fetches the first bytes rather than one: every
// format's magic (ZTEN1000, GGUF + version, \x93NUMPY + version, the
// safetensors header size) lies in them, so reading it costs no request.
constexpr size_t kHeadBytes = 8;

class HttpByteSource final : public ByteSource {
 public:
  HttpByteSource(std::unique_ptr<Fetcher> fetcher, ReplyWording wording)
      : fetcher_(std::move(fetcher)), wording_(std::move(wording)) {}
  Status open();
  uint64_t size() const override { return size_; }
  Status read_at(uint64_t offset, std::span<uint8_t> out) const override;
  const std::string& name() const override { return fetcher_->name(); }

 private:
  // One range GET checked against what open() saw.
  Status fetch(uint64_t first, std::span<uint8_t> out, const Deadline& deadline) const;
  // The error for a final reply whose status is not what was asked for.
  Status status_error(const RangeReply& reply, const std::string& what) const;
  Status fail(ErrorCode code, const std::string& what) const { return fetcher_->fail(code, what); }

  std::unique_ptr<Fetcher> fetcher_;
  ReplyWording wording_;
  uint64_t size_ = 0;
  std::string etag_;
  std::string last_modified_;
  std::array<uint8_t, kHeadBytes> head_{};
  size_t head_size_ = 0;  // min(size, kHeadBytes)
};

Status HttpByteSource::status_error(const RangeReply& reply, const std::string& what) const {
  std::string text = "HTTP " + std::to_string(reply.status) + what;
  const std::string s3_text = wording_.s3 ? aws::s3_error_text(reply.error_body) : "";
  if (!s3_text.empty()) text += " (" + s3_text + ")";
  if (wording_.s3 && reply.status == 404) return fail(ErrorCode::not_found, text);
  if (wording_.s3 && reply.status == 403) text += "; credentials: " + wording_.credentials;
  if (reply.status >= 300 && reply.status < 400 && reply.location.empty()) text += ", a redirect without a Location";
  return fail(ErrorCode::io_error, text);
}

Status HttpByteSource::open() {
  const Deadline deadline = Deadline::after(fetcher_->settings().open_deadline_ms, "open_deadline");
  RangeReply reply;
  ZT_RETURN_IF_ERROR(fetcher_->get(0, head_, deadline, reply));
  if (reply.status == 200 && !(reply.received < kHeadBytes && !reply.overflow))
    return fail(ErrorCode::unsupported, "the server ignores Range requests (HTTP 200 instead of 206)");
  if (reply.status == 416) return fail(ErrorCode::unsupported, "the file is empty (HTTP 416 for its first bytes)");
  if (reply.status != 206 && reply.status != 200) return status_error(reply, "");
  if (reply.status == 200) {  // a file shorter than the range: some servers send it whole
    size_ = head_size_ = static_cast<size_t>(reply.received);
  } else {
    uint64_t a = 0, b = 0;
    if (!parse_content_range(reply.content_range, a, b, size_) || a != 0 ||
        b + 1 != std::min<uint64_t>(size_, kHeadBytes) || reply.received != b + 1)
      return fail(ErrorCode::unsupported, "unusable Content-Range '" + reply.content_range + "' for bytes 0-" +
                                              std::to_string(kHeadBytes - 1));
    head_size_ = static_cast<size_t>(b + 1);
  }
  etag_ = reply.etag;
  last_modified_ = reply.last_modified;
  // §ByteSource: without a validator a second request cannot tell whether
  // the file changed since the first, so such a read could mix versions.
  if (etag_.empty() && last_modified_.empty() && size_ > head_size_ && !fetcher_->settings().allow_unvalidated)
    return fail(ErrorCode::unsupported,
                "the server sends neither ETag nor Last-Modified, so a read of several requests cannot tell whether "
                "the file changed between them; set allow_unvalidated (ZT_HTTP_ALLOW_UNVALIDATED=1 for zt) to read "
                "it anyway");
  return Status::Ok();
}

Status HttpByteSource::fetch(uint64_t first, std::span<uint8_t> out, const Deadline& deadline) const {
  RangeReply reply;
  ZT_RETURN_IF_ERROR(fetcher_->get(first, out, deadline, reply));
  const std::string range = "bytes " + std::to_string(first) + "-" + std::to_string(first + out.size() - 1);
  if (reply.status == 200)
    return fail(ErrorCode::unsupported, "the server ignored Range for " + range + " (HTTP 200 instead of 206)");
  if (reply.status != 206) return status_error(reply, " for " + range);
  // §ByteSource: a changed file is length_mismatch, never a mix of versions.
  if (reply.etag != etag_)
    return fail(ErrorCode::length_mismatch, "the file changed while being read (ETag " + etag_ + " became " + reply.etag + ")");
  if (reply.last_modified != last_modified_)
    return fail(ErrorCode::length_mismatch, "the file changed while being read (Last-Modified " + last_modified_ +
                                                " became " + reply.last_modified + ")");
  uint64_t a = 0, b = 0, total = 0;
  if (!parse_content_range(reply.content_range, a, b, total))
    return fail(ErrorCode::unsupported, "unusable Content-Range '" + reply.content_range + "' for " + range);
  if (total != size_)
    return fail(ErrorCode::length_mismatch, "the file changed size while being read (" + std::to_string(size_) +
                                                " bytes became " + std::to_string(total) + ")");
  if (a != first || b != first + out.size() - 1 || reply.overflow)
    return fail(ErrorCode::unsupported, "the server answered " + range + " with '" + reply.content_range + "'");
  if (reply.received != out.size())
    return fail(ErrorCode::length_mismatch, "got " + std::to_string(reply.received) + " of the " +
                                                std::to_string(out.size()) + " bytes of " + range);
  return Status::Ok();
}

Status HttpByteSource::read_at(uint64_t offset, std::span<uint8_t> out) const {
  if (offset > size_ || out.size() > size_ - offset)
    return fail(ErrorCode::offset_out_of_range, "bytes " + std::to_string(offset) + "+" + std::to_string(out.size()) +
                                                    " are past the end of a " + std::to_string(size_) + "-byte file");
  if (out.empty()) return Status::Ok();
  if (offset + out.size() <= head_size_) {
    std::memcpy(out.data(), head_.data() + offset, out.size());
    return Status::Ok();
  }
  // One deadline for the whole read: every part and every retry.
  const Deadline deadline = Deadline::after(fetcher_->settings().read_deadline_ms, "read_deadline");
  const uint64_t parts = std::clamp<uint64_t>(out.size() / kMinPartBytes, 1, kMaxParallelRequests);
  if (parts == 1) return fetch(offset, out, deadline);
  // Equal parts, the last one taking the remainder; each writes its own slice.
  const uint64_t part = out.size() / parts;
  std::vector<Status> results(parts);
  std::vector<std::thread> threads;
  for (uint64_t i = 1; i < parts; ++i) {
    const uint64_t begin = i * part, len = i + 1 == parts ? out.size() - begin : part;
    threads.emplace_back([&, i, begin, len] { results[i] = fetch(offset + begin, out.subspan(begin, len), deadline); });
  }
  results[0] = fetch(offset, out.subspan(0, part), deadline);
  for (auto& t : threads) t.join();
  for (auto& r : results) ZT_RETURN_IF_ERROR(r);
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<const ByteSource>> open_byte_source(std::unique_ptr<Fetcher> fetcher, ReplyWording wording) {
  auto source = std::make_shared<HttpByteSource>(std::move(fetcher), std::move(wording));
  ZT_RETURN_IF_ERROR(source->open());
  return std::shared_ptr<const ByteSource>(std::move(source));
}

}  // namespace zt::http
