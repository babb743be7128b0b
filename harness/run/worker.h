#pragma once
// Worker processes. The parent starts gpubench again as `gpubench --worker JOB --worker-fd N`:
// a process in its own group (a kill takes whatever it started too) that dies with its parent
// (PR_SET_PDEATHSIG), runs the job's instances and reports each start and result as one JSON
// line down the pipe.
#include <string>
#include <vector>

#include "harness/run/worker_job.h"

namespace gpubench {

// The parent's handle on one worker.
class WorkerProcess {
 public:
  explicit WorkerProcess(const WorkerJob& job);
  ~WorkerProcess();  // kills the group if it was not reaped
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Waits up to `timeout_s` for complete lines, returning early when `interrupt_fd` becomes
  // readable. Returns false at the end of the worker's stream.
  bool read_lines(double timeout_s, int interrupt_fd, std::vector<std::string>& lines);
  void kill_group();
  // Reaps the worker; its wait status.
  int wait();

 private:
  std::string job_path_;
  int pid_ = -1;
  int fd_ = -1;
  bool reaped_ = false;
  std::string pending_;
};

// What a wait status says, for the benchmark that was running: "worker killed by signal 11
// (Segmentation fault)", "worker exited with code 1".
std::string describe_exit(int status);

// Entry point of a worker. Returns the exit code.
int worker_main(const std::string& job_path, int result_fd);

}  // namespace gpubench
