#pragma once
// Reading the JSON inputs of compare, check and baseline (result documents, baselines,
// tolerance files) with validation. Every problem names the file and the place — a byte
// offset for syntax, a JSON pointer for content — and throws UsageError{kExitBadInput}, so a
// bad file is exit 2 with one clear line, never a crash or a silently wrong verdict.
#include <cstddef>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/report/context.h"
#include "harness/report/exit_codes.h"

namespace gpubench {

// Parses JSON text; a syntax error becomes "<file>: byte N: <what>".
nlohmann::json parse_json_text(const std::string& text, const std::string& file);
// Reads and parses a file; an unreadable file becomes "<file>: cannot read: <reason>".
nlohmann::json read_json_file(const std::string& path);

// A node of a parsed document together with where it is, for validating readers: every
// accessor checks the type and throws "<file>: <pointer>: <what>" when it is wrong.
class JsonAt {
 public:
  JsonAt(const nlohmann::json& node, std::string file, std::string pointer = "");

  const nlohmann::json& get() const { return *node_; }
  const std::string& file() const { return file_; }
  std::string place() const { return pointer_.empty() ? "/" : pointer_; }

  JsonAt at(const std::string& key) const;               // required member of an object
  std::optional<JsonAt> find(const std::string& key) const;  // absent or null: nullopt
  std::vector<std::pair<std::string, JsonAt>> members() const;  // requires an object
  std::vector<JsonAt> items() const;                     // requires an array

  std::string str() const;
  double num() const;  // any finite number
  long long integer() const;
  bool boolean() const;
  // Rejects members not in `allowed`, so that a misspelt field is an error, not ignored.
  void only_keys(std::initializer_list<const char*> allowed) const;
  [[noreturn]] void fail(const std::string& what) const;

 private:
  void expect(bool ok, const char* type) const;
  const nlohmann::json* node_;
  std::string file_, pointer_;
};

// One metric of one benchmark, with its repetitions merged.
struct MetricResult {
  std::string unit;
  bool higher_is_better = true;
  // Headline figure: the median of the repetitions' medians, so that one odd repetition does
  // not move it. With one repetition this is that repetition's median.
  double median = 0;
  std::vector<double> values;  // the samples of every repetition, pooled (for the U test)
  std::vector<double> repetition_medians;  // one per repetition, in file order
  double noise_pct = 0;        // relative noise of the median (stats.h), 0 when unknown
  double band_lo = 0, band_hi = 0;  // spread of the samples, for the no-U-test fallback
};

struct BenchmarkResult {
  std::string name, suite, status = "ok", error, primary_metric;
  std::string family;  // "suite/family", e.g. "memory/stream", whatever form the file used
  std::map<std::string, std::string> params;  // axis -> value as text (for matching)
  std::map<std::string, MetricResult> metrics;
  int repetitions = 0;
  bool throttled = false;
  std::vector<std::string> throttle_reasons;
  bool ok() const { return status == "ok"; }
};

// A gpubench/1 result document, validated, with repetitions of a benchmark merged.
struct ResultFile {
  std::string path;  // or a label such as "(benchmark run)"
  std::string host_name;
  nlohmann::json context;  // the whole, validated "context" object
  // context.gpubench's scalar fields (version, git_commit, command_line, driver_version,
  // cuda_driver, cuda_runtime, cublas, cudnn, nccl) as text; absent ones are absent here too.
  std::map<std::string, std::string> versions;
  std::optional<bool> nvml_available;  // unknown in files from before NVML was recorded
  std::string nvml_error;
  std::vector<GpuInfo> gpus;
  std::vector<std::vector<std::string>> links;  // nvidia-smi topo -m style matrix
  std::map<std::string, std::string> environment;  // context.gpubench.environment
  std::vector<BenchmarkResult> benchmarks;  // in first-appearance order

  const BenchmarkResult* find(const std::string& name) const;
  // Replaces the benchmark of the same name (or appends it): how check's retries land.
  void put(BenchmarkResult benchmark);

 private:
  std::map<std::string, std::size_t> index_;
};

ResultFile parse_result_document(const nlohmann::json& doc, const std::string& file);
ResultFile parse_result_text(const std::string& text, const std::string& file);
ResultFile load_result_file(const std::string& path);

}  // namespace gpubench
