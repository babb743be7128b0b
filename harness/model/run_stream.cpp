#include "harness/model/run_stream.h"

#include <optional>

#include "harness/model/json_reader.h"

namespace gpubench {
namespace {

using nlohmann::json;

// The entries of a "benchmarks" array, each read as it is parsed. After the first bad one the
// rest are parsed (a syntax error further on still takes precedence) but not read.
void stream_entries(JsonReader& reader, const std::string& file, BenchResultSink& sink,
                    std::optional<UsageError>& entry_error) {
  reader.begin_array();
  for (std::size_t i = 0; reader.next_item(); ++i) {
    const json entry = reader.value(3);
    if (entry_error) continue;
    try {
      if (auto result = read_run_entry(JsonAt(entry, file, "/benchmarks/" + std::to_string(i))))
        sink.add(std::move(*result));
    } catch (UsageError& e) {
      entry_error = std::move(e);
    }
  }
}

RunDocument stream_run(JsonReader& reader, const std::string& file, BenchResultSink& sink) {
  json root = json::object();  // every member but a "benchmarks" array
  bool streamed = false;       // the entries went to the sink already
  std::optional<UsageError> entry_error;
  if (reader.peek() != '{') {
    root = reader.value(1);  // not a run document: read_run_header says why
  } else {
    reader.begin_object();
    std::string key;
    while (reader.next_key(key)) {
      if (key != "benchmarks") {
        root[key] = reader.value(2);
        continue;
      }
      sink.clear();
      entry_error.reset();
      root.erase(key);
      streamed = reader.peek() == '[';
      if (streamed) stream_entries(reader, file, sink, entry_error);
      else root[key] = reader.value(2);
    }
  }
  reader.end();
  const JsonAt at(root, file);
  RunDocument doc = read_run_header(at);
  if (!streamed)
    for (const JsonAt& entry : at.at("benchmarks").items())
      if (auto result = read_run_entry(entry)) sink.add(std::move(*result));
  if (entry_error) throw *entry_error;
  return doc;
}

}  // namespace

RunDocument stream_run_file(const std::string& path, BenchResultSink& sink) {
  const auto file = open_input_file(path);
  try {
    JsonReader reader(file.get());
    return stream_run(reader, path, sink);
  } catch (const JsonReadError& e) {
    throw_json_syntax_error(read_text_file(path), path, e.byte, e.what);
  }
}

RunDocument stream_run_text(const std::string& text, const std::string& file, BenchResultSink& sink) {
  try {
    JsonReader reader(text);
    return stream_run(reader, file, sink);
  } catch (const JsonReadError& e) {
    throw_json_syntax_error(text, file, e.byte, e.what);
  }
}

namespace {

struct CollectedResults : BenchResultSink {
  std::vector<BenchResult> results;
  void add(BenchResult&& result) override { results.push_back(std::move(result)); }
  void clear() override { results.clear(); }
};

}  // namespace

RunDocument load_run_document(const std::string& path) {
  CollectedResults collected;
  RunDocument doc = stream_run_file(path, collected);
  doc.results = std::move(collected.results);
  return doc;
}

}  // namespace gpubench
