#include "harness/core/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace gpubench {
namespace {

std::map<std::string, ChildEntry>& entries() {
  static std::map<std::string, ChildEntry> all;
  return all;
}

std::vector<std::string> environment_with(const std::map<std::string, std::string>& changes) {
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    if (!changes.count(entry.substr(0, entry.find('=')))) out.push_back(entry);
  }
  for (const auto& [name, value] : changes)
    if (!value.empty()) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// In the child between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(pid_t parent, int in, int out, const char* program, char** argv, char** envp) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal_number : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaction(signal_number, &default_action, nullptr);
  if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0) _exit(127);
  execve(program, argv, envp);
  _exit(127);
}

}  // namespace

bool register_child_entry(const std::string& name, ChildEntry entry) {
  entries()[name] = std::move(entry);
  return true;
}

std::optional<int> run_child_entry(int argc, char** argv) {
  if (argc < 3 || std::strcmp(argv[1], "--child") != 0) return std::nullopt;
  const auto entry = entries().find(argv[2]);
  if (entry == entries().end()) {
    std::fprintf(stderr, "gpubench: --child %s: no such entry\n", argv[2]);
    return 2;
  }
  return entry->second(std::vector<std::string>(argv + 3, argv + argc));
}

ChildProcess::ChildProcess(const std::string& program, const std::vector<std::string>& args,
                           const std::map<std::string, std::string>& environment) {
  std::vector<std::string> argv_strings{program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<std::string> env_strings = environment_with(environment);
  std::vector<char*> argv = pointers(argv_strings), envp = pointers(env_strings);
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0) throw std::runtime_error("pipe: " + std::string(strerror(errno)));
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    close(to_child[0]);
    close(to_child[1]);
    throw std::runtime_error("pipe: " + std::string(strerror(errno)));
  }
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ == 0) exec_child(parent, to_child[0], from_child[1], program.c_str(), argv.data(), envp.data());
  close(to_child[0]);
  close(from_child[1]);
  in_ = to_child[1];
  out_ = from_child[0];
  if (pid_ < 0) {
    close(in_);
    close(out_);
    throw std::runtime_error("fork: " + std::string(strerror(errno)));
  }
}

ChildProcess ChildProcess::of_self(const std::string& name, const std::vector<std::string>& args,
                                   const std::map<std::string, std::string>& environment) {
  std::vector<std::string> all{"--child", name};
  all.insert(all.end(), args.begin(), args.end());
  return ChildProcess("/proc/self/exe", all, environment);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), in_(other.in_), out_(other.out_), reaped_(other.reaped_), status_(other.status_),
      pending_(std::move(other.pending_)) {
  other.pid_ = other.in_ = other.out_ = -1;
  other.reaped_ = true;
}

ChildProcess::~ChildProcess() {
  if (in_ >= 0) close(in_);
  if (out_ >= 0) close(out_);
  if (pid_ > 0 && !reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

bool ChildProcess::write_line(const std::string& line) {
  if (in_ < 0) return false;
  const std::string text = line + "\n";
  // A child that has gone would raise SIGPIPE: MSG_NOSIGNAL is for sockets, so block it here.
  sigset_t pipe_signal, old;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &old);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(in_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  timespec now{};
  while (sigtimedwait(&pipe_signal, nullptr, &now) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return written == text.size();
}

void ChildProcess::close_stdin() {
  if (in_ >= 0) close(in_);
  in_ = -1;
}

std::optional<std::string> ChildProcess::read_line(double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    if (const auto eol = pending_.find('\n'); eol != std::string::npos) {
      std::string line = pending_.substr(0, eol);
      pending_.erase(0, eol + 1);
      return line;
    }
    if (out_ < 0) return std::nullopt;
    const auto left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return std::nullopt;
    pollfd fd{out_, POLLIN, 0};
    const int ready = poll(&fd, 1, static_cast<int>(left * 1000) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buffer[4096];
    const ssize_t n = read(out_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(out_);
      out_ = -1;
      continue;
    }
    pending_.append(buffer, static_cast<std::size_t>(n));
  }
}

int ChildProcess::wait(double timeout_s) {
  if (reaped_) return status_;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    const pid_t done = waitpid(pid_, &status_, WNOHANG);
    if (done == pid_) break;
    if (done < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid_, SIGKILL);
      while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  reaped_ = true;
  return status_;
}

}  // namespace gpubench
