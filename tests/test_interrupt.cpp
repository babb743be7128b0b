// SIGINT, SIGTERM and SIGKILL of a running gpubench, through the built binary started in its own
// session (fork, setsid, exec): the run stops with 130/143 after writing what finished and the
// benchmark in progress as interrupted, and no worker outlives it. The CPU-only selftest family
// cpu_sleep gives the signal something to interrupt.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace gpubench {
namespace {

using gpubench::testing::read_file;
using gpubench::testing::temp_dir;
using json = nlohmann::json;

// gpubench with `args`, in a session of its own, stdout and stderr into files.
class RunningGpubench {
 public:
  RunningGpubench(const std::vector<std::string>& args, const std::string& dir) : dir_(dir) {
    const char* exe = std::getenv("GPUBENCH_EXE");
    std::vector<std::string> argv_text = {exe ? exe : GPUBENCH_EXE};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& arg : argv_text) argv.push_back(arg.data());
    argv.push_back(nullptr);
    const std::string out = dir + "/stdout", err = dir + "/stderr";
    pid_ = fork();
    if (pid_ == 0) {
      setsid();
      dup2(open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), STDOUT_FILENO);
      dup2(open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), STDERR_FILENO);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  ~RunningGpubench() {
    if (!reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  void signal(int sig) const { kill(pid_, sig); }
  // The exit code (128 + signal when killed), or -1 when it has not ended within `limit_s`.
  int wait(double limit_s) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    reaped_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  std::string stderr_text() const { return read_file(dir_ + "/stderr"); }
  // Processes still in the session gpubench led (its workers have their own groups, not sessions).
  std::vector<int> session_members() const {
    std::vector<int> members;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      const std::string stat = read_file(entry.path().string() + "/stat");
      const auto close = stat.rfind(')');
      if (close == std::string::npos) continue;
      std::istringstream fields(stat.substr(close + 2));
      std::string state;
      int ppid = 0, pgrp = 0, session = 0;
      fields >> state >> ppid >> pgrp >> session;
      if (session == pid_ && state != "Z") members.push_back(std::stoi(name));
    }
    return members;
  }

 private:
  std::string dir_;
  pid_t pid_ = -1;
  bool reaped_ = false;
};

void sleep_s(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }

json read_document(const std::string& path) {
  const json doc = json::parse(read_file(path), nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << path << " is not JSON:\n" << read_file(path);
  return doc;
}

// A worker is sleeping through a 60 s benchmark when the signal comes.
void expect_interrupted_while_isolated(int sig, int exit_code, const std::string& name) {
  const std::string dir = temp_dir();
  const std::string out = dir + "/run.json";
  RunningGpubench run({"--suite", "selftest", "--filter", "cpu_sleep/seconds:60", "--out", out}, dir);
  sleep_s(2);
  EXPECT_GE(run.session_members().size(), 2u) << "no worker was running";
  run.signal(sig);
  EXPECT_EQ(run.wait(20), exit_code) << run.stderr_text();
  sleep_s(2);
  EXPECT_TRUE(run.session_members().empty()) << "a worker outlived gpubench";
  const json doc = read_document(out);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("context").at("gpubench").at("interrupted"), name);
  EXPECT_EQ(doc.at("context").at("gpubench").at("complete"), false);
  ASSERT_EQ(doc.at("benchmarks").size(), 1u) << doc.dump(2);
  const auto& entry = doc.at("benchmarks")[0];
  EXPECT_EQ(entry.at("name"), "selftest/cpu_sleep/seconds:60/copy:a");
  EXPECT_EQ(entry.at("gpubench").at("status"), "interrupted");
  EXPECT_NE(entry.at("gpubench").at("error").get<std::string>().find(name), std::string::npos);
  EXPECT_NE(run.stderr_text().find("interrupted by " + name), std::string::npos) << run.stderr_text();
}

TEST(Interrupt, SigintStopsTheWorkerAndWritesWhatRan) { expect_interrupted_while_isolated(SIGINT, 130, "SIGINT"); }

TEST(Interrupt, SigtermStopsTheWorkerAndWritesWhatRan) {
  expect_interrupted_while_isolated(SIGTERM, 143, "SIGTERM");
}

TEST(Interrupt, WorkersDieWithAKilledParent) {
  const std::string dir = temp_dir();
  RunningGpubench run({"--suite", "selftest", "--filter", "cpu_sleep/seconds:60"}, dir);
  sleep_s(2);
  EXPECT_GE(run.session_members().size(), 2u) << "no worker was running";
  run.signal(SIGKILL);
  EXPECT_EQ(run.wait(20), 128 + SIGKILL);
  sleep_s(2);
  EXPECT_TRUE(run.session_members().empty()) << "a worker outlived its killed parent";
}

// --no-isolate: the benchmark in progress finishes, the run stops after it.
TEST(Interrupt, InProcessTheRunStopsAfterTheCurrentBenchmark) {
  const std::string dir = temp_dir();
  const std::string out = dir + "/run.json";
  RunningGpubench run({"--suite", "selftest", "--filter", "cpu_sleep/seconds:1/", "--no-isolate", "--out", out}, dir);
  sleep_s(1.5);
  run.signal(SIGINT);
  EXPECT_EQ(run.wait(20), 130) << run.stderr_text();
  const json doc = read_document(out);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("context").at("gpubench").at("interrupted"), "SIGINT");
  EXPECT_EQ(doc.at("context").at("gpubench").at("complete"), false);
  const auto& benchmarks = doc.at("benchmarks");
  EXPECT_LT(benchmarks.size(), 3u) << "the run went on after the signal: " << doc.dump(2);
  for (const auto& entry : benchmarks) EXPECT_EQ(entry.at("gpubench").at("status"), "ok") << entry.dump(2);
}

TEST(Interrupt, ACompleteRunSaysSo) {
  const std::string dir = temp_dir();
  const std::string out = dir + "/run.json";
  RunningGpubench run({"--suite", "selftest", "--filter", "cpu_faults/fault:none$", "--out", out}, dir);
  EXPECT_EQ(run.wait(60), 0) << run.stderr_text();
  const json doc = read_document(out);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("context").at("gpubench").at("complete"), true);
  EXPECT_TRUE(doc.at("context").at("gpubench").at("interrupted").is_null());
}

}  // namespace
}  // namespace gpubench
