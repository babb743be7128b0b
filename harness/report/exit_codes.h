#pragma once
#include <string>
// Process exit codes, as DESIGN.md documents them. Scripts and nightly jobs depend on them.
namespace gpubench {
enum ExitCode : int {
  kExitOk = 0,          // everything measured and verified; nothing regressed or failed
  kExitFailure = 1,     // a benchmark failed/timed out/errored, or compare/check found a regression
  kExitBadInput = 2,    // bad usage, bad flag value, unreadable or malformed input file
  kExitNoGpu = 3,       // no usable GPU or driver
  kExitInterruptedInt = 130,   // stopped by SIGINT, after writing what finished
  kExitInterruptedTerm = 143,  // stopped by SIGTERM, after writing what finished
};

// Thrown for bad usage or bad input anywhere below main(); main() prints what() as one line
// on stderr and exits with `code`.
struct UsageError {
  int code;
  std::string message;
};
}  // namespace gpubench
