// A one-line progress display on stderr for long what-ifs (drawing a billion-id shuffle, replaying
// ranks): only when stderr is a terminal and the job is large, so pipes, logs and tests never see it.
// The line is rewritten in place and erased before the report is printed.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace accel::cli {

// Datasets from this size on take long enough (a shuffle of 1e7 ids: ~50 ms; 1e9: seconds) to show progress.
inline constexpr std::int64_t kProgressMinSamples = 10'000'000;

class Progress {
 public:
  explicit Progress(bool large_job) : enabled_(large_job && isatty(STDERR_FILENO)) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress() { done(); }

  std::function<void(const std::string&)> callback() {
    if (!enabled_) return nullptr;
    return [this](const std::string& line) { show(line); };
  }

  // Erases the line (before the report goes to stdout, which is likely the same terminal).
  void done() {
    if (!shown_) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  void show(const std::string& line) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "\r\033[Kaccel-sim: %s ... (%.1f s)", line.c_str(), elapsed);
    std::fflush(stderr);
    shown_ = true;
  }

  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace accel::cli
