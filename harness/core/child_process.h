#pragma once
// Processes a family starts and talks to: gpubench itself again as `gpubench --child NAME ARGS`
// (an entry point a bench file registers), or another program (a daemon's control tool). Each
// child reads lines on its stdin and writes lines on its stdout, gets the parent's environment
// with the family's changes, and dies with its parent; one not reaped is killed when its handle
// goes.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// What `gpubench --child NAME ARGS...` runs: the ARGS, its exit code.
using ChildEntry = std::function<int(const std::vector<std::string>& args)>;
// For a bench file's static initialiser: `const bool registered = register_child_entry(...)`.
bool register_child_entry(const std::string& name, ChildEntry entry);
// When argv is `gpubench --child NAME ARGS...`: the registered entry's exit code (2 and a line
// on stderr for a name none registered); nullopt for any other command line.
std::optional<int> run_child_entry(int argc, char** argv);

class ChildProcess {
 public:
  // `program` run with `args` (argv[1...]); `environment`: variables set (or, with an empty
  // value, removed) over the parent's. Throws std::runtime_error when it cannot start.
  ChildProcess(const std::string& program, const std::vector<std::string>& args,
               const std::map<std::string, std::string>& environment = {});
  // gpubench itself running the entry `name`.
  static ChildProcess of_self(const std::string& name, const std::vector<std::string>& args,
                              const std::map<std::string, std::string>& environment = {});
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ~ChildProcess();

  // False when the child no longer reads (it exited or closed its stdin).
  bool write_line(const std::string& line);
  void close_stdin();
  // The next line the child wrote, without its newline; nullopt after `timeout_s` or at the end
  // of its output.
  std::optional<std::string> read_line(double timeout_s);
  // Reaps the child, killing it first if it has not exited within `timeout_s`; its wait status.
  int wait(double timeout_s);

 private:
  int pid_ = -1, in_ = -1, out_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string pending_;
};

}  // namespace gpubench
