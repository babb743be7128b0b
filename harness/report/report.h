#pragma once
// The output formats of a run (reporter.h renders them) and the atomic file write.
#include <string>

namespace gpubench {

enum class Format { kTable, kJson, kCsv, kMarkdown, kPrometheus };
Format parse_format(const std::string& name);  // throws UsageError on an unknown name

// Writes via a temporary file in the same directory and a rename, so that a crash or a full
// disk never leaves half a document. Throws UsageError{kExitBadInput} if it cannot.
void write_file_atomically(const std::string& path, const std::string& text);
// Refuses, with UsageError{kExitBadInput}, a path that cannot be written, before a run that can
// take hours: creating a file beside it is the one test that sees permissions, read-only mounts
// and full quotas alike.
void check_writable(const std::string& path);

}  // namespace gpubench
