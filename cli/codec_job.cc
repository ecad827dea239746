#include "codec_job.h"

#include <sys/stat.h>

#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <future>

#include "ztensor/convert.h"
#include "ztensor/files.h"
#include "ztensor/remote.h"
#include "progress.h"

namespace zt::cli {

uint64_t file_size(const std::string& path) {
  if (is_remote_url(path)) {
    auto size = remote_file_size(path);
    return size.ok() ? size.value() : 0;
  }
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_signal(int signo) { g_signal = signo; }

}  // namespace

Status run_job(const std::string& label, const std::string& out, JobProgress& progress,
               const std::function<Status()>& work) {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {}, old_term {};
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);
  ProgressBar bar(label);
  // The worker opens and reads URLs with this thread's remote options (the command's flags).
  auto done = std::async(std::launch::async, [&work, remote = ScopedRemoteOptions::current()]() {
    ScopedRemoteOptions scope(remote);
    return work();
  });
  while (done.wait_for(kProgressRedraw) != std::future_status::ready) {
    if (g_signal != 0) {
      bar.finish();
      remove_own_temporaries(out);
      std::fprintf(stderr, "zt: interrupted%s%s\n", out.empty() ? "" : ", nothing written to ", out.c_str());
      std::fflush(stderr);
      std::_Exit(128 + g_signal);  // the worker is mid-call and cannot be joined
    }
    const uint64_t total = progress.total.load();
    if (total) bar.update(progress.done.load(), total);
    else bar.pulse(progress.bytes);
  }
  // The final state, so work faster than one redraw interval still shows its
  // 100% line (once the bar's delay has passed) before it is cleared.
  if (const uint64_t total = progress.total.load()) bar.update(progress.done.load(), total);
  bar.finish();
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  return done.get();  // rethrows what `work` threw (e.g. bad_alloc); main reports it
}

Status run_with_progress(const std::string& label, const std::string& out, uint64_t bytes,
                         const std::function<Status()>& work) {
  JobProgress progress;
  progress.bytes = bytes;
  return run_job(label, out, progress, work);
}

std::string extension(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void print_report(const JobReport& r, bool json) {
  const double ratio = r.compressed ? static_cast<double>(r.uncompressed) / static_cast<double>(r.compressed) : 0.0;
  if (json) {
    ojson j;
    j["command"] = r.command;
    j["input"] = r.input;
    j["output"] = r.output;
    j["input_format"] = r.input_format;
    j["output_format"] = r.output_format;
    j["input_bytes"] = r.input_bytes;
    j["output_bytes"] = r.output_bytes;
    j["ratio"] = r.compressed ? ojson(ratio) : ojson(nullptr);
    j["tensors"] = r.tensors;
    j["seconds"] = r.seconds;
    for (const auto& [k, v] : r.extra.items()) j[k] = v;
    std::printf("%s\n", j.dump(2, ' ', false, ojson::error_handler_t::replace).c_str());
    return;
  }
  char ratio_text[64] = "";
  if (r.compressed) std::snprintf(ratio_text, sizeof ratio_text, ", ratio %.2fx", ratio);
  std::printf("%s -> %s: %llu tensor%s, %s -> %s%s%s in %.2f s\n", r.input.c_str(), r.output.c_str(),
              static_cast<unsigned long long>(r.tensors), r.tensors == 1 ? "" : "s", human_bytes(r.input_bytes).c_str(),
              human_bytes(r.output_bytes).c_str(), ratio_text, r.detail.c_str(), r.seconds);
}

bool parse_uint(const std::string& text, unsigned max, unsigned* out) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  const unsigned long v = std::strtoul(text.c_str(), &end, 10);
  if (*end != '\0' || v > max) return false;
  *out = static_cast<unsigned>(v);
  return true;
}

}  // namespace zt::cli
