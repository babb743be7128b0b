#pragma once
// The typed model of one run, the result document of schema gpubench/1 (DESIGN.md, "Result
// JSON"): what the runner fills, every reporter renders, `check` holds against a baseline, and
// the one JSON writer and the one JSON reader convert.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/model/context.h"
#include "harness/model/host_info.h"
#include "harness/model/json_at.h"
#include "harness/model/result.h"

namespace gpubench {

struct RunDocument {
  HostInfo host;
  Context context;
  std::string version, git_commit, command_line;
  nlohmann::json config = nlohmann::json::object();  // the settings the run used
  bool complete = false;                    // every selected benchmark has its results
  std::optional<std::string> interrupted;   // "SIGINT" or "SIGTERM" when a signal ended the run
  std::vector<BenchResult> results;         // in run order, repetitions included
};

// A document for a run about to start on this host with this build: nothing measured yet.
RunDocument start_run_document(const Context& context, const std::string& command_line);

// The gpubench/1 JSON. Benchmarks with repetitions are followed by Google Benchmark's
// aggregate entries (mean, median, stddev, cv), which the reader skips as derived data.
nlohmann::json to_json(const RunDocument& document);
// The "context" object alone (Google Benchmark's fields and context.gpubench).
nlohmann::json context_json(const RunDocument& document);
// Validates as it reads; a problem is UsageError{kExitBadInput, "<file>: <pointer>: <what>"}.
RunDocument read_run_document(const nlohmann::json& document, const std::string& file);
// The two halves of read_run_document, which the one-pass reader calls too: the document
// without its results, and one entry of "benchmarks" (nullopt: an aggregate, derived data).
RunDocument read_run_header(const JsonAt& root);
std::optional<BenchResult> read_run_entry(const JsonAt& entry);

}  // namespace gpubench
