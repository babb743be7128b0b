// A run as Prometheus gauges (prometheus.h): the run's build and completeness, one status gauge
// per benchmark, and each ok benchmark's metrics as gpubench_<suite>_<metric>, labelled with
// its name, family, parameters and GPU (index and UUID). The name label makes every series
// unique by construction; the parameters are there to select and group by.
#include <algorithm>
#include <ostream>

#include "harness/report/prometheus.h"
#include "harness/report/reporter.h"
#include "harness/report/stats.h"

namespace gpubench {
namespace {

// Labels every series of a benchmark carries; a parameter of the same name is prefixed.
const std::vector<std::string> kFixedLabels = {"benchmark", "suite", "family", "status", "gpu", "uuid"};

std::string param_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// The benchmark's family and parameters, with a `gpuN` axis as the GPU's index and UUID.
PromLabels benchmark_labels(const BenchResult& result, const Context& context) {
  const std::string family = result.family.substr(result.family.find('/') + 1);
  PromLabels labels = {{"benchmark", result.name}, {"family", family}};
  for (const auto& [axis, value] : result.params.items()) {
    const std::string text = param_text(value);
    if (axis == "gpu" && text.rfind("gpu", 0) == 0) {
      labels.emplace_back("gpu", text.substr(3));
      for (const GpuInfo& gpu : context.gpus)
        if ("gpu" + std::to_string(gpu.index) == text) labels.emplace_back("uuid", gpu.uuid);
      continue;
    }
    const bool taken = std::find(kFixedLabels.begin(), kFixedLabels.end(), axis) != kFixedLabels.end();
    labels.emplace_back(taken ? "param_" + axis : axis, text);
  }
  return labels;
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
    const std::string help = metric + " (" + first_metric.unit + ", " +
                             (first_metric.higher_is_better ? "higher" : "lower") +
                             " is better): the median of the samples, of the repetitions' medians with --repetitions";
    out.gauge("gpubench_" + b.first->suite + "_" + metric, help, labels, median_of(medians));
  }
}

std::string run_prometheus(const RunDocument& doc) {
  PrometheusText out;
  out.gauge("gpubench_run_info", "the build and machine of the run (always 1)",
            {{"version", doc.version}, {"git_commit", doc.git_commit}, {"host", doc.host.host_name},
             {"driver_version", doc.context.driver_version}, {"cuda_runtime", doc.context.cuda_runtime}},
            1);
  out.gauge("gpubench_run_complete", "1 when every selected benchmark ran, 0 when the run was interrupted", {},
            doc.complete && !doc.interrupted ? 1 : 0);
  const auto benchmarks = benchmarks_of(doc.results);
  for (Status s : {Status::kOk, Status::kFailed, Status::kSkipped, Status::kTimeout, Status::kInterrupted})
    out.gauge("gpubench_run_benchmarks", "benchmarks of the run by status", {{"status", to_string(s)}},
              static_cast<double>(std::count_if(benchmarks.begin(), benchmarks.end(),
                                                [&](const Benchmark& b) { return b.status == s; })));
  for (const Benchmark& b : benchmarks) {
    const PromLabels labels = benchmark_labels(*b.first, doc.context);
    PromLabels status = labels;
    status.insert(status.begin() + 1, {"suite", b.first->suite});
    status.emplace_back("status", to_string(b.status));
    out.gauge("gpubench_benchmark_ok", "1 when every repetition of the benchmark was measured and verified, else 0 "
              "(the status label says why)", status, b.status == Status::kOk ? 1 : 0);
  }
  for (const Benchmark& b : benchmarks) add_metrics(out, b, benchmark_labels(*b.first, doc.context));
  return out.text();
}

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
