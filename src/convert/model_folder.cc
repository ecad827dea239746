// A Hugging Face model folder (config, tokenizer files and safetensors
// weights, sharded or not) converted to a folder whose weights are .zt
// shards: every other file is copied byte for byte.
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "convert/shard_index.h"
#include "common/atomic_file.h"
#include "ztensor/convert.h"
#include "common/mapped_file.h"

namespace zt {
namespace {

namespace fs = std::filesystem;

// transformers' default max_shard_size for save_pretrained.
constexpr uint64_t kDefaultMaxShardSize = 5'000'000'000ull;

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

Status copy_file(const fs::path& from, const fs::path& to, bool durable) {
  ZT_ASSIGN_OR_RETURN(auto in, MappedFile::open(from.string()));
  ZT_ASSIGN_OR_RETURN(auto out, AtomicFile::create(to.string(), durable));
  ZT_RETURN_IF_ERROR(out->write(in->bytes()));
  return out->commit();
}

}  // namespace

Result<ConvertStats> convert_model_folder(const std::string& in_dir, const std::string& out_dir,
                                          const ConvertOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(in_dir, ec))
    return Status(ErrorCode::io_error, "model folder '" + in_dir + "' is not a folder");
  if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec))
    return Status(ErrorCode::invalid_argument, "output '" + out_dir + "' exists and is not a folder");
  if (fs::equivalent(in_dir, out_dir, ec))
    return Status(ErrorCode::invalid_argument, "output folder '" + out_dir + "' is the input folder");
  std::vector<std::string> top;
  for (const auto& e : fs::directory_iterator(in_dir, ec))
    if (e.is_regular_file()) top.push_back(e.path().filename().string());
  if (ec) return Status(ErrorCode::io_error, "cannot list model folder '" + in_dir + "': " + ec.message());
  std::sort(top.begin(), top.end());
  ZT_ASSIGN_OR_RETURN(Weights weights, find_weights(in_dir, top));

  ZT_ASSIGN_OR_RETURN(auto source, open_source(weights.entry, /*verify_on_read=*/true));
  fs::create_directories(out_dir, ec);
  if (ec) return Status(ErrorCode::io_error, "cannot create folder '" + out_dir + "': " + ec.message());
  ConvertOptions o = options;
  if (o.max_shard_size == 0) o.max_shard_size = input_shard_size(*source);
  ZT_ASSIGN_OR_RETURN(ConvertStats stats, convert_source_to_zt(*source, out_dir + "/" + weights.stem + ".zt", o));

  // Everything else (config, tokenizer, README, subfolders) byte for byte.
  for (auto it = fs::recursive_directory_iterator(in_dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path rel = fs::relative(it->path(), in_dir, ec);
    if (ec) break;
    if (it->is_directory()) {
      std::error_code same;
      if (fs::equivalent(it->path(), out_dir, same)) {  // OUT inside IN: never copy the output into itself
        it.disable_recursion_pending();
        continue;
      }
      fs::create_directories(fs::path(out_dir) / rel, ec);
      continue;
    }
    if (!it->is_regular_file() || (it.depth() == 0 && weights.files.count(rel.string()))) continue;
    ZT_RETURN_IF_ERROR(copy_file(it->path(), fs::path(out_dir) / rel, options.durable));
    stats.files.push_back((fs::path(out_dir) / rel).string());
  }
  if (ec) return Status(ErrorCode::io_error, "cannot copy model folder '" + in_dir + "': " + ec.message());
  return stats;
}

}  // namespace zt
