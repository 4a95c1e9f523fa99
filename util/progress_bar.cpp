// Progress bar with ETA (see progress_bar.hpp).
#include "util/progress_bar.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

namespace maeri::util {
namespace {

std::string duration_text(double seconds) {
  if (seconds < 60) return fmt::format("{:.1f} s", seconds);
  if (seconds < 3600) return fmt::format("{}m{:02}s", int(seconds) / 60, int(seconds) % 60);
  return fmt::format("{}h{:02}m", int(seconds) / 3600, int(seconds) % 3600 / 60);
}

}  // namespace

std::string progress_line(const std::string& label, std::int64_t done, std::int64_t total, double elapsed_seconds,
                          const std::string& note, int width) {
  const std::int64_t shown = std::clamp<std::int64_t>(done, 0, std::max<std::int64_t>(total, 0));
  const double fraction = total > 0 ? double(shown) / double(total) : 1.0;
  const int filled = int(fraction * width);
  const std::string eta =
      shown == 0 ? "ETA ?" : "ETA " + duration_text(elapsed_seconds * double(total - shown) / double(shown));
  std::string line = fmt::format("{} [{}{}] {}/{} {:.0f}% {}, {}", label, std::string(size_t(filled), '#'),
                                 std::string(size_t(width - filled), '.'), shown, total, 100 * fraction,
                                 duration_text(elapsed_seconds), eta);
  if (!note.empty()) line += "  " + note;
  return line;
}

ProgressBar::ProgressBar(std::string label, std::int64_t total)
    : ProgressBar(std::move(label), total, isatty(STDERR_FILENO) == 1, stderr) {}

ProgressBar::ProgressBar(std::string label, std::int64_t total, bool enabled, std::FILE* out)
    : label_(std::move(label)), total_(total), enabled_(enabled), out_(out),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

ProgressBar::~ProgressBar() {
  if (!drew_) return;
  draw(true);
  std::fputc('\n', out_);
  std::fflush(out_);
}

void ProgressBar::set_done(std::int64_t done, const std::string& note) {
  done_ = done;
  note_ = note;
  draw(false);
}

void ProgressBar::clear() {
  if (!drew_) return;
  std::fputs("\r\x1b[K", out_);
  std::fflush(out_);
}

void ProgressBar::draw(bool force) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (!force && (elapsed < kProgressDelaySeconds || now - last_draw_ < std::chrono::milliseconds(200))) return;
  last_draw_ = now;
  // \r and clear-to-end-of-line: the line is redrawn in place.
  std::fprintf(out_, "\r%s\x1b[K", progress_line(label_, done_, total_, elapsed, note_).c_str());
  std::fflush(out_);
  drew_ = true;
}

}  // namespace maeri::util
