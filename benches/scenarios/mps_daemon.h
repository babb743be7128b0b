#pragma once
// The CUDA MPS control daemon as scenarios/many_processes uses it: found where a node runs one
// (its pipe directory's control socket), or started for the family alone with its own pipe and
// log directories and stopped afterwards. A node's own daemon is never stopped or reconfigured.
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace gpubench::scenarios {

// The pipe directory clients of a running daemon use: CUDA_MPS_PIPE_DIRECTORY, else the
// default /tmp/nvidia-mps.
std::string default_mps_pipe_directory();
// Whether a control daemon listens in `pipe_directory`: its `control` socket accepts a
// connection (a socket file that a dead daemon left behind does not).
bool mps_daemon_listens(const std::string& pipe_directory);
// The PIDs of the MPS servers the daemon in `pipe_directory` runs (`get_server_list`): a
// server exists while clients use MPS, so an empty list while they run means they do not.
std::vector<std::string> mps_server_list(const std::string& pipe_directory);

// A private daemon: started in the constructor (throws std::runtime_error with the reason when
// it cannot be: no nvidia-cuda-mps-control, or no running daemon (the PID it writes beside its
// socket) within a few seconds, with the end of its log), told to quit in the destructor, which
// waits for that process to end.
class PrivateMpsDaemon {
 public:
  PrivateMpsDaemon();
  ~PrivateMpsDaemon();
  PrivateMpsDaemon(const PrivateMpsDaemon&) = delete;
  PrivateMpsDaemon& operator=(const PrivateMpsDaemon&) = delete;

  // What a client process needs in its environment to use this daemon.
  std::map<std::string, std::string> client_environment() const;
  // Whether the daemon was seen to go (its process ended) after it was told to quit.
  bool stopped() const { return stopped_; }
  const std::string& pipe_directory() const { return pipe_; }
  // Stops it now (idempotent); whether it went.
  bool stop();
  // The last lines of the daemon's control.log, for a message that says why.
  std::string log_tail() const;

 private:
  std::string root_, pipe_, log_;
  pid_t pid_ = 0;  // from the PID file the daemon writes in its pipe directory
  bool stopped_ = false;
};

// The environment of a client that must not use MPS although a daemon runs: an empty pipe
// directory of its own.
std::map<std::string, std::string> without_mps_environment(const std::string& empty_directory);

}  // namespace gpubench::scenarios
