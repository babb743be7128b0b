// Numeric options of every command (harness/cli/number_options.h): NaN, the infinities, text
// that is no number and values outside the option's range are refused as the command line is
// parsed, exit 2 with one line naming the option, before any file is read.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/model/number_rules.h"
#include "tests/cli_support.h"

namespace gpubench {
namespace {

using testing::cli::expect_usage_error;
using testing::run_gpubench;

TEST(NumberRules, EveryRuleRefusesNanAndInfinities) {
  for (const double bad : {std::nan(""), double(INFINITY), -double(INFINITY)}) {
    EXPECT_TRUE(positive_number_problem(bad));
    EXPECT_TRUE(non_negative_number_problem(bad));
    EXPECT_TRUE(number_range_problem(bad, 0, 1000));
    EXPECT_TRUE(number_range_problem(bad, -INFINITY, INFINITY));
  }
  EXPECT_FALSE(number_range_problem(0, 0, 1000));
  EXPECT_TRUE(number_range_problem(0, 0, 100, true));
  EXPECT_TRUE(number_range_problem(100, 0, 100, true));
  EXPECT_EQ(*number_range_problem(-1, 0, 1000), "expected a number from 0 to 1000");
  EXPECT_EQ(*number_range_problem(0, 0, 100, true), "expected a number above 0 and below 100");
  EXPECT_EQ(*count_range_problem(-1, 0, 100), "expected an integer from 0 to 100");
  EXPECT_FALSE(positive_count_problem(1));
  EXPECT_TRUE(positive_count_problem(0));
}

TEST(NumberOptions, EveryCommandRefusesBadNumbersNamingTheOption) {
  const std::string files = " base.json new.json";
  const std::pair<std::string, std::string> cases[] = {
      {"compare --threshold nan" + files, "--threshold: expected a number from 0 to 1000 (got nan)"},
      {"compare --threshold inf" + files, "--threshold: expected a number from 0 to 1000 (got inf)"},
      {"compare --threshold -1" + files, "--threshold: expected a number from 0 to 1000 (got -1)"},
      {"compare --threshold 5pct" + files, "--threshold: expected a number from 0 to 1000 (got 5pct)"},
      {"compare --fleet --threshold NaN" + files, "--threshold: expected a number from 0 to 1000 (got NaN)"},
      {"check --baseline b.json --retries nan run.json", "--retries: expected an integer from 0 to 100 (got nan)"},
      {"check --baseline b.json --retries -1 run.json", "--retries: expected an integer from 0 to 100 (got -1)"},
      {"check --baseline b.json --gpus 0 run.json", "--gpus: expected an integer from 1 to 1024 (got 0)"},
      {"check --baseline b.json --gpus 1e3 run.json", "--gpus: expected an integer from 1 to 1024 (got 1e3)"},
      {"baseline --tolerance nan run.json", "--tolerance: expected a number above 0 and below 100 (got nan)"},
      {"baseline --tolerance 0 run.json", "--tolerance: expected a number above 0 and below 100 (got 0)"},
      {"baseline --tolerance 100 run.json", "--tolerance: expected a number above 0 and below 100 (got 100)"},
      {"baseline --tolerance -inf run.json", "--tolerance: expected a number above 0 and below 100 (got -inf)"},
      // The run options, in a build with CUDA or without one.
      {"--suite memory --min-time nan", "--min-time: expected a positive number (got nan)"},
      {"--suite memory --timeout 0", "--timeout: expected a positive number (got 0)"},
      {"--suite memory --max-noise inf", "--max-noise: expected a positive number (got inf)"},
      {"--suite memory --cooldown-max-wait -1", "--cooldown-max-wait: expected a number >= 0 (got -1)"},
      {"--suite memory --repetitions 0", "--repetitions: expected a positive integer (at most 1000000) (got 0)"},
      {"--suite memory --telemetry-interval nan",
       "--telemetry-interval: expected an integer from 0 to 60000 (got nan)"},
  };
  for (const auto& [args, message] : cases) {
    SCOPED_TRACE(args);
    expect_usage_error(run_gpubench(args), message);
  }
}

}  // namespace
}  // namespace gpubench
