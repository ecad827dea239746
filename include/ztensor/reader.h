// Reading .zt files (spec v1.2, v1.1 and v0.1). A Reader validates the whole
// manifest on open; afterwards every const method is safe to call from many
// threads at once, and reading one object touches only its own bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ztensor/buffers.h"
#include "ztensor/byte_source.h"
#include "ztensor/manifest.h"
#include "ztensor/source.h"
#include "ztensor/status.h"

namespace zt {

class MappedFile;
class ReadAhead;

struct ReadOptions {
  // Compressed components' digests are checked whenever they are decoded;
  // this also hashes raw components when they are read. A raw component of
  // a mapped file is then copied with pread rather than viewed, so a file
  // truncated under the reader is an io_error, never SIGBUS (conversions
  // read this way).
  bool verify_on_read = false;
};

// Decoded little-endian storage bytes of one component. Raw components are
// a zero-copy view into the mapping; `owner` keeps whatever backs the span
// alive (share it with a numpy array to keep the view valid).
struct ComponentBytes {
  std::span<const uint8_t> bytes;
  std::shared_ptr<const void> owner;
  bool zero_copy = false;
};

class Reader final : public TensorSource {
 public:
  // Maps and validates a file. Errors: io_error, bad_magic, manifest_too_large,
  // malformed_manifest, and every validation code of the manifest rules.
  static Result<std::unique_ptr<Reader>> open(const std::string& path, ReadOptions options = {});
  // Same over a file already mapped (open_source maps once to sniff and read).
  static Result<std::unique_ptr<Reader>> open(std::shared_ptr<const MappedFile> file, ReadOptions options = {});
  // Same over bytes in memory (fuzzing, tests). `owner` keeps them alive.
  static Result<std::unique_ptr<Reader>> open_memory(std::span<const uint8_t> bytes,
                                                     std::shared_ptr<const void> owner,
                                                     ReadOptions options = {});
  // Over positional reads (an HTTP URL, ...): reads the header magic, the
  // footer and the manifest on open, then each component's stored bytes when
  // it is read, nothing else. Digests present are always checked then, as
  // the bytes crossed a network. A mapped source is read in place.
  static Result<std::unique_ptr<Reader>> open(std::shared_ptr<const ByteSource> source, ReadOptions options = {});
  ~Reader() override;
  const char* format_name() const override { return "zt"; }

  const Manifest& manifest() const override { return manifest_; }
  // nullptr when there is no object of that name.
  const Object* find(std::string_view name) const override;
  // Decoded bytes of one component (decompressed, byte-swapped if legacy
  // big-endian). Errors: not_found, corrupt_stream, length_mismatch,
  // limit_exceeded, digest_mismatch, unknown_encoding.
  Result<ComponentBytes> read_component(const Object& object, std::string_view role) const override;
  Result<ComponentBytes> read_component(std::string_view name, std::string_view role) const;
  // read_component, a z4ai component decoding on at most `threads` threads
  // (0 = all cores); read_components calls this.
  Result<ComponentBytes> read_component_with_threads(const Object& object, std::string_view role,
                                                     unsigned threads) const override;
  // A raw little-endian component's range is read alone (a view of the
  // mapping, or one ranged read of the source) unless verify_on_read must
  // hash a component that has a digest; then, as for any other encoding,
  // the whole component is read, checked and decoded.
  Result<ComponentBytes> read_component_range(const Object& object, std::string_view role, uint64_t offset,
                                              uint64_t length) const override;
  // Stored (possibly compressed) bytes of a component: a view into the file,
  // or read from the ByteSource into memory that `owner` keeps alive.
  // Errors: the source's read errors.
  Result<ComponentBytes> stored_bytes(const Component& c) const;
  // Check every digest present; digest_mismatch names the first failure.
  Status verify() const override;
  Status verify_object(const Object& object) const;
  uint64_t file_size() const override { return size_; }
  // The whole file mapped again, copy-on-write, from the inode this reader
  // validated (a file since replaced under its path does not reach it), for
  // front ends that view raw components in memory they may write. Errors:
  // unsupported when the reader is not over a mapped file; io_error.
  Result<CopyOnWriteBytes> map_copy_on_write() const;
  // The component's stored bytes, read on a thread of their own and held
  // (at most kMaxReadsAhead of them) until read_component takes them
  // (TensorSource::prefetch): from a remote source, or from a file when they
  // would be read with pread (not a raw component viewed in the mapping).
  // In memory: nothing.
  void prefetch(const Object& object, std::string_view role) const override;

 private:
  Reader() = default;
  Status load(ReadOptions options);
  // io_error when the file was truncated under us past this component.
  Status check_backed(const Component& c) const;
  // Stored bytes for read_component: a view of the mapping for raw reads
  // without verify_on_read, else copied with pread (see reader.cc).
  Result<ComponentBytes> read_stored(const Object& object, std::string_view role, const Component& c) const;
  // Whether read_stored hands out the component in place (a view of the
  // mapping or memory) rather than reading it with pread: raw, unverified.
  bool stored_in_place(const Component& c) const;
  // Decoding without the verify-on-read digest check (callers decide).
  // `threads` as in read_component_with_threads.
  Result<ComponentBytes> decode_component(const Object& object, std::string_view role, const Component& c,
                                          const ComponentBytes& stored, unsigned threads = 0) const;
  // Bytes [offset, offset + length) of the file (checked by the caller).
  Result<ComponentBytes> fetch(uint64_t offset, uint64_t length) const;
  std::span<const uint8_t> bytes_;  // the whole file when mapped or in memory
  std::shared_ptr<const ByteSource> source_;  // otherwise
  std::unique_ptr<ReadAhead> read_ahead_;     // with source_ or file_: components read before they are asked for
  uint64_t size_ = 0;
  std::shared_ptr<const void> owner_;
  std::shared_ptr<const MappedFile> file_;  // null for open_memory: checked for truncation before a read
  ReadOptions options_;
  Manifest manifest_;
  std::unordered_map<std::string_view, size_t> index_;
};

}  // namespace zt
