#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace zt::cli {

inline constexpr int kBarWidth = 30;

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

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)), enabled_(::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - start_ < kProgressDelay) return;
  if (drawn_ && now - last_draw_ < kProgressRedraw && done < total) return;
  last_draw_ = now;
  double frac = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  if (frac > 1) frac = 1;
  int filled = static_cast<int>(frac * kBarWidth);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(kBarWidth - filled), '.');
  double secs = std::chrono::duration<double>(now - start_).count();
  std::string rate = secs > 0 ? human_bytes(static_cast<uint64_t>(static_cast<double>(done) / secs)) + "/s" : "";
  std::fprintf(stderr, "\r\033[K%s [%s] %3d%%  %s / %s  %s", label_.c_str(), bar.c_str(), static_cast<int>(frac * 100),
               human_bytes(done).c_str(), human_bytes(total).c_str(), rate.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::pulse(uint64_t bytes) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - start_ < kProgressDelay) return;
  if (drawn_ && now - last_draw_ < kProgressRedraw) return;
  last_draw_ = now;
  const double secs = std::chrono::duration<double>(now - start_).count();
  // The marker moves one step per redraw interval, back and forth.
  const auto step = static_cast<int>(secs * 1000 / static_cast<double>(kProgressRedraw.count())) % (2 * kBarWidth - 6);
  const int pos = step < kBarWidth - 3 ? step : 2 * kBarWidth - 6 - step;
  std::string bar(static_cast<size_t>(kBarWidth), '.');
  bar.replace(static_cast<size_t>(pos), 3, "<=>");
  std::fprintf(stderr, "\r\033[K%s [%s] %.1f s  %s", label_.c_str(), bar.c_str(), secs, human_bytes(bytes).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (drawn_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    drawn_ = false;
  }
}

}  // namespace zt::cli
