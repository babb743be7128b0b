// The progress display on stderr: plain lines off a terminal (one as each family starts, one
// per failure), the rewritten line on a terminal, and the estimate of what remains, timed by a
// fake clock.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "harness/run/progress.h"

namespace gpubench {
namespace {

// What a ProgressDisplay wrote, read back from a temporary file.
class Captured {
 public:
  Captured() : file_(std::tmpfile()) {}
  ~Captured() { std::fclose(file_); }
  std::FILE* file() const { return file_; }
  std::string text() const {
    std::fflush(file_);
    std::rewind(file_);
    std::string text;
    for (int c; (c = std::fgetc(file_)) != EOF;) text += static_cast<char>(c);
    return text;
  }

 private:
  std::FILE* file_;
};

BenchResult result_of(const std::string& name, Status status = Status::kOk, const std::string& error = "") {
  BenchResult r;
  r.name = name;
  r.status = status;
  r.error = error;
  return r;
}

TEST(Progress, RemainingTimeIsTheMeanSoFarForEachBenchmarkLeft) {
  EXPECT_FALSE(remaining_seconds(10, 0, 4).has_value());
  EXPECT_DOUBLE_EQ(*remaining_seconds(10, 1, 4), 30);
  EXPECT_DOUBLE_EQ(*remaining_seconds(30, 3, 4), 10);
  EXPECT_DOUBLE_EQ(*remaining_seconds(40, 4, 4), 0);
  EXPECT_FALSE(remaining_seconds(40, 5, 4).has_value());
}

TEST(Progress, DurationsReadAsAPersonReadsThem) {
  EXPECT_EQ(duration_text(0.4), "0 s");
  EXPECT_EQ(duration_text(42), "42 s");
  EXPECT_EQ(duration_text(185), "3:05");
  EXPECT_EQ(duration_text(3729), "1:02:09");
}

TEST(Progress, KnownLengthsAreAddedAndKeptOutOfTheMean) {
  // 4 of 10 quick benchmarks took 8 s, plus a 20 s sustained load already done: 6 x 2 s + 40 s left.
  EXPECT_DOUBLE_EQ(*remaining_seconds(28, 4, 10, 20, 40), 52);
  EXPECT_DOUBLE_EQ(*remaining_seconds(28, 10, 10, 20, 40), 40);  // only the known ones left
  EXPECT_FALSE(remaining_seconds(20, 0, 3, 20, 40).has_value());  // no quick one timed yet
}

TEST(Progress, ALongBenchmarkAtTheEndIsInTheEstimate) {
  Captured out;
  double now = 0;
  {
    std::vector<PlannedRun> plan = {{"memory/stream/op:copy", {}}, {"memory/stream/op:triad", {}},
                                    {"gemm/sustained/seconds:20", 20.0}, {"gemm/sustained/seconds:20", 20.0}};
    ProgressDisplay progress(plan, out.file(), false, 80, [&] { return now; });
    progress.started("memory/stream/op:copy");
    now += 1;
    progress.finished(result_of("memory/stream/op:copy"));
    progress.started("memory/stream/op:triad");
    now += 1;
    progress.finished(result_of("memory/stream/op:triad"));
    progress.started("gemm/sustained/seconds:20");
    now += 21;
    progress.finished(result_of("gemm/sustained/seconds:20"));
    progress.started("gemm/sustained/seconds:20");
  }
  EXPECT_EQ(out.text(),
            "[1/4] memory/stream (0 s elapsed)\n"
            "[3/4] gemm/sustained (2 s elapsed, about 40 s left)\n");
}

TEST(Progress, RunSummaryCountsAndTimes) {
  EXPECT_EQ(run_summary(256, 28.44), "gpubench: 256 benchmarks in 28.4 s");
  EXPECT_EQ(run_summary(1, 0.24), "gpubench: 1 benchmark in 0.2 s");
  EXPECT_EQ(run_summary(40, 185.0), "gpubench: 40 benchmarks in 185.0 s (3:05)");
}

TEST(Progress, PlainLinesOffATerminal) {
  Captured out;
  double now = 100;
  {
    ProgressDisplay progress(4, out.file(), false, 80, [&] { return now; });
    progress.started("memory/stream/op:copy/gpu:gpu0");
    now += 10;
    progress.finished(result_of("memory/stream/op:copy/gpu:gpu0"));
    progress.started("memory/stream/op:triad/gpu:gpu0");  // same family: no line
    now += 10;
    progress.finished(result_of("memory/stream/op:triad/gpu:gpu0", Status::kFailed, "verification failed"));
    progress.started("launch/latency/kind:kernel/gpu:gpu0");
  }
  EXPECT_EQ(out.text(),
            "[1/4] memory/stream (0 s elapsed)\n"
            "memory/stream/op:triad/gpu:gpu0: failed: verification failed\n"
            "[3/4] launch/latency (20 s elapsed, about 20 s left)\n");
}

TEST(Progress, NamesAndErrorsAreWrittenEscaped) {
  Captured out;
  {
    ProgressDisplay progress(1, out.file(), false, 80, [] { return 0.0; });
    progress.started("memory/str\u202eeam/op:copy");
    progress.finished(result_of("memory/str\u202eeam/op:copy", Status::kFailed, "bad\x1b[2J"));
  }
  EXPECT_EQ(out.text(),
            "[1/1] memory/str\\u202eeam (0 s elapsed)\n"
            "memory/str\\u202eeam/op:copy: failed: bad\\x1b[2J\n");
}

TEST(Progress, OneRewrittenLineOnATerminal) {
  Captured out;
  double now = 0;
  {
    ProgressDisplay progress(3, out.file(), true, 60, [&] { return now; });
    progress.started("memory/stream/op:copy");
    now += 65;
    progress.finished(result_of("memory/stream/op:copy"));
    progress.started("memory/stream/op:triad/array_bytes:4294967296/gpu:gpu0/and/a/long/tail");
  }
  const std::string text = out.text();
  EXPECT_EQ(text.find('\n'), std::string::npos) << "the line was not rewritten in place: " << text;
  EXPECT_NE(text.find("\r\033[K[1/3] memory/stream/op:copy  0 s elapsed"), std::string::npos) << text;
  const std::size_t second = text.find("\r\033[K[2/3] ...");
  ASSERT_NE(second, std::string::npos) << "a long name is cut from the front: " << text;
  const std::string line = text.substr(second + 4, text.rfind("\r\033[K") - second - 4);
  EXPECT_LE(line.size(), 60u) << line;
  EXPECT_NE(line.find("1:05 elapsed, about 2:10 left"), std::string::npos) << line;
  EXPECT_EQ(text.substr(text.size() - 4), "\r\033[K") << "the line is cleared at the end";
}

}  // namespace
}  // namespace gpubench
