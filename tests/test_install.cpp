// `cmake --install` into a temporary prefix, then the installed binary and scripts from a
// directory outside the source tree: the configs they use are the installed ones, and the
// binary needs no shared library beyond the C library's (docs/install.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using testing::describe;
using testing::run_command;

const std::string kRepo = GPUBENCH_SOURCE_DIR;

class Installed : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    prefix_ = new std::string(testing::temp_dir() + "/prefix");
    const auto r = run_command(std::string("'" GPUBENCH_CMAKE "' --install '" GPUBENCH_BUILD_DIR "' --prefix '") + *prefix_ + "'");
    ASSERT_EQ(r.exit_code, 0) << describe(r);
  }
  static void TearDownTestSuite() { delete prefix_; }

  // `command` run from a directory outside the source tree, with no GPUBENCH_CONFIG_DIR.
  testing::CommandResult run_elsewhere(const std::string& command) {
    return run_command("cd '" + cwd_ + "' && env -u GPUBENCH_CONFIG_DIR -u GPUBENCH " + command);
  }
  std::string gpubench() const { return "'" + *prefix_ + "/bin/gpubench'"; }
  std::string configs() const { return *prefix_ + "/share/gpubench/configs"; }

  static std::string* prefix_;
  std::string cwd_ = testing::temp_dir();
};
std::string* Installed::prefix_ = nullptr;

TEST_F(Installed, TheLayoutIsBinShareGpubenchAndDoc) {
  const std::string doc = GPUBENCH_HAVE_CUDA ? "share/doc/gpubench/" : "share/doc/gpubench-nocuda/";
  for (const std::string& file : std::vector<std::string>{
           "bin/gpubench", "share/gpubench/configs/peaks.json", "share/gpubench/configs/tolerance.json",
           "share/gpubench/configs/baselines/h200.json", "share/gpubench/configs/acceptance/h200.json",
           "share/gpubench/configs/gemm_shapes.json", "share/gpubench/configs/attention_shapes.json",
           "share/gpubench/configs/conv_layers/resnet50.json", "share/gpubench/scripts/nightly.sh",
           "share/gpubench/scripts/slurm_collective.sh", "share/gpubench/scripts/peers/torch_gemm.py",
           "share/gpubench/scripts/peers/peer_timing.py", "share/man/man1/gpubench.1.gz", doc + "copyright",
           doc + "changelog.gz", doc + "install.md", doc + "README.md", doc + "schema/run.schema.json"})
    EXPECT_TRUE(fs::is_regular_file(*prefix_ + "/" + file)) << file;
  for (const std::string script : {"scripts/nightly.sh", "scripts/slurm_collective.sh", "scripts/peers/torch_gemm.py"})
    EXPECT_NE(fs::status(*prefix_ + "/share/gpubench/" + script).permissions() & fs::perms::owner_exec, fs::perms::none)
        << script;
}

// A copy starts on a node with the CUDA driver alone: no libstdc++ or Google Benchmark of the
// build machine's distribution, only the C library (cudart is static; the rest is dlopened).
TEST_F(Installed, TheBinaryNeedsOnlyTheCLibrary) {
  const auto r = run_command("readelf -d " + gpubench());
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::set<std::string> allowed = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1"};
  std::istringstream lines(r.out);
  int needed = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("(NEEDED)") == std::string::npos) continue;
    const auto from = line.find('[') + 1;
    const std::string library = line.substr(from, line.find(']') - from);
    const bool loader = library.rfind("ld-linux", 0) == 0;  // ld-linux-x86-64.so.2, ld-linux-aarch64.so.1
    EXPECT_TRUE(loader || allowed.count(library)) << library << " is needed by the installed binary";
    ++needed;
  }
  EXPECT_GT(needed, 0) << r.out;
}

TEST_F(Installed, ListRunsFromElsewhere) {
  const auto r = run_elsewhere(gpubench() + " list");
  if (GPUBENCH_HAVE_CUDA) {
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_NE(r.out.find("memory/stream"), std::string::npos) << r.out;
  } else {
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_NE(r.out.find("this gpubench was built without CUDA; use a CUDA build to measure"), std::string::npos)
        << r.out;
  }
}

TEST_F(Installed, CheckUsesTheInstalledBaselineAndThePresetItNames) {
  fs::copy_file(kRepo + "/results/h200x2/2026-11-29-acceptance.json", cwd_ + "/run.json");
  // The README's command, verbatim, from a directory that has no configs/.
  const auto r = run_elsewhere(gpubench() + " check --baseline configs/baselines/h200.json run.json");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << describe(r);
  EXPECT_NE(r.out.find("against " + configs() + "/baselines/h200.json"), std::string::npos) << r.out;
}

TEST_F(Installed, CompareUsesTheInstalledTolerances) {
  const std::string base = kRepo + "/results/h200/2026-12-01-memory.json";
  const std::string next = kRepo + "/results/h200/2026-12-01-memory-run2.json";
  const auto r = run_elsewhere(gpubench() + " compare '" + base + "' '" + next + "' --tolerance configs/tolerance.json");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << describe(r);
  EXPECT_NE(r.out.find("regressed"), std::string::npos) << r.out;
  // A copy of the installation whose tolerance file is broken: its binary reads that one.
  const std::string copy = testing::temp_dir() + "/copy";
  fs::copy(*prefix_, copy, fs::copy_options::recursive);
  testing::write_file(copy + "/share/gpubench/configs/tolerance.json", "{");
  const auto broken = run_elsewhere("'" + copy + "/bin/gpubench' compare '" + base + "' '" + next +
                                    "' --tolerance configs/tolerance.json");
  EXPECT_EQ(broken.exit_code, 2) << describe(broken);
  EXPECT_NE(broken.out.find(copy + "/share/gpubench/configs/tolerance.json"), std::string::npos) << broken.out;
}

TEST_F(Installed, NightlyRunsTheInstalledBinaryWithTheInstalledConfigs) {
  if (GPUBENCH_HAVE_CUDA) GTEST_SKIP() << "a CUDA build would run the acceptance preset";
  const auto r = run_elsewhere("'" + *prefix_ + "/share/gpubench/scripts/nightly.sh' --results-dir '" + cwd_ +
                               "/results' --date 2026-12-01");
  const std::string log = testing::read_file(cwd_ + "/results/2026-12-01-run.log");
  EXPECT_EQ(r.out.find("no gpubench binary"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("cannot read"), std::string::npos) << r.out;
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(log.find("built without CUDA"), std::string::npos) << log;
}

}  // namespace
}  // namespace gpubench
