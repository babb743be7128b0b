// A run as Prometheus gauges (prometheus.h): whether it ran, how it ended and when, one status
// gauge per benchmark, and each ok benchmark's metrics in base units (seconds, bytes per second,
// flop/s) as gpubench_<quantity>_<unit>, labelled with suite, family, axes, GPU and host. The
// labels identify a measurement across nights (never a file path); a metric's name says only
// what it measures, so one query covers every suite.
#include <algorithm>
#include <ctime>
#include <ostream>

#include "harness/model/exit_codes.h"
#include "harness/model/prometheus.h"
#include "harness/report/reporter.h"
#include "harness/model/stats.h"

namespace gpubench {
namespace {

// Labels every series of a benchmark carries; a parameter of the same name is prefixed.
const std::vector<std::string> kFixedLabels = {"suite", "family", "status", "gpu", "uuid", "host"};

std::string param_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

PromLabels benchmark_labels(const BenchResult& result, const RunDocument& doc) {
  PromLabels labels = {{"suite", result.suite}, {"family", result.family.substr(result.family.find('/') + 1)}};
  for (const auto& [axis, value] : result.params.items()) {
    const std::string text = param_text(value);
    if (axis == "gpu" && text.rfind("gpu", 0) == 0) {
      labels.emplace_back("gpu", text.substr(3));
      for (const GpuInfo& gpu : doc.context.gpus)
        if ("gpu" + std::to_string(gpu.index) == text) labels.emplace_back("uuid", gpu.uuid);
      continue;
    }
    const bool taken = std::find(kFixedLabels.begin(), kFixedLabels.end(), axis) != kFixedLabels.end();
    labels.emplace_back(taken ? "param_" + axis : axis, text);
  }
  labels.emplace_back("host", doc.host.host_name);
  return labels;
}

// A metric in the base unit the exposition conventions ask for: its name without the unit it
// carries, the base unit's suffix, and the factor to it. A unit without a base form stays.
struct BaseUnit {
  std::string name;
  double scale = 1;
};

std::string without_suffix(const std::string& name, const std::string& suffix) {
  const bool ends = name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  return ends ? name.substr(0, name.size() - suffix.size()) : name;
}

BaseUnit base_unit(const std::string& metric, const std::string& unit) {
  struct Rule { const char *unit, *suffix, *base; double scale; };
  static const Rule kRules[] = {
      {"ns", "_ns", "_seconds", 1e-9},       {"us", "_us", "_seconds", 1e-6},
      {"ms", "_ms", "_seconds", 1e-3},       {"s", "_s", "_seconds", 1},
      {"GB/s", "_gbps", "_bytes_per_second", 1e9}, {"B", "_bytes", "_bytes", 1},
      {"TFLOP/s", "tflops", "flops_per_second", 1e12}, {"1/s", "_per_s", "_per_second", 1},
      {"images/s", "_per_s", "_per_second", 1},  {"%", "_pct", "_ratio", 0.01}};
  for (const Rule& rule : kRules)
    if (unit == rule.unit) return {"gpubench_" + without_suffix(metric, rule.suffix) + rule.base, rule.scale};
  return {"gpubench_" + metric, 1};
}

// One benchmark's repetitions together: a series per benchmark, never one per repetition.
struct Benchmark {
  const BenchResult* first;
  Status status = Status::kOk;  // the first repetition's that is not ok, else ok
  std::vector<const BenchResult*> ok;
};

std::vector<Benchmark> benchmarks_of(const std::vector<BenchResult>& results) {
  std::vector<Benchmark> benchmarks;
  for (const BenchResult& r : results) {
    auto b = std::find_if(benchmarks.begin(), benchmarks.end(), [&](const Benchmark& x) { return x.first->name == r.name; });
    if (b == benchmarks.end()) b = benchmarks.insert(benchmarks.end(), Benchmark{&r, Status::kOk, {}});
    if (r.status == Status::kOk) b->ok.push_back(&r);
    else if (b->status == Status::kOk) b->status = r.status;
  }
  return benchmarks;
}

void add_metrics(PrometheusText& out, const Benchmark& b, const PromLabels& labels) {
  for (const auto& [metric, first_metric] : b.first->metrics) {
    std::vector<double> medians;
    for (const BenchResult* r : b.ok)
      if (auto m = r->metrics.find(metric); m != r->metrics.end() && m->second.summary().samples > 0)
        medians.push_back(m->second.summary().median);
    if (medians.empty()) continue;
    const BaseUnit base = base_unit(metric, first_metric.unit);
    const std::string help = "the median of the samples (of the repetitions' medians with --repetitions), " +
                             std::string(first_metric.higher_is_better ? "higher" : "lower") +
                             " is better; the result file's " + metric + " (" + first_metric.unit + ") in base units";
    out.gauge(base.name, help, labels, median_of(medians) * base.scale);
  }
}

// The date Google Benchmark's context states ("2026-12-02T05:48:42+0000") as Unix seconds;
// 0 where it cannot be read.
double unix_seconds(const std::string& date) {
  std::tm tm{};
  const char* rest = strptime(date.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!rest) return 0;
  double seconds = static_cast<double>(timegm(&tm));
  int hours = 0, minutes = 0;
  char sign = 0;
  if (std::sscanf(rest, "%c%2d%2d", &sign, &hours, &minutes) == 3 && (sign == '+' || sign == '-'))
    seconds -= (sign == '+' ? 1 : -1) * (hours * 3600.0 + minutes * 60.0);
  return seconds;
}

// How a run ended, in gpubench_up, gpubench_run_complete, gpubench_run_exit_code and the time.
void add_run_state(PrometheusText& out, const HostInfo& host, bool up, bool complete, int exit_code) {
  const PromLabels labels = {{"host", host.host_name}};
  out.gauge("gpubench_up", "1 when the run could start (a GPU and driver were usable), 0 when it could not", labels, up);
  out.gauge("gpubench_run_complete", "1 when every selected benchmark ran, 0 when the run was interrupted or could not start",
            labels, complete);
  out.gauge("gpubench_run_exit_code", "the exit code of the run (0 ok, 1 a benchmark failed, 2 bad input, 3 no GPU, 130/143 interrupted)",
            labels, exit_code);
  out.gauge("gpubench_run_timestamp_seconds", "when the run started, Unix time", labels, unix_seconds(host.date));
}

}  // namespace

int run_exit_code(const RunDocument& doc) {
  if (doc.interrupted) return *doc.interrupted == "SIGTERM" ? kExitInterruptedTerm : kExitInterruptedInt;
  for (const BenchResult& result : doc.results)
    if (result.status != Status::kOk && result.status != Status::kSkipped) return kExitFailure;
  return kExitOk;
}

std::string run_prometheus(const RunDocument& doc) {
  PrometheusText out;
  add_run_state(out, doc.host, true, doc.complete && !doc.interrupted, run_exit_code(doc));
  out.gauge("gpubench_run_info", "the build and machine of the run (always 1)",
            {{"version", doc.version}, {"git_commit", doc.git_commit}, {"host", doc.host.host_name},
             {"driver_version", doc.context.driver_version}, {"cuda_runtime", doc.context.cuda_runtime}},
            1);
  const auto benchmarks = benchmarks_of(doc.results);
  for (Status s : {Status::kOk, Status::kFailed, Status::kSkipped, Status::kTimeout, Status::kInterrupted})
    out.gauge("gpubench_run_benchmarks", "benchmarks of the run by status", {{"host", doc.host.host_name}, {"status", to_string(s)}},
              static_cast<double>(std::count_if(benchmarks.begin(), benchmarks.end(),
                                                [&](const Benchmark& b) { return b.status == s; })));
  for (const Benchmark& b : benchmarks) {
    PromLabels status = benchmark_labels(*b.first, doc);
    status.emplace_back("status", to_string(b.status));
    out.gauge("gpubench_benchmark_ok", "1 when every repetition of the benchmark was measured and verified, else 0 "
              "(the status label says why)", status, b.status == Status::kOk ? 1 : 0);
  }
  for (const Benchmark& b : benchmarks) add_metrics(out, b, benchmark_labels(*b.first, doc));
  return out.text();
}

std::string no_run_prometheus(const HostInfo& host, int exit_code) {
  PrometheusText out;
  add_run_state(out, host, false, false, exit_code);
  return out.text();
}

namespace {

class PrometheusReporter : public Reporter {
 public:
  explicit PrometheusReporter(std::ostream& out) : out_(out) {}
  void finish(const RunDocument& document) override { out_ << run_prometheus(document) << std::flush; }

 private:
  std::ostream& out_;
};

// The textfile collector may read the file at any moment: it only ever sees a whole run.
class PrometheusFileReporter : public Reporter {
 public:
  explicit PrometheusFileReporter(std::string path) : path_(std::move(path)) {}
  void finish(const RunDocument& document) override { written_ = write_file_or_fallback(path_, run_prometheus(document)); }
  bool write_failed() const override { return !written_; }

 private:
  std::string path_;
  bool written_ = true;
};

}  // namespace

std::unique_ptr<Reporter> prometheus_reporter(std::ostream& out) { return std::make_unique<PrometheusReporter>(out); }

std::unique_ptr<Reporter> prometheus_file_reporter(const std::string& path) {
  return std::make_unique<PrometheusFileReporter>(path);
}

}  // namespace gpubench
