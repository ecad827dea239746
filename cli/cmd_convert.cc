// zt convert IN OUT: any readable format -> .zt, safetensors or .npz.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.h"
#include "commands.h"
#include "dask_handoff.h"
#include "encoding_flags.h"
#include "progress.h"
#include "remote_flags.h"
#include "test_pause.h"
#include "ztensor/convert.h"

namespace zt::cli {
namespace {

constexpr const char* kConvertHelp =
    "Usage: zt convert IN OUT [--compress zstd|z4ai|none]\n"
    "                  [--effort fast|balanced|max] [--level N]\n"
    "                  [--checksum sha256|crc32c|none] [--max-shard-size SIZE]\n"
    "                  [--scheduler ADDRESS] [--json] [URL OPTIONS]\n"
    "\n"
    "Convert between formats. The input format is detected from its content:\n"
    ".zt, safetensors (or a sharded model's index.json, .zt or safetensors),\n"
    "GGUF, .npy/.npz, PyTorch zip checkpoints and .onnx. The output\n"
    "format comes from OUT's extension (.zt, .safetensors or .npz); without one, a\n"
    ".zt input becomes safetensors and anything else becomes .zt.\n"
    "  any -> .zt                   every object with all its components;\n"
    "                               metadata becomes the file attributes\n"
    "  any -> safetensors           dense objects only (a clear error otherwise);\n"
    "                               string attributes become __metadata__\n"
    "  any -> .npz                  dense objects numpy can hold (not bf16/fp8),\n"
    "                               stored uncompressed; attributes are dropped\n"
    "  .zt -> .zt                   re-encode (e.g. compress) every component\n"
    "  model folder -> folder       a Hugging Face model folder (safetensors weights,\n"
    "                               sharded or not, + config/tokenizer files): the\n"
    "                               weights become NAME.zt or .zt shards (by default\n"
    "                               as many as the input has; 5GB for one file),\n"
    "                               every other file is copied unchanged under its\n"
    "                               path in IN (a link as a file of its own name);\n"
    "                               a Hugging Face cache snapshot converts as is.\n"
    "                               Links leaving IN (except a snapshot's into its\n"
    "                               blobs/) and FIFOs, sockets and devices are\n"
    "                               refused; on error OUT is left as it was\n"
    ".zt digests are checked while reading.\n"
    "The output appears atomically: on error nothing is left at OUT.\n"
    "\n"
    "Options (for .zt output):\n"
    "  --compress E           encoding of every component: zstd, z4ai (the lossless\n"
    "                         weight codec) or none (default, raw)\n"
    "  --effort E             z4ai effort: fast (default, multi-GB/s decode),\n"
    "                         balanced or max (smallest, slowest to compress)\n"
    "  --level N              zstd level: -7..22 for zstd (default 3; alone it\n"
    "                         implies --compress zstd), 1..22 for the zstd stages\n"
    "                         of z4ai (default: the codec's)\n"
    "  --checksum ALGO        digest per component: sha256, crc32c or none (default)\n"
    "  --max-shard-size SIZE  write Hugging Face-style shards of at most SIZE tensor\n"
    "                         bytes each: OUT-00001-of-0000N.zt ... and\n"
    "                         OUT.zt.index.json (OUT without .zt); one file OUT\n"
    "                         when all fits. SIZE is\n"
    "                         bytes or 5GB/500MB (powers of 10), 2GiB (powers of 2);\n"
    "                         objects are never split; 0 = one file (default)\n"
    "  --scheduler ADDRESS    encode on the workers of the Dask scheduler at ADDRESS\n"
    "                         (tcp://host:port); the file is the same bytes as a\n"
    "                         local run's. Runs ztensor's Python front end\n"
    "                         ($ZT_PYTHON, else python3), which needs\n"
    "                         pip install 'ztensor[dask]'; the workers read IN\n"
    "                         themselves (a path they see, or a URL)\n"
    "Other options:\n"
    "  --json                 print the summary as one JSON object (command, input,\n"
    "                         output, input_format, output_format, objects,\n"
    "                         tensor_bytes, output_bytes, warnings)\n"
    "  -h, --help             show this help\n"
    "The same options as Python's ztensor.convert(IN, OUT, compression=...,\n"
    "effort=..., level=..., checksum=..., max_shard_size=...), giving the same\n"
    "file. OUT is a local path (an s3:// OUT: ztensor.convert uploads).\n"
    "\n"
    "Examples:\n"
    "  zt convert model.safetensors model.zt\n"
    "  zt convert model.safetensors model.zt --level 9 --checksum sha256\n"
    "  zt convert model.safetensors.index.json model.zt --compress zstd\n"
    "  zt convert model.safetensors model.zt --max-shard-size 5GB\n"
    "  zt convert model.safetensors model.zt --compress z4ai --effort balanced\n"
    "  zt convert s3://models/m.safetensors m.zt --endpoint-url http://127.0.0.1:9000\n"
    "  zt convert model.safetensors model.zt --compress zstd --scheduler tcp://h:8786\n"
    "  zt convert ./Qwen2-7B ./Qwen2-7B-zt --compress zstd\n"
    "  zt convert model.zt model.safetensors\n"
    "  zt convert model.zt arrays.npz\n"
    "  zt convert checkpoint.pt model.zt --json\n"
    "zt compress IN OUT.zt writes the same .zt with z4ai as its default.\n";

// IN is a model folder: OUT is a folder too.
int convert_folder(const std::string& in, const std::string& out, ConvertOptions options, bool json) {
  ProgressBar bar("converting");
  options.progress = [&bar](uint64_t done, uint64_t total) { bar.update(done, total); };
  Result<ConvertStats> r = convert_model_folder(in, out, options);
  bar.finish();
  if (!r.ok()) return status_error(r.status());
  for (const auto& w : r.value().warnings) std::fprintf(stderr, "zt: warning: %s\n", w.c_str());
  uint64_t out_size = 0;
  for (const auto& f : r.value().files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) == 0) out_size += static_cast<uint64_t>(st.st_size);
  }
  if (json) {
    nlohmann::ordered_json j = {{"command", "convert"},         {"input", in},
                                {"output", out},                {"input_format", "folder"},
                                {"output_format", "folder"},    {"objects", r.value().objects},
                                {"tensor_bytes", r.value().bytes}, {"output_bytes", out_size},
                                {"files", r.value().files},     {"warnings", r.value().warnings}};
    std::puts(j.dump().c_str());
    return kExitOk;
  }
  std::printf("%s -> %s: %llu objects, %s of tensor data, %zu files, %s written\n", in.c_str(), out.c_str(),
              static_cast<unsigned long long>(r.value().objects), human_bytes(r.value().bytes).c_str(),
              r.value().files.size(), human_bytes(out_size).c_str());
  return kExitOk;
}

