// zt delta BASE TARGET OUT: a fine-tune stored against its base checkpoint
// (Z4DM); zt delta --apply BASE DELTA OUT rebuilds the target byte for byte.
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "args.h"
#include "codec_job.h"
#include "ztensor/files.h"
#include "commands.h"
#include "z4ai/model_delta.h"
#include "ztensor/convert.h"

namespace zt::cli {
namespace {

constexpr const char* kDeltaHelp =
    "Usage: zt delta BASE TARGET OUT [--level N] [--threads N] [--json]\n"
    "       zt delta --apply BASE DELTA OUT [--threads N] [--json]\n"
    "\n"
    "Store a safetensors checkpoint TARGET (a fine-tune, the next training\n"
    "step, a re-upload) as a model delta against BASE, another safetensors\n"
    "checkpoint. Tensors are matched by name, so added, dropped, renamed or\n"
    "re-ordered tensors cost nothing extra. Each target tensor becomes\n"
    "  COPY    identical to a base tensor (stored as a reference)\n"
    "  DELTA   an XOR delta against the base tensor of the same name and shape\n"
    "  FULL    compressed on its own (new or reshaped tensors)\n"
    "whichever is smallest. OUT (a Z4DM frame, by convention .z4dm) records the\n"
    "base's data length and XXH3-64 digest.\n"
    "\n"
    "With --apply, rebuild TARGET from BASE and DELTA, byte for byte. A BASE\n"
    "other than the one the delta was made against fails with exit code 1\n"
    "(digest_mismatch) and writes nothing.\n"
    "The output appears atomically: on error nothing is left at OUT.\n"
    "\n"
    "Options:\n"
    "  --apply       rebuild the target instead of making a delta\n"
    "  --level N     zstd level inside the frames, 1..22 (default: the codec's)\n"
    "  --threads N   threads (default 0 = all cores; the output is identical\n"
    "                for any N)\n"
    "  --json        print the summary as one JSON object (keys command, input,\n"
    "                output, input_format, output_format, input_bytes,\n"
    "                output_bytes, ratio, tensors, seconds, base, base_digest,\n"
    "                and when making a delta: copy, delta, full)\n"
    "  -h, --help    show this help\n"
    "\n"
    "Examples:\n"
    "  zt delta base.safetensors finetuned.safetensors finetuned.z4dm\n"
    "  zt delta --apply base.safetensors finetuned.z4dm finetuned.safetensors\n"
    "  zt delta base.safetensors step-2000.safetensors step-2000.z4dm --json\n";

constexpr int kMinLevel = 1;  // zstd levels the codec takes (z4ai/model_delta.h)
constexpr int kMaxLevel = 22;

std::string digest_hex(uint64_t d) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, d);
  return std::string("xxh3-64:") + buf;
}

// The delta codec wants safetensors files; say which argument is not one.
Status require_safetensors(const std::string& role, const std::string& path) {
  ZT_ASSIGN_OR_RETURN(FileFormat f, detect_format(path));
  if (f != FileFormat::safetensors)
    return Status(ErrorCode::invalid_argument, role + " '" + path + "' is " + file_format_name(f) +
                                                   ", but model deltas are made between safetensors files" +
                                                   (f == FileFormat::zt ? " (zt convert it to .safetensors first)" : ""));
  return Status::Ok();
}

int make_delta(const std::string& base_path, const std::string& target_path, const std::string& out,
               const z4ai::ModelDeltaOptions& options, bool json) {
  const auto start = std::chrono::steady_clock::now();
  for (const auto& [role, path] : {std::pair{"BASE", base_path}, std::pair{"TARGET", target_path}})
    if (Status s = require_safetensors(role, path); !s.ok()) return status_error(s);
  auto base = map_file(base_path);
  if (!base.ok()) return status_error(base.status());
  auto target = map_file(target_path);
  if (!target.ok()) return status_error(target.status());
  const auto target_bytes = target->bytes;

  std::vector<uint8_t> frame;
  Status st = run_with_progress("delta", out, target_bytes.size(), [&]() -> Status {
    ZT_ASSIGN_OR_RETURN(frame, z4ai::compress_model_delta(target_bytes, base->bytes, options));
    return write_file_atomically(out, frame);
  });
  if (!st.ok()) return status_error(st);

  auto contents = z4ai::list_model_delta(frame);
  if (!contents.ok()) return status_error(contents.status());  // a frame we just wrote: never expected
  uint64_t copy = 0, delta = 0, full = 0;
  for (const z4ai::ModelDeltaPiece& p : contents->pieces) {
    if (p.name.empty()) continue;  // bytes between tensors
    (p.kind == z4ai::ModelDeltaPiece::Kind::copy    ? copy
     : p.kind == z4ai::ModelDeltaPiece::Kind::delta ? delta
                                                   : full)++;
  }
  JobReport r;
  r.command = "delta";
  r.input = target_path;
  r.output = out;
  r.input_format = "safetensors";
  r.output_format = "z4dm";
  r.input_bytes = r.uncompressed = target_bytes.size();
  r.output_bytes = r.compressed = frame.size();
  r.tensors = copy + delta + full;
  r.seconds = seconds_since(start);
  r.extra["base"] = base_path;
  r.extra["base_digest"] = digest_hex(contents->base_digest);
  r.extra["copy"] = copy;
  r.extra["delta"] = delta;
  r.extra["full"] = full;
  r.detail = " (" + std::to_string(copy) + " copy, " + std::to_string(delta) + " delta, " + std::to_string(full) +
             " full; base " + base_path + ")";
  print_report(r, json);
  return kExitOk;
}

