#include "harness/analysis/judgeable.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <optional>
#include <thread>
#include <map>
#include <set>

#include "harness/analysis/compare.h"
#include "harness/analysis/gpu_names.h"
#include "harness/model/plausibility.h"
#include "harness/model/text_table.h"

namespace gpubench {
namespace {

std::string gpus_pointer(std::size_t entry) { return "/context/gpubench/gpus/" + std::to_string(entry); }

void run_reasons(const ResultFile& run, std::vector<UnjudgeableReason>& out) {
  auto add = [&](std::string reason) { out.push_back({run.path, "", std::move(reason)}); };
  if (!run.complete)
    add("/context/gpubench/complete is false: the run did not finish (stopped, killed, or still running)");
  if (run.interrupted)
    add("/context/gpubench/interrupted is \"" + *run.interrupted + "\": a signal stopped the run");
  // Which GPU a figure was measured on is only known when each GPU is listed once.
  std::map<int, std::size_t> by_index;
  std::map<std::string, std::size_t> by_uuid;
  for (std::size_t i = 0; i < run.gpus.size(); ++i) {
    const GpuInfo& g = run.gpus[i];
    const auto [index_seen, new_index] = by_index.try_emplace(g.index, i);
    if (!new_index) {
      add(gpus_pointer(i) + ": gpu" + std::to_string(g.index) + " is listed twice (also " +
          gpus_pointer(index_seen->second) + ")");
      continue;
    }
    if (g.uuid.empty()) continue;  // not recorded
    const auto [uuid_seen, new_uuid] = by_uuid.try_emplace(g.uuid, i);
    if (!new_uuid)
      add(gpus_pointer(i) + ": uuid " + g.uuid + " is listed twice (also " + gpus_pointer(uuid_seen->second) +
          ")");
  }
}

std::string of_samples(std::size_t count, std::size_t total, const char* what) {
  return std::to_string(count) + " of " + std::to_string(total) + (count == 1 ? " samples is " : " samples are ") +
         what;
}

// A percentage (a reduction, a busy share) and a difference of two figures may be zero or negative;
// every other figure gpubench records is a time, a rate or a ratio of them, which a real
// measurement makes positive.
void metric_reasons(const std::string& name, const MetricResult& m, std::vector<std::string>& out) {
  // A rate (a unit per second) or the harness's own operation time is never a difference: the
  // marker on one would let a zero bandwidth or time through.
  const bool rate = m.unit.size() > 2 && m.unit.compare(m.unit.size() - 2, 2, "/s") == 0;
  const bool never_a_difference = rate || name == "time_us";
  if (m.difference && never_a_difference)
    out.push_back("metric " + name + ": marked a difference, which a rate or an operation's time never is");
  const bool may_be_signed = is_percentage_metric(name, m.unit) || (m.difference && !never_a_difference);
  std::size_t non_finite = 0, non_positive = 0;
  for (double v : m.values) {
    if (!std::isfinite(v)) ++non_finite;
    else if (!may_be_signed && v <= 0) ++non_positive;
  }
  const std::string metric = "metric " + name + ": ";
  if (non_finite) out.push_back(metric + of_samples(non_finite, m.values.size(), "null or not finite"));
  if (non_positive)
    out.push_back(metric + of_samples(non_positive, m.values.size(), "zero or negative") +
                  " (a time or a rate is positive)");
  if (non_finite || non_positive) return;  // the median follows from them
  if (!std::isfinite(m.median)) out.push_back(metric + "the median is null or not finite");
  else if (!may_be_signed && m.median <= 0)
    out.push_back(metric + "the median is " + format_number(m.median) + " (a time or a rate is positive)");
}

std::vector<std::string> benchmark_reasons(const BenchmarkResult& b, const std::set<int>& listed_gpus) {
  std::vector<std::string> out;
  std::map<int, int> entries;  // repetition_index -> entries
  for (int index : b.repetition_indices) ++entries[index];
  for (const auto& [index, count] : entries)
    if (count > 1)
      out.push_back("repetition_index " + std::to_string(index) + " appears " + std::to_string(count) +
                    " times: a duplicated entry, not a repetition");
  if (b.status != Status::kSkipped) {  // a skipped benchmark measured nothing on any GPU
    std::vector<int> named;
    generalise_gpu_name(b.name, &named);
    for (int gpu : std::set<int>(named.begin(), named.end()))
      if (!listed_gpus.count(gpu))
        out.push_back("names gpu" + std::to_string(gpu) + ", which the run's context does not list");
  }
  if (!b.ok()) return out;
  if (!b.null_figures.empty()) {
    std::string places;
    for (const std::string& pointer : b.null_figures) places += (places.empty() ? "" : ", ") + pointer;
    out.push_back("figures written as null (numbers that were not finite): " + places);
  }
  if (b.metrics.empty()) out.push_back("status ok but no figure");
  for (const auto& [name, metric] : b.metrics) metric_reasons(name, metric, out);
  // Files written before the run enforced the peak rule (or by other tools) still carry
  // impossible figures.
  const auto primary = b.metrics.find(b.primary_metric);
  if (primary != b.metrics.end() && b.peak)
    if (auto why = implausible_figure(primary->second.median, *b.peak * b.plausibility_factor,
                                      primary->second.higher_is_better))
      out.push_back(*why);
  return out;
}

}  // namespace

const std::vector<UnjudgeableReason>& judge_run(ResultFile& run) {
  if (run.judged) return run.unjudgeable;
  run.judged = true;
  run_reasons(run, run.unjudgeable);
  std::set<int> listed_gpus;
  for (const GpuInfo& g : run.gpus) listed_gpus.insert(g.index);
  for (BenchmarkResult& b : run.benchmarks) {
    const std::vector<std::string> reasons = benchmark_reasons(b, listed_gpus);
    if (reasons.empty()) continue;
    std::string joined;
    for (const std::string& reason : reasons) {
      run.unjudgeable.push_back({run.path, b.name, reason});
      joined += (joined.empty() ? "" : "; ") + reason;
    }
    if (b.ok()) {
      b.status = Status::kFailed;
      b.error = joined;
    } else {
      b.error += (b.error.empty() ? "" : "; ") + joined;
    }
  }
  return run.unjudgeable;
}

ResultFile load_judged_run(const std::string& path) {
  ResultFile run = load_result_file(path);
  judge_run(run);
  return run;
}

std::vector<ResultFile> load_judged_runs(const std::vector<std::string>& paths) {
  // Two: compare's pair, on the two cores of a small machine; more would only add memory.
  constexpr std::size_t kThreads = 2;
  std::vector<std::optional<ResultFile>> runs(paths.size());
  std::vector<std::exception_ptr> errors(paths.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < paths.size();) {
      try {
        runs[i] = load_judged_run(paths[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < std::min(kThreads, paths.size()); ++t) threads.emplace_back(work);
  work();
  for (std::thread& thread : threads) thread.join();
  std::vector<ResultFile> out;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    out.push_back(std::move(*runs[i]));
  }
  return out;
}

ResultFile judged_run(const RunDocument& document, const std::string& label) {
  ResultFile run = result_file_of(document, label);
  judge_run(run);
  return run;
}

std::vector<std::string> unjudgeable_lines(const std::vector<const ResultFile*>& runs) {
  std::vector<std::string> lines;
  for (const ResultFile* run : runs)
    for (const UnjudgeableReason& reason : run->unjudgeable) lines.push_back(reason.line());
  return lines;
}

void print_unjudgeable(std::ostream& out, const std::vector<std::string>& lines) {
  for (const std::string& line : lines) out << "gpubench: " << printable(line) << "\n";
}

std::string render_unjudgeable(const std::vector<std::string>& lines, bool markdown) {
  if (lines.empty()) return "";
  std::string out = markdown ? "#### Cannot be judged (the verdict is FAIL)\n\n"
                             : "Cannot be judged (the verdict is FAIL):\n";
  for (const std::string& line : lines) out += (markdown ? "- " : "  ") + printable(line) + "\n";
  return out + "\n";
}

std::string unjudgeable_note(const std::vector<std::string>& lines) {
  if (lines.empty()) return "";
  return " (cannot be judged: " + std::to_string(lines.size()) + (lines.size() == 1 ? " reason)" : " reasons)");
}

}  // namespace gpubench
