// Opening any supported weight format as a TensorSource, and converting
// between formats. Conversions stream one object at a time: memory does not
// grow with the file, and the output appears atomically (all or nothing).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ztensor/byte_source.h"
#include "ztensor/manifest.h"
#include "ztensor/source.h"
#include "ztensor/status.h"
#include "ztensor/writer.h"

namespace zt {

// safetensors_index: a sharded model's `model.safetensors.index.json`;
// zt_index: a sharded .zt set's `NAME.zt.index.json` (its weight_map names .zt shards).
enum class FileFormat : uint8_t { unknown, zt, safetensors, safetensors_index, gguf, npy, npz, pytorch, onnx, zt_index };
// "zt", "safetensors", "safetensors_index", "gguf", "npy", "npz", "pytorch",
// "onnx", "zt_index", "unknown". ONNX has no magic: it is recognised by its
// first fields (ir_version, then another ModelProto field).
const char* file_format_name(FileFormat f);

// Detects a file's format from its first bytes (magics; a plausible
// safetensors size prefix followed by '{'; ONNX's leading ir_version field;
// a zip's first member: .npy for npz, a torch.save or torch.jit.save record
// for pytorch), using the extension only where content cannot decide (a zip
// of other members; .json: an index, .zt shards making it zt_index, anything
// else safetensors_index).
// Errors: io_error.
Result<FileFormat> detect_format(const std::string& path);
// Format implied by a path's extension alone (.zt, .safetensors, .json, ...).
FileFormat format_from_extension(const std::string& path);
// Whether this build can read the format (parsers are optional modules).
bool format_supported(FileFormat f);

// A safetensors file, or every shard of a `*.index.json`, as one source of
// dense objects viewing the mapped files. Errors: the safetensors
// validation codes (see src/convert/safetensors_reader.h), io_error.
Result<std::unique_ptr<TensorSource>> open_safetensors(const std::string& path);
Result<std::unique_ptr<TensorSource>> open_safetensors_memory(std::span<const uint8_t> bytes,
                                                              std::shared_ptr<const void> owner);

// Whether open_source() reads `path` over the network (an http:// or
// https:// URL, whose extension then decides the format) rather than as a file.
bool is_remote_url(const std::string& path);
// Size in bytes of the file at an http(s) URL (one small request). Errors:
// io_error, unsupported (the server ignores Range).
Result<uint64_t> remote_file_size(const std::string& url);

// Opens URLs of schemes other than http(s) (s3://, hf://, ... through
// fsspec from Python) for open_source on this thread while the guard lives:
// the URL, and for a sharded index each shard's URL beside it, becomes a
// ByteSource from `opener`. Guards nest; the innermost wins.
using UrlOpener = std::function<Result<std::shared_ptr<const ByteSource>>(const std::string& url)>;
class ScopedUrlOpener {
 public:
  explicit ScopedUrlOpener(UrlOpener opener);
  ~ScopedUrlOpener();
  ScopedUrlOpener(const ScopedUrlOpener&) = delete;
  ScopedUrlOpener& operator=(const ScopedUrlOpener&) = delete;

