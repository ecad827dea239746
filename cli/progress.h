// A progress bar on stderr for long work (convert, verify, compress, delta). It stays silent
// unless stderr is a terminal and the work has run for over a second, so
// scripts and quick commands never see it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace zt::cli {

// Work shorter than this never shows a bar.
inline constexpr std::chrono::milliseconds kProgressDelay{1000};
// Redraw at most this often.
inline constexpr std::chrono::milliseconds kProgressRedraw{100};

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();  // clears the bar if one was drawn
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(uint64_t done, uint64_t total);
  // For work that reports no progress of its own (one codec call): a moving
  // marker, the elapsed time and the bytes being processed.
  void pulse(uint64_t bytes);
  void finish();

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// "1.5 MiB" style.
std::string human_bytes(uint64_t n);

}  // namespace zt::cli
