// A progress bar on stderr for long work (convert, verify, compress, delta). It stays silent
// unless both stdout and stderr are terminals and the work has run for over a second, so
// scripts, pipes and quick commands never see it. The line always fits the terminal's
// width (asked on every redraw after SIGWINCH; COLUMNS, then 80, when there is no answer),
// so it never wraps and leaves no stale lines.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace zt::cli {

// Work shorter than this never shows a bar. ZT_PROGRESS_DELAY_MS overrides it
// (the terminal tests set 0 so that small inputs draw a bar).
inline constexpr std::chrono::milliseconds kProgressDelay{1000};
// Redraw at most this often.
inline constexpr std::chrono::milliseconds kProgressRedraw{100};
// Width assumed when neither the terminal nor COLUMNS says.
inline constexpr int kDefaultColumns = 80;

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();  // clears the bar if one was drawn
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Known total: percentage, bytes done / total, rate and ETA.
  void update(uint64_t done, uint64_t total);
  // For work that reports no progress of its own (one codec call): a moving
  // marker, the elapsed time and the bytes being processed.
  void pulse(uint64_t bytes);
  void finish();

 private:
  void draw(const std::string& line);
  bool due(bool force);

  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  int columns_ = 0;
  std::chrono::milliseconds delay_ = kProgressDelay;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// "1.5 MiB" style.
std::string human_bytes(uint64_t n);

// The progress line for `columns` terminal columns: "LABEL [####....]  42%  1.2 GiB / 3.0 GiB
// 512.0 MiB/s  ETA 4 s", shedding the bar, then the ETA, then the rate, then the sizes until it
// fits in columns - 1 (the last column would wrap on some terminals).
std::string progress_line(const std::string& label, uint64_t done, uint64_t total, double seconds, int columns);

// Terminal width of stderr: TIOCGWINSZ, then $COLUMNS, then kDefaultColumns.
int terminal_columns();

}  // namespace zt::cli
