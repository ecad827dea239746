// A Hugging Face model folder (config, tokenizer files and safetensors
// weights, sharded or not) converted to a folder whose weights are .zt
// shards: every other file is copied byte for byte, under its path in the
// input folder (links and special files: folder_scan.h).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ztensor/test_pause.h"
#include "convert/folder_scan.h"
#include "convert/shard_index.h"
#include "common/atomic_file.h"
#include "ztensor/convert.h"
#include "common/mapped_file.h"

namespace zt {
namespace {

namespace fs = std::filesystem;

// transformers' default max_shard_size for save_pretrained.
constexpr uint64_t kDefaultMaxShardSize = 5'000'000'000ull;
// Bytes read and written at a time when copying a file.
constexpr size_t kCopyBufferBytes = size_t{1} << 20;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The weights of a folder: an index (whose shards come with it) or one
// safetensors file; `stem` names the output ("model" for model.safetensors).
struct Weights {
  std::string entry;           // what open_source opens
  std::set<std::string> files;  // top-level names consumed (not copied)
  std::string stem;
};

Result<Weights> find_weights(const std::string& dir, const std::vector<std::string>& top) {
  std::vector<std::string> indexes, singles;
  for (const auto& f : top) {
    if (ends_with(f, ".safetensors.index.json") || ends_with(f, ".zt.index.json")) indexes.push_back(f);
    else if (ends_with(f, ".safetensors")) singles.push_back(f);
  }
  const std::string where = "model folder '" + dir + "': ";
  Weights w;
  if (indexes.size() > 1)
    return Status(ErrorCode::invalid_argument, where + "holds " + std::to_string(indexes.size()) +
                                                   " weight indexes ('" + indexes[0] + "', '" + indexes[1] +
                                                   "'); convert them one at a time");
  if (indexes.size() == 1) {
    const std::string& name = indexes[0];
    w.entry = dir + "/" + name;
    const std::string_view suffix = ends_with(name, ".zt.index.json") ? ".zt.index.json" : ".safetensors.index.json";
    w.stem = name.substr(0, name.size() - suffix.size());
    ZT_ASSIGN_OR_RETURN(ShardIndex index, read_shard_index(w.entry, "index", "tensor"));
    w.files = index.files;
    w.files.insert(name);
    return w;
  }
  if (singles.size() == 1) {
    w.entry = dir + "/" + singles[0];
    w.stem = singles[0].substr(0, singles[0].size() - std::string_view(".safetensors").size());
    w.files.insert(singles[0]);
    return w;
  }
  if (singles.empty())
    return Status(ErrorCode::not_found, where + "holds no *.safetensors file and no *.safetensors.index.json");
  return Status(ErrorCode::invalid_argument, where + "holds " + std::to_string(singles.size()) +
                                                 " safetensors files and no index naming them as one model");
}

// Whether `name` is one the converted weights of `stem` are written under.
bool is_weights_output(const std::string& name, const std::string& stem) {
  return name == stem + ".zt" || name == stem + ".zt.index.json" ||
         (name.starts_with(stem + "-") && ends_with(name, ".zt"));
}

// The input's own shard size, so the .zt set keeps its shard count: the
// largest shard's tensor bytes. Packing again in the same order with this
// limit reproduces a transformers-packed split exactly (each input shard
// fits, and the next tensor overflowed a limit at least this large).
uint64_t input_shard_size(const TensorSource& source) {
  const auto shards = source.shard_paths();
  if (shards.size() <= 1) return kDefaultMaxShardSize;
  uint64_t largest = 0;  // each shard opened alone: only its header is read
  for (const auto& path : shards) {
    auto shard = open_source(path);
    if (!shard.ok()) return kDefaultMaxShardSize;
    uint64_t bytes = 0;
    for (const auto& o : shard.value()->manifest().objects) bytes += object_decoded_size(o);
    largest = std::max(largest, bytes);
  }
  return largest == 0 ? kDefaultMaxShardSize : largest;
}

// Copies with read(), not a mapping: a file truncated meanwhile is an
// io_error, never SIGBUS. O_NONBLOCK: a FIFO put in place of a scanned file
// must not block the open (the fstat refuses it).
Status copy_file(const std::string& from, const std::string& to, bool durable) {
  const int fd = ::open(from.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Status::from_errno(ErrorCode::io_error, "cannot open '" + from + "'", errno);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Status::from_errno(ErrorCode::io_error, "cannot stat '" + from + "'", errno);
  if (!S_ISREG(st.st_mode)) return Status(ErrorCode::unsupported, "'" + from + "' is no longer a regular file");
  ZT_ASSIGN_OR_RETURN(auto out, AtomicFile::create(to, durable));
  std::unique_ptr<uint8_t[]> buf(new uint8_t[kCopyBufferBytes]);
  uint64_t copied = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buf.get(), kCopyBufferBytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::from_errno(ErrorCode::io_error, "cannot read '" + from + "'", errno);
    if (n == 0) break;
    ZT_RETURN_IF_ERROR(out->write({buf.get(), static_cast<size_t>(n)}));
    copied += static_cast<uint64_t>(n);
  }
  if (copied != static_cast<uint64_t>(st.st_size))
    return Status(ErrorCode::io_error, "'" + from + "' changed size while copied (" + std::to_string(st.st_size) +
                                           " bytes when opened, " + std::to_string(copied) + " read)");
  return out->commit();
}

// What a conversion made under OUT, taken back unless keep() is called:
// the files it published, then the folders it created (OUT too), deepest
// first. Folders under OUT that exist are reused only when they are real
// folders, so no write goes through a link out of OUT.
class FolderOutput {
 public:
  explicit FolderOutput(std::string out) : out_(std::move(out)) {}
  ~FolderOutput() {
    if (kept_) return;
    for (const auto& f : files_) ::unlink(f.c_str());
    for (auto it = folders_.rbegin(); it != folders_.rend(); ++it) ::rmdir(it->c_str());
  }
  Status make_root() {
    struct stat st {};
    if (::stat(out_.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return Status::Ok();
      return Status(ErrorCode::invalid_argument, "output '" + out_ + "' exists and is not a folder");
    }
    return make(out_);
  }
  Status make_folder(const std::string& rel) {
    const std::string path = out_ + "/" + rel;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return make(path);
    if (S_ISDIR(st.st_mode)) return Status::Ok();
    return Status(ErrorCode::invalid_argument, "output '" + path + "' exists and is not a folder (a link?): "
                                                                   "folder conversion writes only inside '" + out_ + "'");
  }
  void record(const std::string& file) { files_.push_back(file); }
  void keep() { kept_ = true; }

 private:
  Status make(const std::string& path) {
    std::error_code ec;
    if (!fs::create_directory(path, ec) || ec)
      return Status(ErrorCode::io_error, "cannot create folder '" + path + "': " +
                                             (ec ? ec.message() : std::string("it appeared meanwhile")));
    folders_.push_back(path);
    return Status::Ok();
  }
  std::string out_;
  std::vector<std::string> files_, folders_;
  bool kept_ = false;
};

Status check_folders(const std::string& in_dir, const std::string& out_dir) {
  std::error_code ec;
  if (!fs::is_directory(in_dir, ec))
    return Status(ErrorCode::io_error, "model folder '" + in_dir + "' is not a folder");
  if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec))
    return Status(ErrorCode::invalid_argument, "output '" + out_dir + "' exists and is not a folder");
  if (fs::equivalent(in_dir, out_dir, ec))
    return Status(ErrorCode::invalid_argument, "output folder '" + out_dir + "' is the input folder");
  const fs::path real_in = fs::canonical(in_dir, ec), real_out = fs::weakly_canonical(out_dir, ec);
  if (!ec && real_in.string().starts_with(real_out.string() + "/"))
    return Status(ErrorCode::invalid_argument, "output folder '" + out_dir + "' holds the input folder '" + in_dir +
                                                   "': the copies could land on the input's own files");
  return Status::Ok();
}

}  // namespace

