#include "progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace zt::cli {

namespace {

// Bar cells are never fewer than this; below it the bar is dropped instead.
constexpr int kMinBarCells = 10;
// The marker's cells in pulse().
constexpr int kPulseCells = 30;

volatile std::sig_atomic_t g_resized = 0;
extern "C" void on_winch(int) { g_resized = 1; }

std::string human_seconds(double s) {
  const auto t = static_cast<long long>(s + 0.5);
  char buf[32];
  if (t < 60)
    std::snprintf(buf, sizeof buf, "%lld s", t);
  else if (t < 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", t / 3600, (t / 60) % 60, t % 60);
  return buf;
}

std::string bar_cells(double frac, int cells) {
  const int filled = static_cast<int>(frac * cells);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(cells - filled), '.');
  return "[" + bar + "]";
}

}  // namespace

std::string human_bytes(uint64_t n) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(n));
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[u]);
  return buf;
}

int terminal_columns() {
  struct winsize ws {};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    const int n = std::atoi(c);
    if (n > 0) return n;
  }
  return kDefaultColumns;
}

std::string progress_line(const std::string& label, uint64_t done, uint64_t total, double seconds, int columns) {
  double frac = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  if (frac > 1) frac = 1;
  char pct[8];
  std::snprintf(pct, sizeof pct, "%3d%%", static_cast<int>(frac * 100));
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  // Optional fields, most expendable last.
  std::vector<std::string> extra = {human_bytes(done) + " / " + human_bytes(total)};
  if (rate > 0) {
    extra.push_back(human_bytes(static_cast<uint64_t>(rate)) + "/s");
    if (done < total) extra.push_back("ETA " + human_seconds(static_cast<double>(total - done) / rate));
  }
  const int room = columns - 1;  // writing the last column wraps on some terminals
  for (;;) {
    std::string tail = std::string(pct);
    for (const auto& e : extra) tail += "  " + e;
    // label + " " + bar + " " + tail
    const int fixed = static_cast<int>(label.size() + 1 + 1 + tail.size());
    const int cells = room - fixed - 2;  // the brackets
    if (cells >= kMinBarCells) return label + " " + bar_cells(frac, std::min(cells, 40)) + " " + tail;
    // The numbers matter more than the bar: drop it before any of them.
    std::string line = label + " " + tail;
    if (static_cast<int>(line.size()) <= room) return line;
    if (!extra.empty()) {
      extra.pop_back();
      continue;
    }
    return line.substr(0, static_cast<size_t>(std::max(room, 0)));
  }
}

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)),
      enabled_(::isatty(STDERR_FILENO) == 1 && ::isatty(STDOUT_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {
  if (enabled_) {
    struct sigaction sa {};
    sa.sa_handler = on_winch;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(SIGWINCH, &sa, nullptr);
    columns_ = terminal_columns();
    if (const char* d = std::getenv("ZT_PROGRESS_DELAY_MS")) delay_ = std::chrono::milliseconds(std::atoi(d));
  }
}

ProgressBar::~ProgressBar() {
  finish();
  if (enabled_) ::signal(SIGWINCH, SIG_DFL);
}

bool ProgressBar::due(bool force) {
  if (!enabled_) return false;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < delay_) return false;
  const bool resized = g_resized != 0;
  if (resized) {
    g_resized = 0;
    columns_ = terminal_columns();
  }
  if (drawn_ && !force && !resized && now - last_draw_ < kProgressRedraw) return false;
  last_draw_ = now;
  return true;
}

void ProgressBar::draw(const std::string& line) {
  // \r + erase-line: the previous line is replaced, whatever its width was.
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::update(uint64_t done, uint64_t total) {
  if (!due(done >= total)) return;
  const double secs = std::chrono::duration<double>(last_draw_ - start_).count();
  draw(progress_line(label_, done, total, secs, columns_));
}

void ProgressBar::pulse(uint64_t bytes) {
  if (!due(false)) return;
  const double secs = std::chrono::duration<double>(last_draw_ - start_).count();
  // The marker moves one step per redraw interval, back and forth.
  const auto step = static_cast<int>(secs * 1000 / static_cast<double>(kProgressRedraw.count())) % (2 * kPulseCells - 6);
  const int pos = step < kPulseCells - 3 ? step : 2 * kPulseCells - 6 - step;
  std::string bar(static_cast<size_t>(kPulseCells), '.');
  bar.replace(static_cast<size_t>(pos), 3, "<=>");
  char tail[64];
  std::snprintf(tail, sizeof tail, " %.1f s  %s", secs, human_bytes(bytes).c_str());
  std::string line = label_ + " [" + bar + "]" + tail;
  if (static_cast<int>(line.size()) > columns_ - 1) line = label_ + tail;
  if (static_cast<int>(line.size()) > columns_ - 1) line.resize(static_cast<size_t>(std::max(columns_ - 1, 0)));
  draw(line);
}

void ProgressBar::finish() {
  if (drawn_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    drawn_ = false;
  }
}

}  // namespace zt::cli
