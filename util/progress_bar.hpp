// A progress bar with ETA on stderr for runs that take more than a couple of seconds (codegen over a network,
// verify over many layers or shards). Debian packages no progress-bar library, hence this small one. It draws
// only when stderr is a terminal (so logs, pipes and ctest output stay clean), at most a few times a second,
// and not before the run has taken kProgressDelaySeconds.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace maeri::util {

inline constexpr double kProgressDelaySeconds = 2.0;

// One line of the bar, without the leading '\r': "label [#####.....] 5/10 50% 3.0 s, ETA 3.0 s  note".
// ETA = elapsed · (total − done) / done (linear in finished work); "ETA ?" before the first item is done.
// `width` is the number of cells of the bar.
std::string progress_line(const std::string& label, std::int64_t done, std::int64_t total, double elapsed_seconds,
                          const std::string& note = "", int width = 30);

class ProgressBar {
 public:
  // enabled: draw at all; by default, when stderr is a terminal.
  ProgressBar(std::string label, std::int64_t total);
  ProgressBar(std::string label, std::int64_t total, bool enabled, std::FILE* out);
  ~ProgressBar();  // finishes the line if anything was drawn
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void set_done(std::int64_t done, const std::string& note = "");
  void advance(const std::string& note = "") { set_done(done_ + 1, note); }
  bool drew() const { return drew_; }
  // Erases the bar's line (if drawn) so that a line printed to stdout on the same terminal starts clean; the next
  // update draws the bar again.
  void clear();

 private:
  void draw(bool force);
  std::string label_;
  std::int64_t total_ = 0, done_ = 0;
  std::string note_;
  bool enabled_ = false, drew_ = false;
  std::FILE* out_ = nullptr;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace maeri::util
