#include "harness/run/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "harness/core/host_clock.h"
#include "harness/model/text_table.h"

namespace gpubench {
namespace {

std::size_t terminal_width(int fd) {
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 20) return size.ws_col;
  return 100;
}

// "memory/stream" of "memory/stream/op:triad/...".
std::string family_of(const std::string& name) {
  const std::size_t suite_end = name.find('/');
  return suite_end == std::string::npos ? name : name.substr(0, name.find('/', suite_end + 1));
}

}  // namespace

std::optional<double> remaining_seconds(double elapsed_s, std::size_t done, std::size_t total, double known_done_s,
                                        double known_left_s) {
  if (done > total) return std::nullopt;
  if (done == total) return known_left_s;
  if (done == 0) return std::nullopt;
  const double each = std::max(0.0, elapsed_s - known_done_s) / static_cast<double>(done);
  return each * static_cast<double>(total - done) + known_left_s;
}

std::string duration_text(double seconds) {
  const long long s = std::llround(std::max(0.0, seconds));
  if (s < 60) return std::to_string(s) + " s";
  char text[32];
  if (s < 3600) std::snprintf(text, sizeof text, "%lld:%02lld", s / 60, s % 60);
  else std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  return text;
}

std::string run_summary(std::size_t benchmarks, double seconds) {
  char text[96];
  std::snprintf(text, sizeof text, "gpubench: %zu benchmark%s in %.1f s", benchmarks, benchmarks == 1 ? "" : "s",
                std::max(0.0, seconds));
  return text + (seconds >= 60 ? " (" + duration_text(seconds) + ")" : std::string());
}

ProgressDisplay::ProgressDisplay(std::vector<PlannedRun> plan, std::FILE* out, bool terminal, std::size_t width,
                                 Clock clock)
    : total_(plan.size()), out_(out), terminal_(terminal), width_(width), clock_(std::move(clock)), start_s_(clock_()) {
  for (const PlannedRun& run : plan) {
    if (!run.known_s) continue;
    known_left_[run.name].push_back(*run.known_s);
    known_left_s_ += *run.known_s;
    ++known_total_;
  }
}

ProgressDisplay::ProgressDisplay(std::size_t total, std::FILE* out, bool terminal, std::size_t width, Clock clock)
    : ProgressDisplay(std::vector<PlannedRun>(total), out, terminal, width, std::move(clock)) {}

ProgressDisplay::ProgressDisplay(std::vector<PlannedRun> plan)
    : ProgressDisplay(std::move(plan), stderr, isatty(STDERR_FILENO) != 0, terminal_width(STDERR_FILENO), host_now_s) {}

ProgressDisplay::~ProgressDisplay() { clear_line(); }

std::string ProgressDisplay::timing() const {
  const double elapsed = clock_() - start_s_;
  const auto left = remaining_seconds(elapsed, done_ - known_done_, total_ - known_total_, known_done_s_, known_left_s_);
  return duration_text(elapsed) + " elapsed" + (left ? ", about " + duration_text(*left) + " left" : "");
}

void ProgressDisplay::clear_line() {
  if (terminal_ && drawn_) std::fputs("\r\033[K", out_);
  drawn_ = false;
}

void ProgressDisplay::started(const std::string& name) {
  const std::string count = "[" + std::to_string(done_ + 1) + "/" + std::to_string(total_) + "] ";
  if (!terminal_) {
    if (family_of(name) == family_) return;
    family_ = family_of(name);
    std::fprintf(out_, "%s%s (%s)\n", count.c_str(), printable(family_).c_str(), timing().c_str());
    std::fflush(out_);
    return;
  }
  // Longer than the terminal, the line would wrap and the carriage return redraw only its end.
  const std::string tail = "  " + timing();
  std::string shown = printable(name);
  const std::size_t room = width_ > count.size() + tail.size() + 4 ? width_ - count.size() - tail.size() - 1 : 0;
  if (shown.size() > room) shown = room > 3 ? "..." + shown.substr(shown.size() - (room - 3)) : "";
  std::fprintf(out_, "\r\033[K%s%s%s", count.c_str(), shown.c_str(), tail.c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressDisplay::finished(const BenchResult& result) {
  ++done_;
  if (auto known = known_left_.find(result.name); known != known_left_.end() && !known->second.empty()) {
    known_left_s_ -= known->second.back();
    known_done_s_ += known->second.back();
    known->second.pop_back();
    ++known_done_;
  }
  if (result.status == Status::kFailed || result.status == Status::kTimeout ||
      result.status == Status::kInterrupted) {
    clear_line();
    std::fprintf(out_, "%s: %s: %s\n", printable(result.name).c_str(), to_string(result.status),
                 printable(result.error).c_str());
    std::fflush(out_);
  }
}

}  // namespace gpubench
