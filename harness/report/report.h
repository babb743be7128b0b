#pragma once
// The output formats of a run (reporter.h renders them) and the atomic file write.
#include <string>

namespace gpubench {

enum class Format { kTable, kJson, kCsv, kMarkdown };
Format parse_format(const std::string& name);  // throws UsageError on an unknown name

// Writes via a temporary file in the same directory and a rename, so that a crash or a full
// disk never leaves half a document. Throws UsageError{kExitBadInput} if it cannot.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace gpubench
