#pragma once
#include <string>
// Process exit codes, as DESIGN.md documents them. Scripts and nightly jobs depend on them.
namespace gpubench {
enum ExitCode : int {
  kExitOk = 0,          // everything measured and verified; nothing regressed or failed
  kExitFailure = 1,     // a benchmark failed/timed out/errored, or compare/check found a regression
  kExitBadInput = 2,    // bad usage, bad flag value, unreadable or malformed input file
  // An output that could not be written (stdout, --out, -o, a trace): like bad input, a problem
  // of the environment rather than of the node. See exit_code_with_failed_write.
  kExitCannotWrite = 2,
  kExitNoGpu = 3,       // no usable GPU or driver
  kExitInterruptedInt = 130,   // stopped by SIGINT, after writing what finished
  kExitInterruptedTerm = 143,  // stopped by SIGTERM, after writing what finished
};

// The exit code of a command one of whose writes failed: a failed write is never exit 0, so a
// command that found nothing wrong exits kExitCannotWrite; a code that already says something is
// wrong (a failure found, no GPU, an interruption) stands, since it is the finding, and stderr
// names the write that failed (and the fallback file the output went to instead).
inline int exit_code_with_failed_write(int exit_code) { return exit_code == kExitOk ? kExitCannotWrite : exit_code; }

// Thrown for bad usage or bad input anywhere below main(); main() prints what() as one line
// on stderr and exits with `code`.
struct UsageError {
  int code;
  std::string message;
};
}  // namespace gpubench