constexpr OptionSpec kConvertOptions[] = {{"compress", true},       {"effort", true},    {"level", true},
                                          {"checksum", true},       {"max-shard-size", true},
                                          {"scheduler", true},      {"json", false}};

// The summary line (or --json object) of a finished conversion.
int report_conversion(const std::string& in, const std::string& out, FileFormat out_format,
                      const std::string& input_format, const ConvertStats& stats, bool json) {
  for (const auto& w : stats.warnings) std::fprintf(stderr, "zt: warning: %s\n", w.c_str());
  // .zt output lists what it published (one file, or shards + index).
  const std::vector<std::string> files = stats.files.empty() ? std::vector<std::string>{out} : stats.files;
  uint64_t out_size = 0;
  for (const auto& f : files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) == 0) out_size += static_cast<uint64_t>(st.st_size);
  }
  if (json) {
    nlohmann::ordered_json j = {{"command", "convert"},
                                {"input", in},
                                {"output", out},
                                {"input_format", input_format},
                                {"output_format", file_format_name(out_format)},
                                {"objects", stats.objects},
                                {"tensor_bytes", stats.bytes},
                                {"output_bytes", out_size},
                                {"files", files},
                                {"warnings", stats.warnings}};
    std::puts(j.dump().c_str());
    return kExitOk;
  }
  const std::string written =
      files.size() == 1 ? files[0] : std::to_string(files.size() - 1) + " shards + " + files.back();
  std::printf("%s -> %s: %llu objects, %s of tensor data, %s written\n", in.c_str(), written.c_str(),
              static_cast<unsigned long long>(stats.objects), human_bytes(stats.bytes).c_str(),
              human_bytes(out_size).c_str());
  return kExitOk;
}

