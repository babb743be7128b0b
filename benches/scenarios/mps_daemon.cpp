#include "benches/scenarios/mps_daemon.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "harness/core/child_process.h"

namespace gpubench::scenarios {
namespace {

constexpr double kStartTimeoutS = 10, kStopTimeoutS = 10;

std::string find_control_program() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string candidate = dirs.substr(start, end - start) + "/nvidia-cuda-mps-control";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

bool wait_for(const std::function<bool()>& condition, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

std::map<std::string, std::string> daemon_environment(const std::string& pipe, const std::string& log) {
  return {{"CUDA_MPS_PIPE_DIRECTORY", pipe}, {"CUDA_MPS_LOG_DIRECTORY", log}};
}

}  // namespace

std::string default_mps_pipe_directory() {
  const char* set = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  return set && *set ? set : "/tmp/nvidia-mps";
}

bool mps_daemon_listens(const std::string& pipe_directory) {
  struct stat info {};
  return stat((pipe_directory + "/control").c_str(), &info) == 0 && S_ISSOCK(info.st_mode);
}

PrivateMpsDaemon::PrivateMpsDaemon() {
  const std::string program = find_control_program();
  if (program.empty()) throw std::runtime_error("nvidia-cuda-mps-control is not on the PATH");
  char pattern[] = "/tmp/gpubench-mps-XXXXXX";
  if (!mkdtemp(pattern)) throw std::runtime_error("cannot make a directory for the MPS daemon's pipe and log");
  root_ = pattern;
  pipe_ = root_ + "/pipe";
  log_ = root_ + "/log";
  std::filesystem::create_directories(pipe_);
  std::filesystem::create_directories(log_);
  ChildProcess start(program, {"-d"}, daemon_environment(pipe_, log_));
  start.close_stdin();
  const int status = start.wait(kStartTimeoutS);  // -d forks the daemon and returns
  if (status != 0 || !wait_for([&] { return mps_daemon_listens(pipe_); }, kStartTimeoutS)) {
    stop();
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
    throw std::runtime_error("the private MPS control daemon did not start (nvidia-cuda-mps-control -d, status " +
                             std::to_string(status) + "; its log in " + log_ + " is removed)");
  }
}

PrivateMpsDaemon::~PrivateMpsDaemon() {
  stop();
  std::error_code ignored;
  if (stopped_) std::filesystem::remove_all(root_, ignored);  // else left for whoever finds the daemon
}

bool PrivateMpsDaemon::stop() {
  if (stopped_ || root_.empty()) return stopped_;
  const std::string program = find_control_program();
  if (!program.empty() && mps_daemon_listens(pipe_)) {
    ChildProcess quit(program, {}, daemon_environment(pipe_, log_));
    quit.write_line("quit");
    quit.close_stdin();
    quit.wait(kStopTimeoutS);
  }
  stopped_ = wait_for([&] { return !mps_daemon_listens(pipe_); }, kStopTimeoutS);
  return stopped_;
}

std::map<std::string, std::string> PrivateMpsDaemon::client_environment() const {
  return daemon_environment(pipe_, log_);
}

std::map<std::string, std::string> without_mps_environment(const std::string& empty_directory) {
  return {{"CUDA_MPS_PIPE_DIRECTORY", empty_directory}};
}

}  // namespace gpubench::scenarios