Result<ConvertStats> convert_model_folder(const std::string& in_dir, const std::string& out_dir,
                                          const ConvertOptions& options) {
  ZT_RETURN_IF_ERROR(check_folders(in_dir, out_dir));
  // Everything is looked at before anything is written: a refused link or
  // special file costs no conversion and leaves no output.
  ZT_ASSIGN_OR_RETURN(std::vector<FolderEntry> entries, scan_model_folder(in_dir, out_dir));
  std::vector<std::string> top;
  for (const auto& e : entries)
    if (e.top && !e.folder) top.push_back(e.rel);
  ZT_ASSIGN_OR_RETURN(Weights weights, find_weights(in_dir, top));
  std::vector<const FolderEntry*> copies;
  for (const auto& e : entries) {
    if (e.folder || (e.top && weights.files.count(e.rel))) continue;
    if (e.top && is_weights_output(e.rel, weights.stem))
      return Status(ErrorCode::invalid_argument, "model folder '" + in_dir + "': '" + e.rel +
                                                     "' has a name the converted weights are written under");
    copies.push_back(&e);
  }
  ZT_ASSIGN_OR_RETURN(auto source, open_source(weights.entry, /*verify_on_read=*/true));

  FolderOutput output(out_dir);
  ZT_RETURN_IF_ERROR(output.make_root());
  ConvertOptions o = options;
  if (o.max_shard_size == 0) o.max_shard_size = input_shard_size(*source);
  ZT_ASSIGN_OR_RETURN(ConvertStats stats, convert_source_to_zt(*source, out_dir + "/" + weights.stem + ".zt", o));
  for (const auto& f : stats.files) output.record(f);
  test_pause("folder:weights-published");
  // Everything else (config, tokenizer, README, subfolders) byte for byte,
  // named by its path under the input folder, never by a link's target.
  for (const auto& e : entries)
    if (e.folder) ZT_RETURN_IF_ERROR(output.make_folder(e.rel));
  for (const FolderEntry* e : copies) {
    const std::string dest = out_dir + "/" + e->rel;
    ZT_RETURN_IF_ERROR(copy_file(e->path, dest, options.durable));
    output.record(dest);
    stats.files.push_back(dest);
  }
  output.keep();
  return stats;
}

}  // namespace zt