int run_convert(const Invocation& inv) {
  const ParsedArgs& a = inv.args;
  const std::string& in = a.positionals[0];
  const std::string& out = a.positionals[1];

  EncodingFlags flags;
  if (const auto* c = a.get("compress")) {
    if (*c == "zstd") flags.encoding = Encoding::zstd;
    else if (*c == "z4ai") flags.encoding = Encoding::z4ai;
    else if (*c != "none" && *c != "raw")
      return usage_error("convert", "--compress must be zstd, z4ai or none, not '" + *c + "'");
  } else if (a.has("level")) {
    flags.encoding = Encoding::zstd;  // --level alone asks for zstd
  }
  if (a.has("level") && flags.encoding == Encoding::raw) return usage_error("convert", "--level needs --compress zstd or z4ai");
  if (std::string e = read_encoding_flags(a, &flags); !e.empty()) return usage_error("convert", e);
  if (std::string e = url_output_error(out); !e.empty()) return usage_error("convert", e);
  ConvertOptions options = flags.convert_options();

  const std::string* scheduler = a.get("scheduler");
  std::error_code ec;
  if (std::filesystem::is_directory(in, ec)) {
    if (scheduler) return usage_error("convert", "--scheduler takes a file or URL IN, not a model folder");
    return convert_folder(in, out, options, a.has("json"));
  }

  auto in_format = detect_format(in);
  if (!in_format.ok()) return status_error(in_format.status());
  FileFormat out_format = format_from_extension(out);
  const bool bin = out.size() >= 4 && out.compare(out.size() - 4, 4, ".bin") == 0;
  if (out_format == FileFormat::unknown || bin)  // .bin names any binary, not only PyTorch
    out_format = in_format.value() == FileFormat::zt ? FileFormat::safetensors : FileFormat::zt;
  if (out_format == FileFormat::zt_index) out_format = FileFormat::zt;  // OUT.zt.index.json names a sharded .zt set
  if (out_format != FileFormat::zt && out_format != FileFormat::safetensors && out_format != FileFormat::npz)
    return usage_error("convert", std::string("cannot write ") + file_format_name(out_format) +
                                      "; give OUT a .zt, .safetensors or .npz name");
  if (out_format != FileFormat::zt && (a.has("compress") || a.has("effort") || a.has("level") || a.has("checksum") ||
                                      a.has("max-shard-size")))
    return usage_error("convert",
                       "--compress, --effort, --level, --checksum and --max-shard-size apply to .zt output only");
  if (scheduler && out_format != FileFormat::zt)
    return usage_error("convert", "--scheduler applies to .zt output only");

  ProgressBar bar("converting");
  options.progress = [&bar](uint64_t done, uint64_t total) { bar.update(done, total); };
  std::string input_format;
  Result<ConvertStats> r = [&]() -> Result<ConvertStats> {
    if (scheduler) {
      ZT_ASSIGN_OR_RETURN(DaskConvertResult d, convert_on_dask(in, out, options, *scheduler, inv.remote.texts));
      input_format = d.input_format;
      return d.stats;
    }
    ZT_ASSIGN_OR_RETURN(auto source, open_source(in, /*verify_on_read=*/true));  // never copy bytes whose digest is wrong
    options.progress = [&bar](uint64_t done, uint64_t total) {
      bar.update(done, total);
      pause_for_test_after_progress(done);
    };
    input_format = source->format_name();
    return out_format == FileFormat::zt    ? convert_source_to_zt(*source, out, options)
           : out_format == FileFormat::npz ? convert_source_to_npz(*source, out, options.progress)
                                           : convert_source_to_safetensors(*source, out, options.progress);
  }();
  bar.finish();
  if (!r.ok()) return status_error(r.status());

  return report_conversion(in, out, out_format, input_format, r.value(), a.has("json"));
}

}  // namespace

const Command kConvertCommand{
    "convert",
    "  convert IN OUT [OPTIONS]      any -> .zt; .zt -> safetensors, .npz or .zt\n",
    kConvertHelp,
    kConvertOptions,
    /*reads_urls=*/true,
    /*operands=*/2,
    "expected IN and OUT",
    kExitBadInput,
    run_convert};

}  // namespace zt::cli
