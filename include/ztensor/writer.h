// Writing .zt v1.2 files. Objects are streamed to a temporary file beside the
// destination as they are added (memory does not grow with the file);
// finish() appends manifest + footer, fsyncs and renames it into place.
// A Writer destroyed before finish() leaves nothing behind. Output is
// deterministic: the same calls give byte-identical files.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "ztensor/manifest.h"
#include "ztensor/status.h"

namespace zt {

class AtomicFile;

enum class DigestAlgo : uint8_t { none, sha256, crc32c };

// `level` of a component's encoding. 0 asks for the encoding's own default:
// zstd's (3), and z4ai's (zstd 3 inside effort fast, 9 balanced, 19 max).
// Any other value is a zstd level: -7..22 for zstd, 1..22 for the zstd stages
// of z4ai (outside that range z4ai takes its default).
inline constexpr int kDefaultLevel = 0;

struct ComponentSpec {
  std::string role;
  DType dtype = DType::u8;
  LogicalType type = LogicalType::none;
  std::span<const uint8_t> data;  // little-endian storage elements
  Encoding encoding = Encoding::raw;
  int level = kDefaultLevel;      // see kDefaultLevel
  uint8_t effort = 0;             // z4ai: 0 default (fast), 1 balanced, 2 max
  unsigned threads = 0;           // z4ai: encoder threads, 0 = every core (same bytes for any value)
  DigestAlgo digest = DigestAlgo::none;
  // Set when `data` already holds the stored bytes in `encoding` (made by
  // encode_component(), e.g. on another machine): they are written as they
  // are, the digest taken over them (spec §1 Component: a digest covers the
  // stored bytes), and `decoded_length` is the component's decoded size,
  // which the object's rules are checked against.
  bool pre_encoded = false;
  uint64_t decoded_length = 0;

  uint64_t decoded_size() const { return pre_encoded ? decoded_length : data.size(); }
};

// The stored bytes Writer::add would write for `spec` (its data, encoding,
// level, effort, dtype and type; not its digest): compression can run
// anywhere and a Writer then appends the result with `pre_encoded`, giving
// the same file. Errors: unknown_encoding, the codec's.
Result<std::vector<uint8_t>> encode_component(const ComponentSpec& spec);

struct ObjectSpec {
  std::string name;
  std::vector<uint64_t> shape;
  std::string format = "dense";
  Value attributes;  // map or null
  std::vector<ComponentSpec> components;
};

class Writer {
 public:
  // `durable` (the default) fsyncs the file before the atomic rename, so a
  // published file survives a power loss; false keeps the rename (never a
  // half-written file at `path`) but leaves the data to the page cache, as
  // safetensors and torch.save do. Errors: io_error when the temporary
  // cannot be created.
  static Result<std::unique_ptr<Writer>> create(const std::string& path, Value attributes = {}, bool durable = true);
  ~Writer();

  // Validates (same rules as the reader) and streams the object's
  // components to disk. Errors: invalid_argument (duplicate name, wrong
  // component set), length_mismatch, shape_overflow, and io_error.
  Status add(const ObjectSpec& object);
  // Manifest + footer, fsync (when durable), atomic rename. Errors: io_error.
  Status finish();
  // finish() in two steps, for files published together (ShardedWriter):
  // seal() writes manifest + footer and syncs the temporary without
  // publishing it (add() is refused afterwards); publish() renames it onto
  // `dest` (empty: the path given to create()). Errors: io_error.
  Status seal();
  Status publish(const std::string& dest = {});
  // Drop everything written so far; the destination is untouched.
  void abort();
  size_t object_count() const { return manifest_.objects.size(); }

 private:
  Writer() = default;
  Status write_component(const ComponentSpec& spec, Component& out);
  std::unique_ptr<AtomicFile> file_;
  Manifest manifest_;
  std::unordered_set<std::string> names_;
  bool sealed_ = false;
};

}  // namespace zt
