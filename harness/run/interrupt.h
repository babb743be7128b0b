#pragma once
// SIGINT and SIGTERM during a run. The handler does only what is safe in a handler: it records
// the signal and writes a byte to a self-pipe. The supervisor polls that pipe beside its
// worker's, kills the worker and stops; the in-process loop (--no-isolate) asks between
// benchmarks. A second signal, once the first is being handled, ends the process at once.
#include <string>

namespace gpubench {

class InterruptCatcher {
 public:
  // Installs the handlers for SIGINT and SIGTERM; one catcher at a time per process.
  InterruptCatcher();
  // Restores the handlers that were there before.
  ~InterruptCatcher();
  InterruptCatcher(const InterruptCatcher&) = delete;
  InterruptCatcher& operator=(const InterruptCatcher&) = delete;

  // 0 until SIGINT or SIGTERM arrives, then that signal.
  int signal() const;
  // "SIGINT" or "SIGTERM"; empty while no signal arrived.
  std::string signal_name() const;
  // Readable once a signal arrived, for poll().
  int fd() const;
};

// 130 for SIGINT, 143 for SIGTERM: the exit code of a run interrupted by that signal.
int interrupted_exit_code(const std::string& signal_name);

// Around fork(): SIGINT and SIGTERM stay blocked from before the fork until the child has reset
// them to their defaults, so that the parent's handler never runs in the child.
class SignalsBlockedForFork {
 public:
  SignalsBlockedForFork();
  ~SignalsBlockedForFork();  // in the parent: delivers what arrived meanwhile
  SignalsBlockedForFork(const SignalsBlockedForFork&) = delete;
  SignalsBlockedForFork& operator=(const SignalsBlockedForFork&) = delete;
  // In the child, before exec: default handlers, signals unblocked.
  static void reset_in_child();
};

}  // namespace gpubench
