// zt verify FILE [--json]: check every digest and decode every component.
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "args.h"
#include "commands.h"
#include "describe.h"
#include "progress.h"
#include "codec_job.h"
#include "test_pause.h"
#include "ztensor/files.h"
#include "z4ai/model_delta.h"
#include "z4ai/zstn.h"

namespace zt::cli {
namespace {

constexpr const char* kVerifyHelp =
    "Usage: zt verify FILE [--json]\n"
    "\n"
    "Check a file end to end: the manifest (or the format's header) is\n"
    "validated, every component digest (for .zt; CRCs for .npz) is recomputed\n"
    "and compared, and every component is decoded (zstd streams decompressed,\n"
    "lengths checked). Works on every format `zt info` reads, on .zstn\n"
    "containers (every frame decoded and its digest checked) and on model\n"
    "deltas (the Z4DM trailer digest over the whole frame, every span and\n"
    "inner frame header; the frames themselves decode only with the base).\n"
    "zstd components written with their frame checksum (as zTensor writes\n"
    "them) are checked even without a digest; raw .zt components without a\n"
    "digest cannot be checked, and OK says how many were not.\n"
    "Prints OK and exits 0, or prints the first error and exits 1.\n"
    "\n"
    "Options:\n"
    "  --json        print the result as one JSON object: file, format, ok,\n"
    "                objects, components, digests, unchecked (raw .zt\n"
    "                components without digest), and error {code, message}\n"
    "                (null when ok); the exit code is the same\n"
    "  -h, --help    show this help\n"
    "\n"
    "Examples:\n"
    "  zt verify model.zt\n"
    "  zt verify model.zstn\n"
    "  zt verify model.zt --json | jq .ok\n";

// .zt digests object by object (the first bad one is named), every
// component decoded, then the format's own integrity check (e.g. CRCs).
Status verify_source(const TensorSource& source, uint64_t* components, uint64_t* digests, uint64_t* unchecked) {
  const Manifest& m = source.manifest();
  uint64_t total = 0, done = 0;
  for (const auto& o : m.objects)
    for (const auto& [role, c] : o.components) total += c.length;
  ProgressBar bar("verifying");
  for (const auto& o : m.objects) {
    const auto* reader = dynamic_cast<const Reader*>(&source);
    if (reader) ZT_RETURN_IF_ERROR(reader->verify_object(o));
    for (const auto& [role, c] : o.components) {
      auto bytes = source.read_component(o, role);
      if (!bytes.ok()) return bytes.status();
      ++*components;
      if (!c.digest.empty()) ++*digests;
      // Nothing can tell a raw .zt blob without a digest from its damaged self.
      else if (reader && c.encoding == Encoding::raw) ++*unchecked;
      done += c.length;
    }
    bar.update(done, total);
    pause_for_test_after_progress(done);
  }
  if (!dynamic_cast<const Reader*>(&source)) ZT_RETURN_IF_ERROR(source.verify());
  return Status::Ok();
}

struct VerifyResult {
  std::string format;
  uint64_t objects = 0, components = 0, digests = 0;
  uint64_t unchecked = 0;  // raw .zt components without a digest
};

// PyPI z4ai 0.x writes the same ZSTN container with frames that carry no
// checksum; one writer makes the whole file, so its first frame tells.
bool zstn_frames_have_digests(const std::string& path) {
  uint8_t head[14] = {}, frame[8] = {};
  std::ifstream f(path, std::ios::binary);
  if (!f.read(reinterpret_cast<char*>(head), sizeof head)) return true;
  uint64_t hlen = 0;
  for (int i = 7; i >= 0; --i) hlen = hlen << 8 | head[6 + i];
  const uint64_t first = 14 + hlen + 8 + (head[5] == 0 ? 8 : 0);  // non-contiguous: u64 frame length first
  f.seekg(std::streamoff(first));
  return !(f.read(reinterpret_cast<char*>(frame), sizeof frame) && z4ai::is_pypi_z4ai_frame(frame));
}

// A .zstn container: decoding it checks every frame's length and digest. It
// is read with pread, a window of tensors at a time: a file truncated under
// the check is an error (length_mismatch), not SIGBUS, and memory stays flat.
Status verify_zstn(const std::string& path, VerifyResult* r) {
  r->format = "zstn";
  z4ai::zstn::FileStats stats;
  JobProgress progress;
  progress.bytes = file_size(path);
  ZT_RETURN_IF_ERROR(run_job("verifying", "", progress, [&]() -> Status {
    auto d = z4ai::zstn::verify_file(path, 0, progress.reporter());
    if (!d.ok()) return d.status();
    stats = d.value();
    return Status::Ok();
  }));
  r->objects = r->components = stats.tensors;
  r->digests = r->components;  // every frame carries an XXH3-64 of its bytes
  if (!zstn_frames_have_digests(path)) {
    r->digests = 0;
    r->unchecked = r->components;
  }
  return Status::Ok();
}

// A model delta: its trailer is an XXH3-64 of every other byte, so checking
// it (with every span and inner frame header) covers the whole frame. The
// payloads decode only against the base (zt delta --apply).
Status verify_z4dm(const std::string& path, std::span<const uint8_t> frame, VerifyResult* r) {
  r->format = "z4dm";
  auto contents = z4ai::list_model_delta(frame);
  if (!contents.ok()) return Status(contents.status().code(), "'" + path + "': " + contents.status().message());
  for (const z4ai::ModelDeltaPiece& p : contents->pieces) r->objects += p.name.empty() ? 0 : 1;
  r->components = contents->pieces.size();
  r->digests = contents->pypi_layout ? 0 : 1;  // PyPI z4ai 0.x frames carry no trailer digest
  return Status::Ok();
}

bool starts_with_zstn(const std::string& path) {
  uint8_t magic[4] = {};
  std::ifstream f(path, std::ios::binary);
  return f.read(reinterpret_cast<char*>(magic), sizeof magic) && z4ai::zstn::is_zstn(magic);
}

Status verify_path(const std::string& path, VerifyResult* r) {
  if (!is_remote_url(path)) {  // .zstn and model deltas are local files only
    if (starts_with_zstn(path)) return verify_zstn(path, r);  // sniffed without mapping: the file may shrink
    ZT_ASSIGN_OR_RETURN(auto mapped, map_file(path));
    if (z4ai::is_model_delta(mapped.bytes)) return verify_z4dm(path, mapped.bytes, r);
  }
  ZT_ASSIGN_OR_RETURN(OpenedFile f, open_any(path));
  r->format = file_format_name(f.format);
  r->objects = f.manifest().objects.size();
  return verify_source(*f.source, &r->components, &r->digests, &r->unchecked);
}

constexpr OptionSpec kVerifyOptions[] = {{"json", false}};

int run_verify(const Invocation& inv) {
  const ParsedArgs& a = inv.args;
  const std::string& path = a.positionals[0];
  VerifyResult r;
  Status s = verify_path(path, &r);
  if (a.has("json")) {
    nlohmann::ordered_json j;
    j["file"] = path;
    j["format"] = r.format.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.format);
    j["ok"] = s.ok();
    j["objects"] = r.objects;
    j["components"] = r.components;
    j["digests"] = r.digests;
    j["unchecked"] = r.unchecked;
    j["error"] = s.ok() ? nlohmann::ordered_json(nullptr)
                        : nlohmann::ordered_json{{"code", error_code_name(s.code())}, {"message", s.message()}};
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
  }
  if (!s.ok()) return status_error(s);
  if (!a.has("json") && r.format == "z4dm")
    std::printf("%s: OK (z4dm, %llu tensors; structure%s checked, frames decode with the base)\n", path.c_str(),
                static_cast<unsigned long long>(r.objects),
                r.digests ? " and trailer digest" : " (PyPI z4ai 0.x layout: no trailer digest)");
  else if (!a.has("json"))
    std::printf("%s: OK (%s, %llu objects, %llu components decoded, %llu digests checked%s)\n", path.c_str(),
                r.format.c_str(), static_cast<unsigned long long>(r.objects),
                static_cast<unsigned long long>(r.components), static_cast<unsigned long long>(r.digests),
                r.unchecked ? ("; " + std::to_string(r.unchecked) +
                               (r.format == "zstn" ? " frames by PyPI z4ai 0.x carry no digest: decoded, not checked"
                                                   : " raw components without digest: not checked"))
                                  .c_str()
                            : "");
  return kExitOk;
}

}  // namespace

const Command kVerifyCommand{
    "verify",
    "  verify FILE [--json]          check every digest and decode every component\n",
    kVerifyHelp,
    kVerifyOptions,
    /*reads_urls=*/true,
    /*operands=*/1,
    "expected exactly one FILE",
    kExitBadInput,
    run_verify};

}  // namespace zt::cli