 private:
  UrlOpener opener_;
  const ScopedUrlOpener* outer_;
  friend Result<std::shared_ptr<const ByteSource>> open_url(const std::string& url);
  friend bool is_url_path(const std::string& path);
};

// Opens any supported format, detected by content. .zt files (and the
// shards of a .zt index) are opened with `verify_on_read`. Errors: unsupported (unknown or not built in), and
// the format's own errors.
Result<std::unique_ptr<TensorSource>> open_source(const std::string& path, bool verify_on_read = false);

// open_source's source with the format it detected (the one sniff serves
// both: `zt info` names the format of what it opened).
struct DetectedSource {
  FileFormat format = FileFormat::unknown;
  std::unique_ptr<TensorSource> source;
};
Result<DetectedSource> open_detected_source(const std::string& path, bool verify_on_read = false);

// A .zt, safetensors, GGUF or .npy file over positional reads (an HTTP or
// fsspec URL), in the given format (chosen by the caller, e.g. from the
// name's extension): headers and manifests on open, each component's bytes
// when it is read; .zt digests are always checked. Errors: unsupported
// (another format), and the format's and the source's errors.
Result<std::unique_ptr<TensorSource>> open_source(std::shared_ptr<const ByteSource> source, FileFormat format,
                                                  bool verify_on_read = false);

// An object's decoded bytes as its manifest tells them (the sum over its
// components): what a conversion reads, and what shard sizes count.
uint64_t object_decoded_size(const Object& object);

// Called after each object with bytes done so far and the total.
using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;

// One component's stored bytes in ConvertOptions' encoding, made elsewhere
// by encode_component() (e.g. on a Dask worker), and its decoded size.
struct EncodedComponent {
  std::vector<uint8_t> stored;
  uint64_t decoded_length = 0;
};
// Returns the encoded components of the `index`-th source object, in its
// component order; an error aborts the conversion.
using EncodedObjectFn = std::function<Result<std::vector<EncodedComponent>>(size_t index, const Object& object)>;

struct ConvertOptions {
  Encoding encoding = Encoding::raw;  // raw, zstd or z4ai (once registered) for .zt output
  int level = kDefaultLevel;          // the encoding's level (kDefaultLevel, writer.h)
  uint8_t effort = 0;                 // z4ai: 0 fast, 1 balanced, 2 max
  DigestAlgo digest = DigestAlgo::none;
  bool durable = true;                // .zt output: fsync before the atomic rename (see Writer::create)
  // .zt output: shards of at most this many decoded bytes (0 = one file);
  // see ShardedWriter for the naming and the rule.
  uint64_t max_shard_size = 0;
  ProgressFn progress;                // optional
  // .zt output, optional: when set, components come from here already
  // encoded instead of being read from the source and encoded in turn; the
  // source gives only the manifest. The file is the same as without it.
  EncodedObjectFn encoded;
  // .zt output, optional: convert only these source objects (indices in
  // source order, ascending), e.g. one shard of plan_shards() on a Dask
  // worker; empty = every object.
  std::vector<size_t> objects;
};

struct ConvertStats {
  uint64_t objects = 0;
  uint64_t bytes = 0;  // decoded component bytes converted
  std::vector<std::string> warnings;  // e.g. attributes that could not be kept
  // .zt output: the files published (the one file, or the shards then the index).
  std::vector<std::string> files;
};

// Any source -> .zt: every object with all its components, attributes and
// the file attributes, in source order, re-encoded per `options`; sharded
// (NAME-00001-of-0000N.zt + NAME.zt.index.json) when `max_shard_size` asks
// for more than one shard. Errors: not_found when the source holds no object
// (no output is written; the same for every convert_* below), the source's
// read errors, then the Writer's; nothing is published on error.
Result<ConvertStats> convert_source_to_zt(const TensorSource& source, const std::string& out,
                                          const ConvertOptions& options = {});
// Any source -> safetensors: dense objects only (anything else is
// `unsupported`, naming the object and its format). String file attributes
// become `__metadata__`; others are listed in ConvertStats::warnings.
Result<ConvertStats> convert_source_to_safetensors(const TensorSource& source, const std::string& out,
                                                   const ProgressFn& progress = {});

// Any source -> NumPy .npz (stored members, zip64 when needed): dense
// objects whose type numpy has (not bf16/fp8; anything else is
// `unsupported`, naming the object). Attributes cannot be kept and are
// listed in ConvertStats::warnings. Needs the NumPy module (else unsupported).
Result<ConvertStats> convert_source_to_npz(const TensorSource& source, const std::string& out,
                                           const ProgressFn& progress = {});

// A Hugging Face model folder (safetensors weights, sharded with an index
// or one file, beside config/tokenizer files) -> a folder holding the
// weights as NAME.zt or .zt shards (NAME from the input's weights, e.g.
// "model") and every other file and subfolder copied unchanged.
// `options.max_shard_size` 0 keeps the input's split (its largest shard's
// tensor bytes; 5 GB, transformers' default, for one file). stats.files
// lists the .zt files, then the copies. Errors: not_found (no weights),
// invalid_argument (several candidate weights, output is a file or the
// input), the conversion's and io_error.
Result<ConvertStats> convert_model_folder(const std::string& in_dir, const std::string& out_dir,
                                          const ConvertOptions& options = {});

// Path-based conveniences. The input may be any supported format; .zt
// inputs have their digests checked while read.
Result<ConvertStats> convert_to_zt(const std::string& in, const std::string& out, const ConvertOptions& options = {});
Result<ConvertStats> convert_to_safetensors(const std::string& in, const std::string& out,
                                            const ConvertOptions& options = {});
Result<ConvertStats> convert_to_npz(const std::string& in, const std::string& out, const ConvertOptions& options = {});

// Named forms of the safetensors <-> .zt directions, kept for callers of earlier releases.
inline Result<ConvertStats> convert_safetensors_to_zt(const std::string& in, const std::string& out,
                                                      const ConvertOptions& options = {}) {
  return convert_to_zt(in, out, options);
}
inline Result<ConvertStats> convert_zt_to_safetensors(const std::string& in, const std::string& out,
                                                      const ConvertOptions& options = {}) {
  return convert_to_safetensors(in, out, options);
}
inline Result<ConvertStats> convert_zt_to_zt(const std::string& in, const std::string& out,
                                             const ConvertOptions& options = {}) {
  return convert_to_zt(in, out, options);
}

}  // namespace zt
