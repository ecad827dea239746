// Shared plumbing of `zt compress`, `decompress` and `delta`: running one
// codec call under a progress line, and the summary every command prints
// (text or --json). Whole inputs and outputs go through ztensor/files.h.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "ztensor/status.h"
#include "test_pause.h"

namespace zt::cli {

using ojson = nlohmann::ordered_json;

// Bytes of a file, or of the file at an http(s) URL (one small request); 0
// when it cannot be told.
uint64_t file_size(const std::string& path);

// Progress a job's worker reports; total 0 means "unknown" (one codec call).
struct JobProgress {
  std::atomic<uint64_t> done{0}, total{0};
  uint64_t bytes = 0;  // shown while total is unknown

  // A callback for work that reports (done, total) (zstn, convert): the bar
  // shows percentage, rate and ETA from then on.
  std::function<void(uint64_t, uint64_t)> reporter() {
    return [this](uint64_t d, uint64_t t) {
      total = t ? t : 1;
      done = d;
      pause_for_test_after_progress(d);
    };
  }
};

// Runs `work` on a worker thread while this thread draws the progress line
// labelled `label` (only on a terminal, only after a second). On SIGINT or
// SIGTERM it removes the temporaries of `out` (remove_own_temporaries; the
// worker cannot be stopped mid-frame) and exits with 128 + the signal.
Status run_job(const std::string& label, const std::string& out, JobProgress& progress,
               const std::function<Status()>& work);
// Same for work that reports no progress: `bytes` is what it processes.
Status run_with_progress(const std::string& label, const std::string& out, uint64_t bytes,
                         const std::function<Status()>& work);

// Lower-case extension of `path` including the dot (".zstn"), or "".
std::string extension(const std::string& path);

// Seconds since `start`.
double seconds_since(std::chrono::steady_clock::time_point start);

// The report of one job. `compressed`/`uncompressed` give the ratio
// (uncompressed / compressed), whichever side is the input; they are the
// printed input_bytes/output_bytes, so the ratio agrees with the sizes shown.
struct JobReport {
  std::string command;     // "compress", "decompress", "delta", "delta --apply"
  std::string input, output;
  std::string input_format, output_format;
  uint64_t input_bytes = 0, output_bytes = 0;
  uint64_t uncompressed = 0, compressed = 0;
  uint64_t tensors = 0;
  double seconds = 0;
  ojson extra = ojson::object();  // command-specific keys, appended to JSON
  std::string detail;             // command-specific text, appended to the line
};

// One summary line on stdout, or with `json` one JSON object with the keys
// command, input, output, input_format, output_format, input_bytes,
// output_bytes, ratio, tensors, seconds, then `extra`.
void print_report(const JobReport& r, bool json);

// Cap on --threads: rejects typos like 10000 before they become threads.
inline constexpr unsigned kMaxThreads = 1024;

// Parses a non-negative integer option; false if `text` is not one or is
// above `max`.
bool parse_uint(const std::string& text, unsigned max, unsigned* out);

}  // namespace zt::cli
