// A gpubench built with -DGPUBENCH_CUDA=OFF: every command that would measure exits 2 (a problem
// of the set-up, not of a GPU: exit 3 would send an operator to the node) with one message,
// before it reads anything; the commands that read result files work.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_support.h"

namespace gpubench {
namespace {

using testing::describe;
using testing::run_gpubench;

const std::string kRepo = GPUBENCH_SOURCE_DIR;
const std::string kMessage = "gpubench: this gpubench was built without CUDA; use a CUDA build to measure\n";
const std::string kBaseline = kRepo + "/configs/baselines/h200.json";
const std::string kRun = kRepo + "/results/h200x2/2026-11-29-acceptance.json";

class NoCudaBuild : public ::testing::Test {
 protected:
  void SetUp() override {
    if (GPUBENCH_HAVE_CUDA) GTEST_SKIP() << "a CUDA build runs benchmarks";
  }
};

TEST_F(NoCudaBuild, EveryCommandThatMeasuresExits2SayingSo) {
  for (const std::string& args : std::vector<std::string>{"", "--suite memory", "--suite all --quick", "--config configs/acceptance/h200.json",
                                 "list", "list --suite gemm", "info",
                                 // without a RUN.json check would run the baseline's benchmarks
                                 "check --baseline " + kBaseline,
                                 // --retries re-runs failing benchmarks; a missing baseline is not read first
                                 "check --baseline " + kBaseline + " --retries 1 " + kRun,
                                 "check --baseline /nonexistent.json --retries 2 " + kRun}) {
    const auto r = run_gpubench(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << describe(r);
    EXPECT_EQ(r.err, kMessage) << args;
    EXPECT_EQ(r.out, "") << args;
  }
}

TEST_F(NoCudaBuild, TheCommandsThatReadResultFilesWork) {
  const auto check = run_gpubench("check --baseline " + kBaseline + " " + kRun);
  EXPECT_NE(check.out.find("check: "), std::string::npos) << describe(check);
  EXPECT_TRUE(check.exit_code == 0 || check.exit_code == 1) << describe(check);
  const auto retries_0 = run_gpubench("check --baseline " + kBaseline + " --retries 0 " + kRun);
  EXPECT_EQ(retries_0.exit_code, check.exit_code) << describe(retries_0);
  const auto compare = run_gpubench("compare " + kRun + " " + kRun);
  EXPECT_EQ(compare.exit_code, 0) << describe(compare);
  EXPECT_EQ(run_gpubench("--version").exit_code, 0);
}

}  // namespace
}  // namespace gpubench
