#pragma once
// Where a command's output goes, every write checked (DESIGN.md, "Command line"): what could not
// be written is said on stderr, and the command's exit code then follows
// exit_code_with_failed_write (exit_codes.h).
#include <string>

namespace gpubench {

// Flushes stdout: false when something written to it since the process started did not arrive
// (a full disk, a closed pipe, /dev/full), said once on stderr.
bool stdout_written();
// `text` on stdout when `path` is empty, else in `path` (write_file_or_fallback: atomically,
// or in a fallback file whose path is printed). False when it did not get where it was sent.
bool write_output(const std::string& text, const std::string& path);
// `exit_code`, or exit_code_with_failed_write(exit_code) when stdout lost output (stdout_written).
int exit_code_after_stdout(int exit_code);

}  // namespace gpubench
