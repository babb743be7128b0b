#pragma once
// A result document read in one pass (json_reader.h): the run's header as a RunDocument, and
// each benchmark entry handed to a sink as soon as it is read, so that no more than one entry's
// DOM exists at a time and a run of hundreds of MB reads in its model's memory, not its DOM's.
// The rules are read_run_document's own (read_run_header, read_run_entry), and so are the
// messages and their precedence: a syntax error anywhere first, then the header's problems,
// then the first bad entry.
#include <string>

#include "harness/model/run_document.h"

namespace gpubench {

class BenchResultSink {
 public:
  virtual ~BenchResultSink() = default;
  virtual void add(BenchResult&& result) = 0;
  // The results so far do not count: a later "benchmarks" member replaces them, as it does in
  // nlohmann's DOM, where of a key given twice the later value stands.
  virtual void clear() = 0;
};

// Returns the document without its results, which went to `sink` in file order.
RunDocument stream_run_file(const std::string& path, BenchResultSink& sink);
RunDocument stream_run_text(const std::string& text, const std::string& file, BenchResultSink& sink);

// Reads the file in one pass, entry by entry, never holding its whole DOM.
RunDocument load_run_document(const std::string& path);

}  // namespace gpubench
