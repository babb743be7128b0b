#pragma once
// A comparison as a document (schema gpubench-compare/1), written by `compare --format json`
// and read back by `gpubench show COMPARE.json`, which renders it as compare rendered it live:
// the only place that knows the document's fields.
#include <string>

#include <nlohmann/json.hpp>

#include "harness/analysis/compare.h"

namespace gpubench {

inline constexpr const char* kCompareSchema = "gpubench-compare/1";

nlohmann::json comparison_json(const Comparison& comparison);
// Validates as it reads: a problem is UsageError{kExitBadInput, "<file>: <pointer>: <what>"},
// and so is a document whose "failed" disagrees with its lines.
Comparison read_comparison(const nlohmann::json& document, const std::string& file);
// Whether `document` says it is a comparison (its "schema" names gpubench-compare, any version).
bool is_comparison_document(const nlohmann::json& document);

// Tidy CSV: one row per benchmark and metric, every line compare judged (unchanged ones too),
// figures as plain numbers, empty where there is none.
std::string comparison_csv(const Comparison& comparison);

}  // namespace gpubench
