#pragma once
// What a run shows on stderr while it measures (never on stdout, which carries the results):
// on a terminal one line, rewritten in place, with the benchmark in progress, n of total, the
// time elapsed and an estimate of what remains; elsewhere (CI, nightly logs) a plain line as
// each family starts. Failures are always a line of their own.
#include <cstddef>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include "harness/model/result.h"

namespace gpubench {

// Seconds left when `done` of `total` benchmarks took `elapsed_s`: their mean time for each
// one still to run; unknown before the first has finished.
std::optional<double> remaining_seconds(double elapsed_s, std::size_t done, std::size_t total);
// "42 s", "3:05", "1:02:09": seconds as a person reads a duration.
std::string duration_text(double seconds);
// The closing line of a run: "gpubench: 256 benchmarks in 28.4 s" (and "(3:05)" past a minute).
std::string run_summary(std::size_t benchmarks, double seconds);

class ProgressDisplay {
 public:
  using Clock = std::function<double()>;  // monotonic seconds
  // `terminal`: rewrite one line of `width` columns in place; else plain lines.
  ProgressDisplay(std::size_t total, std::FILE* out, bool terminal, std::size_t width, Clock clock);
  // On stderr, a terminal when it is one, with its width, timed by the steady clock.
  explicit ProgressDisplay(std::size_t total);
  ~ProgressDisplay();  // clears the rewritten line
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  void started(const std::string& name);
  void finished(const BenchResult& result);

 private:
  std::string timing() const;  // "0:12 elapsed, about 2:40 left"
  void clear_line();

  std::size_t total_, done_ = 0;
  std::FILE* out_;
  bool terminal_, drawn_ = false;
  std::size_t width_;
  Clock clock_;
  double start_s_;
  std::string family_;
};

}  // namespace gpubench
