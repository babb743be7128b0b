// Every write of the commands that read result files checked, through the built binary: stdout
// on a full device (/dev/full) is never exit 0 and a failure found stands; an output file that
// cannot be written is refused before the work, and one that fails at the end (a full disk) is
// kept in a fallback file whose path is printed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <regex>
#include <string>

#include "tests/check_support.h"
#include "tests/cli_support.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using testing::CommandResult;
using testing::describe;
using testing::check::baseline_doc;
using testing::check::healthy_run;
using testing::check::kTriad;

// A run, a baseline it passes and one it fails, in a fresh directory.
struct Files {
  std::string dir = testing::temp_dir();
  std::string run = dir + "/run.json", pass = dir + "/pass.json", fail = dir + "/fail.json";
  Files() {
    testing::write_file(run, healthy_run().doc().dump());
    testing::write_file(pass, baseline_doc({{{"name", kTriad}, {"floor", 4000}}}).dump());
    testing::write_file(fail, baseline_doc({{{"name", kTriad}, {"floor", 5000}}}).dump());
  }
};

const char* kStdoutLost = "gpubench: stdout: cannot write: No space left on device (the output is cut short)";

bool has(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

TEST(Output, StdoutOnAFullDeviceIsNeverExitZero) {
  const Files f;
  for (const std::string& args : {"compare " + f.run + " " + f.run, "compare --fleet " + f.run + " " + f.run,
                                  "check --baseline " + f.pass + " " + f.run, "baseline " + f.run + " --tolerance 5",
                                  std::string("--help")}) {
    SCOPED_TRACE(args);
    ASSERT_EQ(testing::run_gpubench(args).exit_code, 0);  // each passes where stdout takes it
    const CommandResult r = testing::run_gpubench_to("/dev/full", args);
    EXPECT_EQ(r.exit_code, kExitCannotWrite) << describe(r);
    EXPECT_TRUE(has(r.err, kStdoutLost)) << describe(r);
  }
}

TEST(Output, AFailureFoundStandsWhenStdoutIsLost) {
  const Files f;
  const CommandResult r = testing::run_gpubench_to("/dev/full", "check --baseline " + f.fail + " " + f.run);
  EXPECT_EQ(r.exit_code, kExitFailure) << describe(r);
  EXPECT_TRUE(has(r.err, kStdoutLost)) << describe(r);
}

// Runs gpubench `args` with TMPDIR=`tmpdir`, expecting exit `code` and a fallback file in
// `tmpdir` named on stderr after `why`. Returns the fallback's content.
std::string expect_fallback(const std::string& args, const std::string& why, const std::string& tmpdir,
                            int code = kExitCannotWrite) {
  const CommandResult r = testing::run_gpubench_to("/dev/null", args, "TMPDIR='" + tmpdir + "'");
  EXPECT_EQ(r.exit_code, code) << describe(r);
  const std::regex fallback(": cannot write: " + why + "; written to (" + tmpdir + "/gpubench-[^ ]+) instead\n");
  std::smatch match;
  if (!std::regex_search(r.err, match, fallback)) {
    ADD_FAILURE() << "no fallback named: " << describe(r);
    return "";
  }
  return testing::read_file(match[1]);
}

// A full disk that the up-front test cannot see: a device like /dev/full, made in `dir` (as
// root; empty where mknod is refused).
std::string full_device(const std::string& dir) {
  const std::string path = dir + "/full";
  return mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0 ? path : "";
}

TEST(Output, AnOutputFileThatCannotBeWrittenIsRefusedBeforeTheWork) {
  const Files f;
  testing::write_file(f.dir + "/file", "");
  const std::string unwritable = f.dir + "/file/out";  // its directory is a file
  for (const std::string& args : {"check --baseline " + f.pass + " " + f.run + " --out " + unwritable,
                                  "baseline " + f.run + " --tolerance 5 --out " + unwritable,
                                  "report " + f.run + " -o " + unwritable}) {
    SCOPED_TRACE(args);
    testing::cli::expect_usage_error(testing::run_gpubench(args), unwritable + ": cannot write: no directory");
  }
}

TEST(Output, AnOutputFileThatFailsAtTheEndIsKeptInAFallbackFileAndTheVerdictStands) {
  const Files f;
  const std::string device = full_device(f.dir);
  if (device.empty()) GTEST_SKIP() << "mknod needs root";
  const std::string why = "No space left on device";
  EXPECT_TRUE(has(expect_fallback("check --baseline " + f.pass + " " + f.run + " --out " + device, why, f.dir),
                  "-> ok"));
  EXPECT_TRUE(has(expect_fallback("check --baseline " + f.fail + " " + f.run + " --out " + device, why, f.dir,
                                  kExitFailure),
                  "-> FAIL"));
  EXPECT_TRUE(has(expect_fallback("baseline " + f.run + " --tolerance 5 --out " + device, why, f.dir),
                  "\"gpubench_baseline\""));
  EXPECT_TRUE(has(expect_fallback("report " + f.run + " -o " + device, why, f.dir), "<html"));
}

}  // namespace
}  // namespace gpubench
