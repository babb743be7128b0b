#pragma once
// Reporters: what a run's results become as they arrive. The runner calls context() once
// before the first benchmark, result() as each result (each repetition) arrives, and finish()
// with the whole document when the run ends, interrupted or not.
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "harness/report/report.h"
#include "harness/model/run_document.h"

namespace gpubench {

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void context(const RunDocument& document) { (void)document; }  // no results yet
  virtual void result(const BenchResult& result) { (void)result; }
  virtual void finish(const RunDocument& document) = 0;
  // After finish(): true when a file this reporter writes could not be written (said on stderr,
  // with the fallback file that holds it instead; report.h, write_file_or_fallback).
  virtual bool write_failed() const { return false; }
};

// Forwards every call to each of its reporters, in the order they were added.
class MultiReporter : public Reporter {
 public:
  void add(std::unique_ptr<Reporter> reporter) { reporters_.push_back(std::move(reporter)); }
  void context(const RunDocument& document) override;
  void result(const BenchResult& result) override;
  void finish(const RunDocument& document) override;
  bool write_failed() const override;

 private:
  std::vector<std::unique_ptr<Reporter>> reporters_;
};

// One row per result with its primary metric, noise, % of peak and status (throttled results
// marked), then a summary line; printed on `out` when the run finishes.
std::unique_ptr<Reporter> table_reporter(std::ostream& out);
std::unique_ptr<Reporter> csv_reporter(std::ostream& out);
std::unique_ptr<Reporter> markdown_reporter(std::ostream& out);
// The gpubench/1 document, printed on `out` when the run finishes.
std::unique_ptr<Reporter> json_reporter(std::ostream& out);
// The node-exporter textfile-collector format (prometheus.h), printed when the run finishes.
std::unique_ptr<Reporter> prometheus_reporter(std::ostream& out);
std::unique_ptr<Reporter> make_reporter(Format format, std::ostream& out);
// The Prometheus text of a finished run, and of a run that could not start (gpubench_up 0, the
// exit code it ended with), so that an alert on the node fires when there is no GPU or driver.
std::string run_prometheus(const RunDocument& document);
std::string no_run_prometheus(const HostInfo& host, int exit_code);
// 130/143 when interrupted, else 1 when any benchmark failed or timed out, else 0.
int run_exit_code(const RunDocument& document);

// Keeps `path` a complete document at every moment: rewritten atomically when the run starts,
// after every result (complete: false) and at the end, so that a killed run leaves what had
// finished. A path that cannot be written when the run starts is UsageError{kExitCannotWrite},
// before anything is measured; one that fails at the end leaves the document in a fallback file.
std::unique_ptr<Reporter> json_file_reporter(const std::string& path);
// Writes the Prometheus text to `path` atomically when the run finishes (interrupted or not),
// so that node exporter's textfile collector never reads half a file (or to a fallback file).
std::unique_ptr<Reporter> prometheus_file_reporter(const std::string& path);
bool is_prometheus_path(const std::string& path);  // ends in ".prom"
// An --out path: the Prometheus file when it ends in ".prom" (the collector reads only those),
// else the JSON document.
std::unique_ptr<Reporter> out_file_reporter(const std::string& path);

}  // namespace gpubench
