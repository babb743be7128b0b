// libFuzzer target: arbitrary bytes through the one-pass reader (json_reader.h, run_stream.h),
// held against nlohmann's DOM, the reader it stands in for. The text must be accepted by both or
// refused by both (nesting beyond kMaxJsonDepth aside, which only the reader refuses), with equal
// values; and a result file read in one pass must give what the DOM path gives: the same error
// line, or the same benchmarks. Any difference aborts, which libFuzzer reports as the bug it is.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "harness/model/json_reader.h"
#include "harness/model/result_file.h"

namespace {

using namespace gpubench;

bool same_samples(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}

bool same_runs(const ResultFile& a, const ResultFile& b) {
  if (a.benchmarks.size() != b.benchmarks.size() || a.host_name != b.host_name || a.versions != b.versions ||
      a.gpus.size() != b.gpus.size() || a.complete != b.complete || a.interrupted != b.interrupted)
    return false;
  for (std::size_t i = 0; i < a.benchmarks.size(); ++i) {
    const BenchmarkResult &x = a.benchmarks[i], &y = b.benchmarks[i];
    if (x.name != y.name || x.status != y.status || x.error != y.error || x.params != y.params ||
        x.repetition_indices != y.repetition_indices || x.null_figures != y.null_figures ||
        x.metrics.size() != y.metrics.size())
      return false;
    for (const auto& [name, m] : x.metrics) {
      const auto other = y.metrics.find(name);
      if (other == y.metrics.end() || !same_samples(m.values, other->second.values) ||
          !same_samples(m.repetition_medians, other->second.repetition_medians))
        return false;
    }
  }
  return true;
}

[[noreturn]] void mismatch(const char* what) {
  std::fprintf(stderr, "fuzz_json_reader: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  bool too_deep = false;
  std::optional<nlohmann::json> ours;
  try {
    JsonReader reader(text);
    nlohmann::json value = reader.value(1);
    reader.end();  // content after the document refuses the whole text
    ours = std::move(value);
  } catch (const JsonReadError& e) {
    too_deep = e.what == "nesting too deep";
  }
  // nlohmann stops at a NUL byte; JSON text has none (parse_json_text refuses it).
  const nlohmann::json theirs = text.find('\0') == std::string::npos ? nlohmann::json::parse(text, nullptr, false)
                                                                       : nlohmann::json(nlohmann::json::value_t::discarded);
  if (!too_deep && ours.has_value() == theirs.is_discarded()) mismatch("accepted by one reader only");
  if (ours && *ours != theirs) mismatch("different values");
  if (too_deep) return 0;  // the DOM path would recurse into it

  std::string streamed_error, dom_error;
  ResultFile streamed, dom;
  try {
    streamed = parse_result_text(text, "fuzz.json");
  } catch (const UsageError& e) {
    streamed_error = e.message;
  }
  try {
    dom = parse_result_document(parse_json_text(text, "fuzz.json"), "fuzz.json");
  } catch (const UsageError& e) {
    dom_error = e.message;
  }
  if (streamed_error != dom_error) mismatch("different errors");
  if (streamed_error.empty() && !same_runs(streamed, dom)) mismatch("different runs");
  return 0;
}
