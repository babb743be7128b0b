// The collective driver across real MPI processes (mpirun on the CPU), a fake engine standing
// in for NCCL. Skipped where the build has no MPI (no probe) or mpirun is absent. And MPI loaded
// at run time: gpubench starts without it, and a rank that cannot load it says so.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "benches/collective/bootstrap.h"
#include "harness/system/library.h"

namespace {

std::filesystem::path probe_path() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path() / "gpubench_collective_mpi_probe";
}

std::string run(const std::string& command, int& status) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return output;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe)) output += buffer.data();
  status = pclose(pipe);
  return output;
}

nlohmann::json run_ranks(int ranks) {
  if (!std::filesystem::exists(probe_path())) return nullptr;
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) return nullptr;
  int status = -1;
  const std::string output = run("mpirun --allow-run-as-root --oversubscribe -np " + std::to_string(ranks) +
                                     " --mca btl self,vader --mca plm_rsh_agent false " + probe_path().string() + " 2>&1",
                                 status);
  EXPECT_EQ(status, 0) << output;
  const auto line = output.substr(output.find('{'));
  return nlohmann::json::parse(line.substr(0, line.find('\n')));
}

class CollectiveMpi : public ::testing::TestWithParam<int> {};

TEST_P(CollectiveMpi, RankZeroGathersEveryRank) {
  const int ranks = GetParam();
  const nlohmann::json result = run_ranks(ranks);
  if (result.is_null()) GTEST_SKIP() << "built without MPI, or mpirun absent";
  EXPECT_EQ(result["ranks"], ranks);
  // The slowest rank (the last: (r + 1) x 10 us) sets the sample time and the batch.
  const double slowest_op_s = ranks * 1e-5;
  const int ops = result["ops"];
  EXPECT_EQ(ops, static_cast<int>(std::ceil(1e-3 / slowest_op_s - 1e-9)));
  EXPECT_NEAR(result["sample_s"].get<double>(), ops * slowest_op_s, 1e-12);
  EXPECT_EQ(result["samples"], 5);
  EXPECT_EQ(result["wrong"], ranks * (ranks - 1) / 2);  // rank r has r wrong elements
}

INSTANTIATE_TEST_SUITE_P(Ranks, CollectiveMpi, ::testing::Values(2, 3));

TEST(CollectiveMpiLibrary, GpubenchStartsWithoutMpiInstalled) {
  if (std::system("command -v readelf >/dev/null 2>&1") != 0) GTEST_SKIP() << "readelf absent";
  int status = -1;
  const std::string needed = run("readelf -d '" GPUBENCH_EXE "' 2>&1", status);
  ASSERT_EQ(status, 0) << needed;
  EXPECT_NE(needed.find("NEEDED"), std::string::npos) << needed;
  EXPECT_EQ(needed.find("libmpi"), std::string::npos) << needed;
}

TEST(CollectiveMpiLibrary, ARankWithoutMpiSaysWhyAndJoinsNothing) {
  // This process never joins an MPI job, so the name can stay pointed at a library that is absent.
  gpubench::register_library("mpi", {"libgpubench-absent-mpi.so"});
  try {
    gpubench::collective::make_mpi_bootstrap();
    FAIL() << "a rank that cannot load MPI must not start";
  } catch (const std::runtime_error& e) {
    const std::string why = e.what();
    if (why.find("built without MPI") != std::string::npos) GTEST_SKIP() << why;
    EXPECT_NE(why.find("MPI cannot be loaded"), std::string::npos) << why;
    EXPECT_NE(why.find("libgpubench-absent-mpi.so"), std::string::npos) << why;
  }
}

}  // namespace
