#include "remote/http_byte_source.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "remote/http_exchange.h"

namespace zt {
namespace {

// Transient failures (timeouts, dropped connections, 5xx, 429) are retried
// this many times in all, waiting kFirstBackoff, then twice as long each
// time up to kMaxBackoff: about 3 s in the worst case before giving up.
constexpr int kMaxAttempts = 5;
constexpr auto kFirstBackoff = std::chrono::milliseconds(100);
constexpr auto kMaxBackoff = std::chrono::milliseconds(2000);
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
  HttpByteSource(std::string url, std::string name) : url_(std::move(url)), name_(std::move(name)) {}
  Status open();
  uint64_t size() const override { return size_; }
  Status read_at(uint64_t offset, std::span<uint8_t> out) const override;
  const std::string& name() const override { return name_; }

 private:
  // One range GET with the retries; ok means a final, non-transient reply.
  Status exchange(uint64_t first, std::span<uint8_t> out, http::RangeReply& reply) const;
  // One range GET checked against what open() saw.
  Status fetch(uint64_t first, std::span<uint8_t> out) const;
  Status fail(ErrorCode code, const std::string& what) const {
    return Status(code, "'" + name_ + "': " + what);
  }
  std::unique_ptr<http::Handle> acquire() const;
  void release(std::unique_ptr<http::Handle> h) const;

  std::string url_;
  std::string name_;
  uint64_t size_ = 0;
  std::string etag_;
  std::string last_modified_;
  std::array<uint8_t, kHeadBytes> head_{};
  size_t head_size_ = 0;  // min(size, kHeadBytes)
  // Idle handles keep their connections open for the next request.
  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<http::Handle>> idle_;
};

std::unique_ptr<http::Handle> HttpByteSource::acquire() const {
  std::lock_guard lock(mu_);
  if (idle_.empty()) return std::make_unique<http::Handle>();
  auto h = std::move(idle_.back());
  idle_.pop_back();
  return h;
}

void HttpByteSource::release(std::unique_ptr<http::Handle> h) const {
  std::lock_guard lock(mu_);
  if (idle_.size() < kMaxParallelRequests) idle_.push_back(std::move(h));
}

Status HttpByteSource::exchange(uint64_t first, std::span<uint8_t> out, http::RangeReply& reply) const {
  auto wait = kFirstBackoff;
  Status last;
  for (int attempt = 1;; ++attempt) {
    auto h = acquire();
    last = http::get_range(*h, url_, first, out, reply);
    if (last.ok() && !reply.transient) {
      release(std::move(h));
      return last;
    }
    // A handle whose connection failed is not reused.
    if (!reply.transient) return fail(ErrorCode::io_error, last.message());
    if (attempt == kMaxAttempts) break;
    std::this_thread::sleep_for(wait);
    wait = std::min(wait * 2, kMaxBackoff);
  }
  const std::string why = last.ok() ? "HTTP " + std::to_string(reply.status) : last.message();
  return fail(ErrorCode::io_error, why + " (gave up after " + std::to_string(kMaxAttempts) + " attempts)");
}

Status HttpByteSource::open() {
  http::RangeReply reply;
  ZT_RETURN_IF_ERROR(exchange(0, head_, reply));
  if (reply.status == 200 && !(reply.received < kHeadBytes && !reply.overflow))
    return fail(ErrorCode::unsupported, "the server ignores Range requests (HTTP 200 instead of 206)");
  if (reply.status == 416) return fail(ErrorCode::unsupported, "the file is empty (HTTP 416 for its first bytes)");
  if (reply.status != 206 && reply.status != 200) return fail(ErrorCode::io_error, "HTTP " + std::to_string(reply.status));
  if (reply.status == 200) {  // a file shorter than the range: some servers send it whole
    size_ = head_size_ = static_cast<size_t>(reply.received);
  } else {
    uint64_t a = 0, b = 0;
    if (!http::parse_content_range(reply.content_range, a, b, size_) || a != 0 ||
        b + 1 != std::min<uint64_t>(size_, kHeadBytes) || reply.received != b + 1)
      return fail(ErrorCode::unsupported, "unusable Content-Range '" + reply.content_range + "' for bytes 0-" +
                                              std::to_string(kHeadBytes - 1));
    head_size_ = static_cast<size_t>(b + 1);
  }
  etag_ = reply.etag;
  last_modified_ = reply.last_modified;
  return Status::Ok();
}

Status HttpByteSource::fetch(uint64_t first, std::span<uint8_t> out) const {
  http::RangeReply reply;
  ZT_RETURN_IF_ERROR(exchange(first, out, reply));
  const std::string range = "bytes " + std::to_string(first) + "-" + std::to_string(first + out.size() - 1);
  if (reply.status == 200)
    return fail(ErrorCode::unsupported, "the server ignored Range for " + range + " (HTTP 200 instead of 206)");
  if (reply.status != 206) return fail(ErrorCode::io_error, "HTTP " + std::to_string(reply.status) + " for " + range);
  // §ByteSource: a changed file is length_mismatch, never a mix of versions.
  if (reply.etag != etag_)
    return fail(ErrorCode::length_mismatch, "the file changed while being read (ETag " + etag_ + " became " + reply.etag + ")");
  if (reply.last_modified != last_modified_)
    return fail(ErrorCode::length_mismatch, "the file changed while being read (Last-Modified " + last_modified_ +
                                                " became " + reply.last_modified + ")");
  uint64_t a = 0, b = 0, total = 0;
  if (!http::parse_content_range(reply.content_range, a, b, total))
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
  const uint64_t parts = std::clamp<uint64_t>(out.size() / kMinPartBytes, 1, kMaxParallelRequests);
  if (parts == 1) return fetch(offset, out);
  // Equal parts, the last one taking the remainder; each writes its own slice.
  const uint64_t part = out.size() / parts;
  std::vector<Status> results(parts);
  std::vector<std::thread> threads;
  for (uint64_t i = 1; i < parts; ++i) {
    const uint64_t begin = i * part, len = i + 1 == parts ? out.size() - begin : part;
    threads.emplace_back([&, i, begin, len] { results[i] = fetch(offset + begin, out.subspan(begin, len)); });
  }
  results[0] = fetch(offset, out.subspan(0, part));
  for (auto& t : threads) t.join();
  for (auto& r : results) ZT_RETURN_IF_ERROR(r);
  return Status::Ok();
}

}  // namespace

bool is_http_url(std::string_view path) {
  auto starts = [&](std::string_view scheme) {
    if (path.size() < scheme.size()) return false;
    for (size_t i = 0; i < scheme.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(path[i])) != scheme[i]) return false;
    return true;
  };
  return starts("http://") || starts("https://");
}

std::string redact_url(std::string_view url) {
  url = url.substr(0, url.find_first_of("?#"));
  const size_t host = url.find("://");
  if (host == std::string_view::npos) return std::string(url);
  const size_t path = url.find('/', host + 3);
  const size_t at = url.substr(0, path).rfind('@');
  if (at == std::string_view::npos || at < host) return std::string(url);
  return std::string(url.substr(0, host + 3)) + std::string(url.substr(at + 1));
}

Result<std::shared_ptr<const ByteSource>> open_http(const std::string& url) {
  auto source = std::make_shared<HttpByteSource>(url, redact_url(url));
  ZT_RETURN_IF_ERROR(source->open());
  return std::shared_ptr<const ByteSource>(std::move(source));
}

}  // namespace zt
