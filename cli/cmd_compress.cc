// zt compress IN OUT: safetensors -> ZSTN v3 (.zstn), or any source -> .zt
// with every component re-encoded (z4ai by default).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "args.h"
#include "codec_job.h"
#include "ztensor/files.h"
#include "commands.h"
#include "dask_handoff.h"
#include "encoding_flags.h"
#include "progress.h"
#include "remote_flags.h"
#include "z4ai/codec.h"
#include "z4ai/zstn.h"
#include "ztensor/convert.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"

namespace zt::cli {
namespace {

constexpr const char* kCompressHelp =
    "Usage: zt compress IN OUT [--effort fast|balanced|max] [--threads N]\n"
    "                          [--encoding z4ai|zstd|raw] [--level N]\n"
    "                          [--checksum sha256|crc32c|none]\n"
    "                          [--max-shard-size SIZE] [--scheduler ADDRESS]\n"
    "                          [--json] [URL OPTIONS]\n"
    "\n"
    "Compress a checkpoint losslessly. What is written depends on OUT:\n"
    "  OUT.zstn   IN must be a safetensors file: ZSTN v3, the safetensors header\n"
    "             kept verbatim and every tensor its own z4ai frame (one tensor\n"
    "             can be read without the others; tied tensors are stored once).\n"
    "             `zt decompress` gives back the original file byte for byte.\n"
    "  OUT.zt     IN may be any format zt reads (.zt, safetensors or an index,\n"
    "             GGUF, .npy/.npz, PyTorch zip, .onnx): a .zt file with every\n"
    "             component encoded with --encoding (default z4ai).\n"
    "Other OUT names: a safetensors IN becomes ZSTN, anything else .zt.\n"
    "The output appears atomically: on error nothing is left at OUT.\n"
    "\n"
    "Options:\n"
    "  --effort E          z4ai effort: fast (the default, multi-GB/s decode),\n"
    "                      balanced, or max (smallest, slowest to compress);\n"
    "                      `default` is accepted for fast\n"
    "  --threads N         threads for .zstn output (default 0 = all cores;\n"
    "                      the output is identical for any N)\n"
    "  --encoding E        .zt output: z4ai (default), zstd or raw\n"
    "  --level N           zstd level: of zstd components (-7..22, default 3),\n"
    "                      or inside z4ai frames (1..22, default: the codec's)\n"
    "  --checksum ALGO     .zt output: digest per component, sha256, crc32c or\n"
    "                      none (default)\n"
    "  --max-shard-size SIZE .zt output: Hugging Face-style shards of at most SIZE\n"
    "                      tensor bytes each, OUT-00001-of-0000N.zt ... and\n"
    "                      OUT.zt.index.json (one file OUT when all fits); SIZE\n"
    "                      is bytes or 5GB/500MB, 2GiB; objects are never split\n"
    "  --scheduler ADDRESS .zt output: encode on the workers of the Dask scheduler\n"
    "                      at ADDRESS (tcp://host:port), one codec thread per task;\n"
    "                      the file is the same bytes as a local run's. Runs\n"
    "                      ztensor's Python front end ($ZT_PYTHON, else python3;\n"
    "                      needs pip install 'ztensor[dask]'); the workers read IN\n"
    "                      themselves (a path they see, or a URL)\n"
    "  --json              print the summary as one JSON object\n"
    "  -h, --help          show this help\n"
    ".zt output is the file Python's ztensor.convert(IN, OUT, compression=E,\n"
    "effort=..., level=..., checksum=..., max_shard_size=...) writes, byte for\n"
    "byte; `zt convert IN OUT --compress z4ai` writes it too. OUT is a local path.\n"
    "\n"
    "Summary: the IN and OUT file sizes, their ratio (IN / OUT) and the time;\n"
    "with --json the keys command, input, output, input_format, output_format,\n"
    "input_bytes, output_bytes, ratio, tensors, seconds, effort, encoding (and\n"
    "for .zt output tensor_bytes, the decoded tensor bytes, and for a sharded\n"
    "set files, the shards then the index; the sizes are the whole set's).\n"
    "\n"
    "Examples:\n"
    "  zt compress model.safetensors model.zstn\n"
    "  zt compress model.safetensors model.zstn --effort max --threads 8\n"
    "  zt compress model.safetensors model.zt --checksum sha256\n"
    "  zt compress model.safetensors model.zt --effort balanced --max-shard-size 2GB\n"
    "  zt compress model.safetensors model.zt --effort max --scheduler tcp://h:8786\n"
    "  zt compress model.zt model-zstd.zt --encoding zstd --level 9 --json\n";

// .zstn output also takes --threads (.zt output uses every core).
struct Settings : EncodingFlags {
  unsigned threads = 0;
  Settings() { encoding = Encoding::z4ai; }
};

int compress_to_zstn(const std::string& in, const std::string& out, const Settings& s, bool json) {
  const auto start = std::chrono::steady_clock::now();
  auto mapped = map_file(in);
  if (!mapped.ok()) return status_error(mapped.status());
  const auto bytes = mapped->bytes;
  // Count tensors (and validate the header) before the long codec call.
  auto source = open_safetensors_memory(bytes, mapped->owner);
  if (!source.ok()) return status_error(source.status());
  const uint64_t tensors = source.value()->manifest().objects.size();

  z4ai::zstn::Options o;
  o.effort = static_cast<z4ai::Effort>(s.effort);
  o.level = s.level_given ? s.level : -1;
  // N threads in all: N tensors at once, each frame splitting the rest.
  o.workers = s.threads;
  if (s.threads > 0) {
    const uint64_t busy = std::min<uint64_t>(s.threads, std::max<uint64_t>(1, tensors));
    o.threads = static_cast<unsigned>(std::max<uint64_t>(1, s.threads / busy));
  }
  // Streams: one window of tensors' frames in memory at a time (z4ai/zstn.h).
  // The writer reports tensor bytes done, so the bar shows percentage and ETA.
  JobProgress progress;
  o.progress = progress.reporter();
  uint64_t container_bytes = 0;
  Status st = run_job("compressing", out, progress, [&]() -> Status {
    ZT_ASSIGN_OR_RETURN(auto stats, z4ai::zstn::compress_file(in, out, o));
    container_bytes = stats.output_bytes;
    return Status::Ok();
  });
  if (!st.ok()) return status_error(st);

  JobReport r;
  r.command = "compress";
  r.input = in;
  r.output = out;
  r.input_format = "safetensors";
  r.output_format = "zstn";
  r.input_bytes = r.uncompressed = bytes.size();
  r.output_bytes = r.compressed = container_bytes;
  r.tensors = tensors;
  r.seconds = seconds_since(start);
  r.extra["effort"] = s.effort_name;
  r.extra["encoding"] = "z4ai";
  print_report(r, json);
  return kExitOk;
}

// On the workers of a Dask scheduler (dask_handoff.h), with the progress
// the Python side reports.
Result<ConvertStats> compress_on_dask(const std::string& in, const std::string& out, ConvertOptions options,
                                      const std::string& scheduler, const RemoteArgs& remote) {
  ProgressBar bar("compressing");
  options.progress = [&bar](uint64_t done, uint64_t total) { bar.update(done, total); };
  auto r = convert_on_dask(in, out, options, scheduler, remote.texts);
  bar.finish();
  if (!r.ok()) return r.status();
  return r.value().stats;
}

int compress_to_zt(const std::string& in, FileFormat in_format, const std::string& out, const Settings& s,
                   bool json, const std::string* scheduler, const RemoteArgs& remote) {
  const auto start = std::chrono::steady_clock::now();
  ConvertOptions options = s.convert_options();
  ConvertStats stats;
  if (scheduler) {
    auto r = compress_on_dask(in, out, options, *scheduler, remote);
    if (!r.ok()) return status_error(r.status());
    stats = r.value();
  } else {
    auto source = open_source(in, /*verify_on_read=*/true);  // never re-encode bytes whose digest is wrong
    if (!source.ok()) return status_error(source.status());
    JobProgress progress;
    options.progress = progress.reporter();
    Status st = run_job("compressing", out, progress, [&]() -> Status {
      ZT_ASSIGN_OR_RETURN(stats, convert_source_to_zt(*source.value(), out, options));
      return Status::Ok();
    });
    if (!st.ok()) return status_error(st);
  }
  for (const auto& w : stats.warnings) std::fprintf(stderr, "zt: warning: %s\n", w.c_str());

  JobReport r;
  r.command = "compress";
  r.input = in;
  r.output = out;
  r.input_format = file_format_name(in_format);
  r.output_format = "zt";
  r.input_bytes = file_size(in);
  // A sharded set's size is its files' (the shards, then the index).
  if (stats.files.empty()) r.output_bytes = file_size(out);
  for (const auto& f : stats.files) r.output_bytes += file_size(f);
  // The ratio is of the two sizes the summary prints (files), not of tensor bytes.
  r.uncompressed = r.input_bytes;
  r.compressed = r.output_bytes;
  r.extra["tensor_bytes"] = stats.bytes;
  r.tensors = stats.objects;
  r.seconds = seconds_since(start);
  r.extra["effort"] = s.encoding == Encoding::z4ai ? ojson(s.effort_name) : ojson(nullptr);
  r.extra["encoding"] = encoding_text(s.encoding);
  if (stats.files.size() > 1) r.extra["files"] = stats.files;
  print_report(r, json);
  return kExitOk;
}

constexpr OptionSpec kCompressOptions[] = {{"effort", true},   {"threads", true},        {"encoding", true},
                                           {"level", true},    {"checksum", true},       {"max-shard-size", true},
                                           {"scheduler", true}, {"json", false}};

int run_compress(const Invocation& inv) {
  const ParsedArgs& a = inv.args;
  const std::string& in = a.positionals[0];
  const std::string& out = a.positionals[1];

  Settings s;
  if (const auto* e = a.get("encoding")) {
    if (*e == "z4ai") s.encoding = Encoding::z4ai;
    else if (*e == "zstd") s.encoding = Encoding::zstd;
    else if (*e == "raw" || *e == "none") s.encoding = Encoding::raw;
    else return usage_error("compress", "--encoding must be z4ai, zstd or raw, not '" + *e + "'");
  }
  if (std::string e = read_encoding_flags(a, &s); !e.empty()) return usage_error("compress", e);
  if (const auto* t = a.get("threads"))
    if (!parse_uint(*t, kMaxThreads, &s.threads))
      return usage_error("compress", "--threads must be an integer from 0 to " + std::to_string(kMaxThreads) +
                                         ", not '" + *t + "'");
  if (std::string e = url_output_error(out); !e.empty()) return usage_error("compress", e);

  auto in_format = detect_format(in);
  if (!in_format.ok()) return status_error(in_format.status());
  const std::string ext = extension(out);
  if (ext == ".safetensors")
    return usage_error("compress", "OUT '" + out + "' names a safetensors file; compress writes .zstn or .zt " +
                                       "(to convert to safetensors: zt decompress or zt convert)");
  // An input no reader takes is bad input (exit 1), as zt convert says it,
  // whatever OUT is.
  if (in_format.value() == FileFormat::unknown || !format_supported(in_format.value()))
    return status_error(Status(ErrorCode::unsupported,
                               "cannot read '" + in + "': IN must be safetensors (or an index.json), .zt, " +
                                   "GGUF, .npy/.npz, a PyTorch zip checkpoint or .onnx"));
  const bool zstn = ext == ".zstn" || (ext != ".zt" && in_format.value() == FileFormat::safetensors);
  const bool json = a.has("json");
  if (zstn) {
    if (in_format.value() != FileFormat::safetensors)
      return usage_error("compress", std::string(".zstn output needs a safetensors IN; '") + in + "' is " +
                                         file_format_name(in_format.value()) +
                                         " (compress it to .zt instead: zt compress IN OUT.zt)");
    if (a.has("encoding") || a.has("checksum") || a.has("max-shard-size") || a.has("scheduler"))
      return usage_error("compress", "--encoding, --checksum, --max-shard-size and --scheduler apply to .zt output "
                                     "only (.zstn is always z4ai, one file)");
    return compress_to_zstn(in, out, s, json);
  }
  if (a.has("threads"))
    return usage_error("compress", "--threads applies to .zstn output only (.zt output uses all cores)");
  return compress_to_zt(in, in_format.value(), out, s, json, a.get("scheduler"), inv.remote);
}

}  // namespace

const Command kCompressCommand{
    "compress",
    "  compress IN OUT [OPTIONS]     safetensors -> .zstn, any -> .zt (z4ai codec)\n",
    kCompressHelp,
    kCompressOptions,
    /*reads_urls=*/true,
    /*operands=*/2,
    "expected IN and OUT",
    kExitBadInput,
    run_compress};

}  // namespace zt::cli
