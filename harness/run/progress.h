#pragma once
// What a run shows on stderr while it measures (never on stdout, which carries the results):
// on a terminal one line, rewritten in place, with the benchmark in progress, n of total, the
// time elapsed and an estimate of what remains; elsewhere (CI, nightly logs) a plain line as
// each family starts. Failures are always a line of their own.
#include <cstddef>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/result.h"

namespace gpubench {

// Seconds left when `done` of `total` benchmarks took `elapsed_s`: their mean time for each
// one still to run; unknown before the first has finished. Benchmarks whose length is known
// beforehand (Family::known_length) are outside `done` and `total`: `known_done_s` of the
// elapsed time went to those finished, and `known_left_s` is added for those to come.
std::optional<double> remaining_seconds(double elapsed_s, std::size_t done, std::size_t total,
                                        double known_done_s = 0, double known_left_s = 0);
// "42 s", "3:05", "1:02:09": seconds as a person reads a duration.
std::string duration_text(double seconds);
// The closing line of a run: "gpubench: 256 benchmarks in 28.4 s" (and "(3:05)" past a minute).
std::string run_summary(std::size_t benchmarks, double seconds);

// One run of a benchmark the plan holds (a benchmark of N repetitions is N of them).
struct PlannedRun {
  std::string name;
  std::optional<double> known_s;  // Family::known_length_s
};

class ProgressDisplay {
 public:
  using Clock = std::function<double()>;  // monotonic seconds
  // `terminal`: rewrite one line of `width` columns in place; else plain lines.
  ProgressDisplay(std::vector<PlannedRun> plan, std::FILE* out, bool terminal, std::size_t width, Clock clock);
  // `total` runs of unknown length.
  ProgressDisplay(std::size_t total, std::FILE* out, bool terminal, std::size_t width, Clock clock);
  // On stderr, a terminal when it is one, with its width, timed by the steady clock.
  explicit ProgressDisplay(std::vector<PlannedRun> plan);
  ~ProgressDisplay();  // clears the rewritten line
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  void started(const std::string& name);
  void finished(const BenchResult& result);

 private:
  std::string timing() const;  // "0:12 elapsed, about 2:40 left"
  void clear_line();

  std::size_t total_, done_ = 0;
  // Runs of a known length still to come, by name, and the seconds they make up; those done.
  std::map<std::string, std::vector<double>> known_left_;
  double known_left_s_ = 0, known_done_s_ = 0;
  std::size_t known_done_ = 0, known_total_ = 0;
  std::FILE* out_;
  bool terminal_, drawn_ = false;
  std::size_t width_;
  Clock clock_;
  double start_s_;
  std::string family_;
};

}  // namespace gpubench
