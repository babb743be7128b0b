#include "harness/run/worker.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "harness/model/exit_codes.h"
#include "harness/run/interrupt.h"
#include "harness/run/runner.h"

namespace gpubench {
namespace {

class PipeSink : public ResultSink {
 public:
  explicit PipeSink(int fd) : fd_(fd) {}
  void started(const std::string& name, int repetition) override {
    send({{"event", "start"}, {"name", name}, {"repetition", repetition}});
  }
  void finished(const BenchResult& result) override {
    nlohmann::json trace = nlohmann::json::array();
    for (const TelemetrySample& sample : result.trace) trace.push_back(to_json(sample));
    send({{"event", "result"}, {"result", to_json(result)}, {"trace", trace}});
  }

 private:
  void send(const nlohmann::json& message) {
    const std::string line = message.dump() + "\n";
    std::size_t written = 0;
    while (written < line.size()) {
      const ssize_t n = write(fd_, line.data() + written, line.size() - written);
      if (n <= 0) _exit(kExitFailure);  // the parent is gone: nobody to report to
      written += static_cast<std::size_t>(n);
    }
  }
  int fd_;
};

std::string write_job_file(const WorkerJob& job) {
  static int counter = 0;
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("gpubench-job-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".json"))
                               .string();
  std::ofstream out(path);
  out << job_to_json(job).dump();
  if (!out.flush()) throw std::runtime_error(path + ": cannot write the worker's job");
  return path;
}

// In the child between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_worker(pid_t parent, int result_fd, const char* job_path) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // the parent died before the death signal was armed
  SignalsBlockedForFork::reset_in_child();
  char fd[16];
  std::snprintf(fd, sizeof fd, "%d", result_fd);
  execl("/proc/self/exe", "gpubench", "--worker", job_path, "--worker-fd", fd, static_cast<char*>(nullptr));
  _exit(127);
}

}  // namespace

WorkerProcess::WorkerProcess(const WorkerJob& job) : job_path_(write_job_file(job)) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe: " + std::string(strerror(errno)));
  const pid_t parent = getpid();
  {
    SignalsBlockedForFork blocked;
    pid_ = fork();
    if (pid_ == 0) {
      close(fds[0]);
      // The result end must survive exec: only it loses close-on-exec.
      fcntl(fds[1], F_SETFD, 0);
      exec_worker(parent, fds[1], job_path_.c_str());
    }
    if (pid_ > 0) setpgid(pid_, pid_);  // also here, so that kill_group never misses the group
  }
  close(fds[1]);
  if (pid_ < 0) {
    close(fds[0]);
    std::filesystem::remove(job_path_);
    throw std::runtime_error("fork: " + std::string(strerror(errno)));
  }
  fd_ = fds[0];
}

WorkerProcess::~WorkerProcess() {
  if (fd_ >= 0) close(fd_);
  if (pid_ > 0 && !reaped_) {
    kill(-pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::error_code ignored;  // the worker removes it once read
  std::filesystem::remove(job_path_, ignored);
}

bool WorkerProcess::read_lines(double timeout_s, int interrupt_fd, std::vector<std::string>& lines) {
  pollfd fds[2] = {{fd_, POLLIN, 0}, {interrupt_fd, POLLIN, 0}};
  const int ready = poll(fds, interrupt_fd >= 0 ? 2 : 1, static_cast<int>(timeout_s * 1000));
  if (ready <= 0 || !(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) return true;
  char buffer[65536];
  const ssize_t n = read(fd_, buffer, sizeof buffer);
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return false;
  pending_.append(buffer, static_cast<std::size_t>(n));
  for (std::size_t eol; (eol = pending_.find('\n')) != std::string::npos;) {
    lines.push_back(pending_.substr(0, eol));
    pending_.erase(0, eol + 1);
  }
  return true;
}

void WorkerProcess::kill_group() { kill(-pid_, SIGKILL); }

int WorkerProcess::wait() {
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  return status;
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return std::string("worker killed by signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "worker exited with code " + std::to_string(WEXITSTATUS(status));
}

int worker_main(const std::string& job_path, int result_fd) {
  std::ifstream in(job_path);
  const nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
  in.close();
  std::error_code ignored;
  std::filesystem::remove(job_path, ignored);
  if (json.is_discarded()) {
    std::fprintf(stderr, "gpubench worker: %s: unreadable job\n", job_path.c_str());
    return kExitBadInput;
  }
  WorkerJob job;
  try {
    job = job_from_json(json);
  } catch (const std::runtime_error& error) {
    std::fprintf(stderr, "gpubench worker: %s\n", error.what());
    return kExitBadInput;
  }
  std::vector<const Instance*> instances;
  for (const auto& instance : job.instances) instances.push_back(&instance);
  PipeSink sink(result_fd);
  run_in_process(instances, job.settings, job.context, sink);
  return kExitOk;
}

}  // namespace gpubench