int apply_delta(const std::string& base_path, const std::string& delta_path, const std::string& out,
                unsigned threads, bool json) {
  const auto start = std::chrono::steady_clock::now();
  auto delta = map_file(delta_path);
  if (!delta.ok()) return status_error(delta.status());
  const auto frame = delta->bytes;
  if (!z4ai::is_model_delta(frame))
    return status_error(Status(ErrorCode::bad_magic, "DELTA '" + delta_path +
                                                         "' is not a model delta (no Z4DM magic); make one with "
                                                         "zt delta BASE TARGET OUT"));
  auto info = z4ai::peek_model_delta(frame);
  if (!info.ok())
    return status_error(Status(info.status().code(), "DELTA '" + delta_path + "': " + info.status().message()));
  auto base = map_file(base_path);
  if (!base.ok()) return status_error(base.status());

  std::vector<uint8_t> target;
  Status st = run_with_progress("applying delta", out, info->target_length, [&]() -> Status {
    auto r = z4ai::decompress_model_delta(frame, base->bytes, threads);
    if (!r.ok()) {
      if (r.status().code() == ErrorCode::digest_mismatch)
        return Status(ErrorCode::digest_mismatch,
                      "BASE '" + base_path + "' is not the checkpoint DELTA '" + delta_path +
                          "' was made against (it needs a data buffer of " + std::to_string(info->base_data_length) +
                          " bytes with " + digest_hex(info->base_digest) + ")");
      return Status(r.status().code(), "DELTA '" + delta_path + "': " + r.status().message());
    }
    target = std::move(r).value();
    return write_file_atomically(out, target);
  });
  if (!st.ok()) return status_error(st);

  JobReport r;
  r.command = "delta --apply";
  r.input = delta_path;
  r.output = out;
  r.input_format = "z4dm";
  r.output_format = "safetensors";
  r.input_bytes = r.compressed = frame.size();
  r.output_bytes = r.uncompressed = target.size();
  if (auto src = open_safetensors_memory(target, nullptr); src.ok()) r.tensors = src.value()->manifest().objects.size();
  r.seconds = seconds_since(start);
  r.extra["base"] = base_path;
  r.extra["base_digest"] = digest_hex(info->base_digest);
  r.detail = " (base " + base_path + ")";
  print_report(r, json);
  return kExitOk;
}

constexpr OptionSpec kDeltaOptions[] = {{"apply", false}, {"level", true}, {"threads", true}, {"json", false}};

int run_delta(const Invocation& inv) {
  const ParsedArgs& a = inv.args;
  const bool apply = a.has("apply");
  if (a.positionals.size() != 3)
    return usage_error("delta", apply ? "expected BASE DELTA OUT after --apply" : "expected BASE TARGET OUT");
  unsigned threads = 0;
  if (const auto* t = a.get("threads"))
    if (!parse_uint(*t, kMaxThreads, &threads))
      return usage_error("delta", "--threads must be an integer from 0 to " + std::to_string(kMaxThreads) +
                                      ", not '" + *t + "'");
  const auto& p = a.positionals;
  if (apply) {
    if (a.has("level")) return usage_error("delta", "--level applies when making a delta, not with --apply");
    return apply_delta(p[0], p[1], p[2], threads, a.has("json"));
  }
  z4ai::ModelDeltaOptions options;
  options.threads = threads;
  if (const auto* l = a.get("level")) {
    unsigned level = 0;
    if (!parse_uint(*l, kMaxLevel, &level) || static_cast<int>(level) < kMinLevel)
      return usage_error("delta", "--level must be an integer from " + std::to_string(kMinLevel) + " to " +
                                      std::to_string(kMaxLevel) + ", not '" + *l + "'");
    options.level = static_cast<int>(level);
  }
  return make_delta(p[0], p[1], p[2], options, a.has("json"));
}

}  // namespace

const Command kDeltaCommand{
    "delta",
    "  delta BASE TARGET OUT         store a fine-tune as a delta to its base (Z4DM)\n"
    "  delta --apply BASE DELTA OUT  rebuild the fine-tune byte for byte\n",
    kDeltaHelp,
    kDeltaOptions,
    /*reads_urls=*/false,
    /*operands=*/kOperandsCheckedByRun,
    nullptr,
    kExitBadInput,
    run_delta};

}  // namespace zt::cli
