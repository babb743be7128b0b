#include "benches/scenarios/mps_daemon.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <thread>

#include "harness/core/child_process.h"

namespace gpubench::scenarios {
namespace {

constexpr double kStartTimeoutS = 10, kStopTimeoutS = 10, kQueryTimeoutS = 5;
// A daemon that fails at once can be caught between writing its PID and exiting: it has started
// only when it still runs this long after.
constexpr double kSettleS = 0.3;

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

// The control program as a client of the daemon in `pipe`: `command` on its stdin, what it
// answers until it exits.
std::vector<std::string> ask_daemon(const std::string& program, const std::string& pipe, const std::string& command) {
  ChildProcess client(program, {}, {{"CUDA_MPS_PIPE_DIRECTORY", pipe}});
  client.write_line(command);
  client.close_stdin();
  std::vector<std::string> answer;
  while (const auto line = client.read_line(kQueryTimeoutS)) answer.push_back(*line);
  client.wait(kQueryTimeoutS);
  return answer;
}

bool socket_file_exists(const std::string& pipe_directory) {
  struct stat info {};
  return stat((pipe_directory + "/control").c_str(), &info) == 0 && S_ISSOCK(info.st_mode);
}

// The daemon writes its PID beside its socket; 0 until it has.
pid_t daemon_pid(const std::string& pipe_directory) {
  std::ifstream in(pipe_directory + "/nvidia-cuda-mps-control.pid");
  long pid = 0;
  return in >> pid && pid > 0 ? static_cast<pid_t>(pid) : 0;
}

// Whether `pid` runs: a daemon that exited stays a zombie where nothing reaps it (a container
// whose first process is not an init), and a zombie is gone.
bool process_runs(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (pid <= 0 || !std::getline(in, stat)) return false;
  const std::size_t name_end = stat.rfind(')');
  return name_end != std::string::npos && name_end + 2 < stat.size() && stat[name_end + 2] != 'Z';
}

}  // namespace

std::string default_mps_pipe_directory() {
  const char* set = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  return set && *set ? set : "/tmp/nvidia-mps";
}

bool mps_daemon_listens(const std::string& pipe_directory) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string path = pipe_directory + "/control";
  if (path.size() >= sizeof address.sun_path) return false;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  // The socket's type is the daemon's choice: a connect of the wrong type fails with EPROTOTYPE.
  for (const int type : {SOCK_STREAM, SOCK_SEQPACKET, SOCK_DGRAM}) {
    const int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    const bool accepted = connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
    const int error = errno;
    close(fd);
    if (accepted) return true;
    if (error != EPROTOTYPE) return false;
  }
  return false;
}

std::vector<std::string> mps_server_list(const std::string& pipe_directory) {
  const std::string program = find_control_program();
  if (program.empty() || !socket_file_exists(pipe_directory)) return {};
  std::vector<std::string> pids;
  for (const std::string& line : ask_daemon(program, pipe_directory, "get_server_list"))
    if (!line.empty() && line.find_first_not_of("0123456789") == std::string::npos) pids.push_back(line);
  return pids;
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
  // -d forks the daemon and returns; the daemon must not keep our pipes as its stdin and stdout,
  // or it dies of SIGPIPE on its first word once we close them.
  ChildProcess start("/bin/sh", {"-c", "exec \"$0\" -d </dev/null >/dev/null", program},
                     daemon_environment(pipe_, log_));
  start.close_stdin();
  const int status = start.wait(kStartTimeoutS);
  const bool started = status == 0 && wait_for([&] {
    pid_ = daemon_pid(pipe_);
    return process_runs(pid_) && socket_file_exists(pipe_);
  }, kStartTimeoutS) && !wait_for([&] { return !process_runs(pid_); }, kSettleS);
  if (!started) {
    const std::string log = log_tail();
    stop();
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
    throw std::runtime_error("the private MPS control daemon did not start (nvidia-cuda-mps-control -d, status " +
                             std::to_string(status) + "; its log: " + (log.empty() ? "empty" : log) + ")");
  }
}

PrivateMpsDaemon::~PrivateMpsDaemon() {
  stop();
  std::error_code ignored;
  if (stopped_) std::filesystem::remove_all(root_, ignored);  // else left for whoever finds the daemon
}

bool PrivateMpsDaemon::stop() {
  if (stopped_ || root_.empty()) return stopped_;
  if (!pid_) pid_ = daemon_pid(pipe_);
  const std::string program = find_control_program();
  if (!program.empty() && socket_file_exists(pipe_) && (!pid_ || process_runs(pid_)))
    ask_daemon(program, pipe_, "quit");
  // Without a PID (a daemon that died before writing it) its socket is all there is to watch.
  stopped_ = wait_for([&] { return pid_ ? !process_runs(pid_) : !mps_daemon_listens(pipe_); }, kStopTimeoutS);
  return stopped_;
}

std::string PrivateMpsDaemon::log_tail() const {
  std::ifstream in(log_ + "/control.log");
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (last.size() > 4) last.pop_front();
  }
  std::string joined;
  for (const std::string& line : last) joined += (joined.empty() ? "" : " | ") + line;
  return joined;
}

std::map<std::string, std::string> PrivateMpsDaemon::client_environment() const {
  return daemon_environment(pipe_, log_);
}

std::map<std::string, std::string> without_mps_environment(const std::string& empty_directory) {
  return {{"CUDA_MPS_PIPE_DIRECTORY", empty_directory}};
}

}  // namespace gpubench::scenarios
