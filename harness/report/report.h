#pragma once
// The output formats of a run (reporter.h renders them) and the atomic file write.
#include <string>

namespace gpubench {

enum class Format { kTable, kJson, kCsv, kMarkdown, kPrometheus };
Format parse_format(const std::string& name);  // throws UsageError on an unknown name

// Writes via a temporary file in the same directory, fsync and a rename (and an fsync of the
// directory), so that a crash or a full disk never leaves half a document; every step is
// checked. A path that exists and is not a regular file (/dev/stdout, a FIFO, a device) is
// written in place: there is no file to replace. Throws UsageError{kExitCannotWrite} if it cannot.
void write_file_atomically(const std::string& path, const std::string& text);
// write_file_atomically; where that fails, says so on stderr and writes `text` to a fallback file
// (write_fallback_file) instead, naming it there, so that nothing measured is lost to a full disk.
// Returns false when `path` was not written, whether or not the fallback was.
bool write_file_or_fallback(const std::string& path, const std::string& text);
// Writes `text` to a new file named after `path` (gpubench-<stem>-XXXXXX<extension>) in $TMPDIR
// (else /tmp), or in the working directory where that fails. Returns the file's absolute path, or
// an empty string when neither could be written (why in *why_not).
std::string write_fallback_file(const std::string& path, const std::string& text, std::string* why_not);
// Refuses, with UsageError{kExitCannotWrite}, a path that cannot be written, before a run that can
// take hours: creating a file beside it is the one test that sees permissions, read-only mounts
// and full quotas alike.
void check_writable(const std::string& path);

}  // namespace gpubench
