// zt decompress IN OUT: .zstn -> the original .safetensors byte for byte;
// .zt -> .zt with raw components, or -> safetensors.
#include <cstdio>
#include <string>
#include <vector>

#include "args.h"
#include "codec_job.h"
#include "ztensor/files.h"
#include "commands.h"
#include "z4ai/model_delta.h"
#include "z4ai/zstn.h"
#include "ztensor/convert.h"

namespace zt::cli {
namespace {

constexpr const char* kDecompressHelp =
    "Usage: zt decompress IN OUT [--threads N] [--json]\n"
    "\n"
    "Undo `zt compress`:\n"
    "  IN.zstn  -> OUT        the original safetensors file, byte for byte\n"
    "                         (every frame's length and digest is checked);\n"
    "                         an OUT ending in .zt gets a raw .zt instead\n"
    "  IN.zt    -> OUT.zt     every component stored raw (uncompressed)\n"
    "  IN.zt    -> OUT.safetensors   dense objects as safetensors\n"
    "The input kind is detected from its content. A model delta (Z4DM) needs\n"
    "its base: use `zt delta --apply BASE DELTA OUT`.\n"
    "The output appears atomically: on error nothing is left at OUT.\n"
    "\n"
    "Options:\n"
    "  --threads N   threads for .zstn input (default 0 = all cores)\n"
    "  --json        print the summary as one JSON object (keys command, input,\n"
    "                output, input_format, output_format, input_bytes,\n"
    "                output_bytes, ratio = output / input file size, tensors,\n"
    "                seconds; tensor_bytes for .zt input)\n"
    "  -h, --help    show this help\n"
    "\n"
    "Examples:\n"
    "  zt decompress model.zstn model.safetensors\n"
    "  zt decompress model.zt model-raw.zt\n"
    "  zt decompress model.zt model.safetensors --json\n";


int decompress_zstn(const std::string& in, std::span<const uint8_t> bytes, const std::string& out,
                    unsigned threads, bool json) {
  const auto start = std::chrono::steady_clock::now();
  // OUT.zt: the decoded safetensors file re-stored as a raw .zt (in memory);
  // OUT.safetensors streams, a window of tensors at a time (z4ai/zstn.h).
  const bool to_zt = format_from_extension(out) == FileFormat::zt;
  uint64_t uncompressed = 0;
  uint64_t tensors = 0;
  JobProgress progress;
  progress.bytes = bytes.size();
  Status st = run_job("decompressing", out, progress, [&]() -> Status {
    if (!to_zt) {
      auto r = z4ai::zstn::decompress_file(in, out, threads, progress.reporter());
      if (!r.ok()) return r.status();
      uncompressed = r->output_bytes;
      tensors = r->tensors;
      return Status::Ok();
    }
    auto r = z4ai::zstn::decompress(bytes, threads);
    if (!r.ok()) return Status(r.status().code(), "'" + in + "': " + r.status().message());
    std::vector<uint8_t> original = std::move(r).value();
    uncompressed = original.size();
    ZT_ASSIGN_OR_RETURN(auto source, open_safetensors_memory(original, nullptr));
    tensors = source->manifest().objects.size();
    return convert_source_to_zt(*source, out).status();
  });
  if (!st.ok()) return status_error(st);
  JobReport r;
  r.command = "decompress";
  r.input = in;
  r.output = out;
  r.input_format = "zstn";
  r.output_format = to_zt ? "zt" : "safetensors";
  // The ratio is of the two sizes the summary prints (files).
  r.input_bytes = r.compressed = bytes.size();
  r.output_bytes = r.uncompressed = to_zt ? file_size(out) : uncompressed;
  r.tensors = tensors;
  r.seconds = seconds_since(start);
  print_report(r, json);
  return kExitOk;
}

int decompress_zt(const std::string& in, const std::string& out, bool json) {
  const auto start = std::chrono::steady_clock::now();
  auto source = open_source(in, /*verify_on_read=*/true);
  if (!source.ok()) return status_error(source.status());
  const bool to_safetensors = format_from_extension(out) == FileFormat::safetensors;
  JobProgress progress;
  ConvertOptions options;  // raw components, no digests
  options.progress = progress.reporter();
  Result<ConvertStats> stats = Status(ErrorCode::invalid_argument, "not run");
  Status st = run_job("decompressing", out, progress, [&] {
    stats = to_safetensors ? convert_source_to_safetensors(*source.value(), out, options.progress)
                           : convert_source_to_zt(*source.value(), out, options);
    return stats.status();
  });
  if (!st.ok()) return status_error(st);
  for (const auto& w : stats.value().warnings) std::fprintf(stderr, "zt: warning: %s\n", w.c_str());
  JobReport r;
  r.command = "decompress";
  r.input = in;
  r.output = out;
  r.input_format = "zt";
  r.output_format = to_safetensors ? "safetensors" : "zt";
  // The ratio is of the two sizes the summary prints (files), not of tensor bytes.
  r.input_bytes = r.compressed = file_size(in);
  r.output_bytes = r.uncompressed = file_size(out);
  r.extra["tensor_bytes"] = stats.value().bytes;
  r.tensors = stats.value().objects;
  r.seconds = seconds_since(start);
  print_report(r, json);
  return kExitOk;
}

constexpr OptionSpec kDecompressOptions[] = {{"threads", true}, {"json", false}};

int run_decompress(const Invocation& inv) {
  const ParsedArgs& a = inv.args;
  const std::string& in = a.positionals[0];
  const std::string& out = a.positionals[1];
  unsigned threads = 0;
  if (const auto* t = a.get("threads"))
    if (!parse_uint(*t, kMaxThreads, &threads))
      return usage_error("decompress", "--threads must be an integer from 0 to " + std::to_string(kMaxThreads) +
                                           ", not '" + *t + "'");

  auto mapped = map_file(in);
  if (!mapped.ok()) return status_error(mapped.status());
  const auto bytes = mapped->bytes;
  if (z4ai::zstn::is_zstn(bytes)) return decompress_zstn(in, bytes, out, threads, a.has("json"));
  if (z4ai::is_model_delta(bytes))
    return status_error(Status(ErrorCode::invalid_argument,
                               "'" + in + "' is a model delta (Z4DM); rebuild it with its base: zt delta --apply BASE " +
                                   in + " OUT"));
  auto format = detect_format(in);
  if (!format.ok()) return status_error(format.status());
  if (format.value() == FileFormat::zt) {
    if (a.has("threads")) return usage_error("decompress", "--threads applies to .zstn input only");
    return decompress_zt(in, out, a.has("json"));
  }
  return status_error(Status(ErrorCode::unsupported,
                             "'" + in + "' is " + file_format_name(format.value()) +
                                 ", not something zt compressed: decompress takes a .zstn (ZSTN v3) or .zt file"));
}

}  // namespace

const Command kDecompressCommand{
    "decompress",
    "  decompress IN OUT [--json]    .zstn -> original safetensors, .zt -> raw .zt\n",
    kDecompressHelp,
    kDecompressOptions,
    /*reads_urls=*/false,
    /*operands=*/2,
    "expected IN and OUT",
    kExitBadInput,
    run_decompress};

}  // namespace zt::cli
