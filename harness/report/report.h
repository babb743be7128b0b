#pragma once
// The result document (schema gpubench/1) and its renderings. One reporter per format.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/report/context.h"
#include "harness/report/result.h"

namespace gpubench {

enum class Format { kTable, kJson, kCsv, kMarkdown };
Format parse_format(const std::string& name);  // throws UsageError on an unknown name

// Google Benchmark's context fields plus context.gpubench; `benchmarks` in run order.
nlohmann::json make_document(const Context& context, const std::vector<BenchResult>& results,
                             const std::string& command_line);

// Renders a document's benchmarks: JSON is the document itself; the others show one row per
// result with its primary metric, noise, % of peak and status (throttled results marked).
std::string render(const nlohmann::json& document, Format format);

// Writes via a temporary file in the same directory and a rename, so that a crash or a full
// disk never leaves half a document. Throws UsageError{kExitBadInput} if it cannot.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace gpubench
