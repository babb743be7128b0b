#include "harness/run/supervisor.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "harness/report/exit_codes.h"
#include "harness/run/runner.h"
#include "harness/system/capture.h"

namespace gpubench {
namespace {

// A worker that has not started its first benchmark by then is stuck in start-up (driver).
constexpr double kWorkerStartupTimeoutS = 120;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

class PipeSink : public ResultSink {
 public:
  explicit PipeSink(int fd) : fd_(fd) {}
  void started(const std::string& name, int repetition) override {
    send({{"event", "start"}, {"name", name}, {"repetition", repetition}});
  }
  void finished(const BenchResult& result) override {
    send({{"event", "result"}, {"result", to_json(result)}});
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

class ObserverSink : public ResultSink {
 public:
  ObserverSink(const RunObserver& observer, std::vector<BenchResult>& results)
      : observer_(observer), results_(results) {}
  void started(const std::string& name, int) override { observer_.started(name); }
  void finished(const BenchResult& result) override {
    results_.push_back(result);
    observer_.finished(result);
  }

 private:
  const RunObserver& observer_;
  std::vector<BenchResult>& results_;
};

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return std::string("worker killed by signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "worker exited with code " + std::to_string(WEXITSTATUS(status));
}

// One worker process running some of one family's instances.
class Worker {
 public:
  Worker(const RunPlan& plan, const std::string& family, const std::vector<std::string>& names) {
    job_path_ = (std::filesystem::temp_directory_path() /
                 ("gpubench-job-" + std::to_string(getpid()) + "-" + std::to_string(counter_++) + ".json"))
                    .string();
    const nlohmann::json job = {{"family", family},
                                {"names", names},
                                {"settings", settings_to_json(plan.settings)},
                                {"devices", plan.expand.devices},
                                {"quick", plan.expand.quick},
                                {"axis_overrides", plan.expand.axis_overrides}};
    std::ofstream(job_path_) << job.dump();
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe: " + std::string(strerror(errno)));
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork: " + std::string(strerror(errno)));
    if (pid_ == 0) {
      setpgid(0, 0);  // its own group, so that a kill takes anything it started too
      close(fds[0]);
      const std::string fd = std::to_string(fds[1]);
      execl("/proc/self/exe", "gpubench", "--worker", job_path_.c_str(), "--worker-fd", fd.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[1]);
    fd_ = fds[0];
  }
  ~Worker() {
    if (fd_ >= 0) close(fd_);
    if (pid_ > 0 && !reaped_) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    std::filesystem::remove(job_path_);
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Waits up to `timeout_s` for complete lines; returns false at end of stream.
  bool read_lines(double timeout_s, std::vector<std::string>& lines) {
    pollfd p{fd_, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(timeout_s * 1000));
    if (ready <= 0) return true;
    char buffer[65536];
    const ssize_t n = read(fd_, buffer, sizeof buffer);
    if (n <= 0) return false;
    pending_.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t eol; (eol = pending_.find('\n')) != std::string::npos;) {
      lines.push_back(pending_.substr(0, eol));
      pending_.erase(0, eol + 1);
    }
    return true;
  }
  void kill_group() { kill(-pid_, SIGKILL); }
  int wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    reaped_ = true;
    return status;
  }

 private:
  static inline int counter_ = 0;
  std::string job_path_;
  pid_t pid_ = -1;
  int fd_ = -1;
  bool reaped_ = false;
  std::string pending_;
};

// Runs one family's instances, in as many workers as faults require.
void run_family_isolated(const RunPlan& plan, const std::vector<const Instance*>& instances,
                         const RunObserver& observer, std::vector<BenchResult>& results) {
  const int repetitions = plan.settings.repetitions;
  std::map<std::string, const Instance*> by_name;
  std::vector<std::string> remaining;
  for (const Instance* instance : instances) {
    by_name[instance->name] = instance;
    remaining.push_back(instance->name);
  }
  std::map<std::string, int> done_repetitions;
  auto record = [&](BenchResult result) {
    observer.finished(result);
    results.push_back(std::move(result));
  };
  while (!remaining.empty()) {
    Worker worker(plan, instances.front()->family->name(), remaining);
    std::string current;
    int current_repetition = 0;
    double current_since = now_s();
    bool started_any = false, timed_out = false;
    std::vector<std::string> lines;
    while (true) {
      lines.clear();
      const bool open = worker.read_lines(0.1, lines);
      for (const auto& line : lines) {
        const auto message = nlohmann::json::parse(line, nullptr, false);
        if (message.is_discarded()) continue;
        if (message.value("event", "") == "start") {
          current = message.value("name", "");
          current_repetition = message.value("repetition", 0);
          current_since = now_s();
          started_any = true;
          observer.started(current);
        } else if (message.value("event", "") == "result") {
          BenchResult result;
          try {
            result = result_from_json(message.at("result"));
          } catch (const nlohmann::json::exception& error) {
            // Cannot happen between matching builds; if it does, the benchmark still fails visibly.
            if (current.empty()) continue;
            result = unrun_result(*by_name[current], Status::kFailed,
                                  std::string("unreadable result from worker: ") + error.what(),
                                  current_repetition, repetitions);
          }
          ++done_repetitions[result.name];
          current.clear();
          record(std::move(result));
        }
      }
      if (!open) break;
      const double limit = current.empty() ? kWorkerStartupTimeoutS : plan.settings.timeout_s;
      if (now_s() - current_since > limit) {
        worker.kill_group();
        timed_out = true;
        break;
      }
    }
    const int status = worker.wait();
    std::set<std::string> finished;
    for (const auto& name : remaining)
      if (done_repetitions[name] >= repetitions) finished.insert(name);
    if (!current.empty()) {
      const Instance& instance = *by_name[current];
      if (timed_out)
        record(unrun_result(instance, Status::kTimeout,
                            "no result within " + std::to_string(static_cast<int>(plan.settings.timeout_s)) +
                                " s; worker process killed",
                            current_repetition, repetitions));
      else
        record(unrun_result(instance, Status::kFailed, describe_exit(status), current_repetition, repetitions));
      finished.insert(current);
    } else if (!started_any || timed_out) {
      // Nothing ran (start-up failed or hung): retrying would fail the same way.
      const std::string reason = timed_out ? "worker start-up hung; killed" : describe_exit(status);
      for (const auto& name : remaining)
        if (!finished.count(name)) record(unrun_result(*by_name[name], Status::kFailed, reason, 0, repetitions));
      return;
    }
    std::vector<std::string> next;
    for (const auto& name : remaining)
      if (!finished.count(name)) next.push_back(name);
    remaining = std::move(next);
  }
}

}  // namespace

nlohmann::json settings_to_json(const RunSettings& s) {
  return {{"min_samples", s.stop.min_samples}, {"max_samples", s.stop.max_samples},
          {"min_time_s", s.stop.min_time_s},   {"max_noise_pct", s.stop.max_noise_pct},
          {"max_time_s", s.stop.max_time_s},   {"warmup_s", s.warmup_s},
          {"batch_below_s", s.batch_below_s},  {"batch_target_s", s.batch_target_s},
          {"repetitions", s.repetitions},      {"timeout_s", s.timeout_s},
          {"quick", s.quick},                  {"devices", s.devices}};
}

RunSettings settings_from_json(const nlohmann::json& j) {
  RunSettings s;
  s.stop.min_samples = j.at("min_samples");
  s.stop.max_samples = j.at("max_samples");
  s.stop.min_time_s = j.at("min_time_s");
  s.stop.max_noise_pct = j.at("max_noise_pct");
  s.stop.max_time_s = j.at("max_time_s");
  s.warmup_s = j.at("warmup_s");
  s.batch_below_s = j.at("batch_below_s");
  s.batch_target_s = j.at("batch_target_s");
  s.repetitions = j.at("repetitions");
  s.timeout_s = j.at("timeout_s");
  s.quick = j.at("quick");
  s.devices = j.at("devices").get<std::vector<int>>();
  return s;
}

std::vector<BenchResult> run_plan(const RunPlan& plan, const Context& context, bool isolate,
                                  const RunObserver& observer) {
  std::vector<BenchResult> results;
  // Families in first-appearance order; skipped-before-running instances need no worker.
  std::vector<std::pair<const Family*, std::vector<const Instance*>>> groups;
  for (const Instance& instance : plan.instances) {
    if (!instance.skip_reason.empty()) {
      BenchResult skipped = unrun_result(instance, Status::kSkipped, instance.skip_reason);
      observer.finished(skipped);
      results.push_back(std::move(skipped));
      continue;
    }
    if (groups.empty() || groups.back().first != instance.family) groups.push_back({instance.family, {}});
    groups.back().second.push_back(&instance);
  }
  for (const auto& [family, instances] : groups) {
    if (isolate) {
      run_family_isolated(plan, instances, observer, results);
      continue;
    }
    ObserverSink sink(observer, results);
    if (!run_in_process(instances, plan.settings, context, sink)) {
      for (const Instance* instance : instances) {
        bool seen = false;
        for (const auto& r : results) seen = seen || r.name == instance->name;
        if (!seen) sink.finished(unrun_result(*instance, Status::kFailed,
                                              "not run: an earlier CUDA error poisoned the context (--no-isolate)"));
      }
    }
  }
  return results;
}

int worker_main(const std::string& job_path, int result_fd) {
  std::ifstream in(job_path);
  const nlohmann::json job = nlohmann::json::parse(in);
  const Family* family = find_family(job.at("family").get<std::string>());
  if (!family) return kExitBadInput;
  ExpandOptions expand;
  expand.devices = job.at("devices").get<std::vector<int>>();
  expand.quick = job.at("quick");
  expand.axis_overrides = job.at("axis_overrides");
  const RunSettings settings = settings_from_json(job.at("settings"));
  const std::vector<Instance> all = family->expand(expand);
  std::vector<const Instance*> selected;
  for (const auto& name : job.at("names")) {
    for (const auto& instance : all)
      if (instance.name == name.get<std::string>()) selected.push_back(&instance);
  }
  const Context context = capture_context();
  PipeSink sink(result_fd);
  run_in_process(selected, settings, context, sink);
  return kExitOk;
}

}  // namespace gpubench
