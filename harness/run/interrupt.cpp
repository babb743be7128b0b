#include "harness/run/interrupt.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "harness/model/exit_codes.h"

namespace gpubench {
namespace {

volatile sig_atomic_t g_signal = 0;
int g_pipe[2] = {-1, -1};
struct sigaction g_previous_int, g_previous_term;

void on_signal(int sig) {
  if (g_signal != 0) {
    // Asked twice: the user does not want to wait for the orderly stop.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    return;
  }
  g_signal = sig;
  const int saved_errno = errno;
  const char byte = 1;
  [[maybe_unused]] const ssize_t ignored = ::write(g_pipe[1], &byte, 1);
  errno = saved_errno;
}

sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

InterruptCatcher::InterruptCatcher() {
  if (g_pipe[0] >= 0) throw std::logic_error("InterruptCatcher: one at a time");
  if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  g_signal = 0;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
}

InterruptCatcher::~InterruptCatcher() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
  close(g_pipe[0]);
  close(g_pipe[1]);
  g_pipe[0] = g_pipe[1] = -1;
}

int InterruptCatcher::signal() const { return g_signal; }

std::string InterruptCatcher::signal_name() const {
  switch (g_signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "";
  }
}

int InterruptCatcher::fd() const { return g_pipe[0]; }

int interrupted_exit_code(const std::string& signal_name) {
  return signal_name == "SIGTERM" ? kExitInterruptedTerm : kExitInterruptedInt;
}

SignalsBlockedForFork::SignalsBlockedForFork() {
  const sigset_t set = interrupt_signals();
  sigprocmask(SIG_BLOCK, &set, nullptr);
}

SignalsBlockedForFork::~SignalsBlockedForFork() {
  const sigset_t set = interrupt_signals();
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

void SignalsBlockedForFork::reset_in_child() {
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  const sigset_t set = interrupt_signals();
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace gpubench
