// libFuzzer target: arbitrary bytes as two result files, BASE and NEW, split at the first NUL
// byte (none: NEW is BASE). Each must load or be refused with UsageError; a pair that loads is
// compared as `gpubench compare` does, with the shipped tolerances, and rendered in every
// format. A pair whose values are damaged in ways one file alone does not reach (a null
// sample against a healthy one, choices that differ, a benchmark on one side only) must end
// with a verdict or a UsageError, never a hang or a crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_input.h"
#include "harness/analysis/compare.h"
#include "harness/model/result_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpubench;
  return fuzz::load_or_refuse(data, size, [](const std::string& text) {
    const std::size_t split = text.find('\0');
    const std::string base_text = text.substr(0, split);
    const std::string new_text = split == std::string::npos ? base_text : text.substr(split + 1);
    const ResultFile base = parse_result_text(base_text, "base.json");
    const ResultFile now = parse_result_text(new_text, "new.json");
    const Comparison comparison = compare_runs(base, now, CompareOptions{});
    for (const char* format : {"table", "md", "json"}) render_comparison(comparison, format);
  });
}
