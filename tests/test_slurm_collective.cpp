// scripts/slurm_collective.sh under a simulated Slurm: a stand-in srun on PATH that records its
// options and starts one node's tasks as Slurm does (SLURM_PROCID, SLURM_LOCALID, SLURM_NTASKS,
// CUDA_VISIBLE_DEVICES: the node's GPUs, or one per task under --gpus-per-task=1), and a
// stand-in gpubench that records what each rank was given. Which GPU a rank then drives is
// rank_device's rule (tests/test_collective.cpp).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <string>

#include "tests/test_support.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
const std::string kScript = std::string(GPUBENCH_SOURCE_DIR) + "/scripts/slurm_collective.sh";

constexpr const char* kFakeSrun = R"(#!/usr/bin/env bash
echo "$*" > "$SIM/srun_args"
echo "SLURM_MPI_TYPE=${SLURM_MPI_TYPE:-}" > "$SIM/srun_env"
ntasks=1 per_task=0
while [[ $1 == --* ]]; do
  case $1 in
    --ntasks-per-node=*) ntasks=${1#*=} ;;
    --gpus-per-task=*) per_task=1 ;;
  esac
  shift
done
for ((rank = 0; rank < ntasks; ++rank)); do
  if ((per_task)); then visible=0; else visible=$(seq -s, 0 $((ntasks - 1))); fi
  SLURM_PROCID=$rank SLURM_LOCALID=$rank SLURM_NTASKS=$ntasks CUDA_VISIBLE_DEVICES=$visible "$@" || exit
done
)";

constexpr const char* kFakeGpubench = R"(#!/usr/bin/env bash
echo "$0 local=$SLURM_LOCALID visible=$CUDA_VISIBLE_DEVICES args=$*" > "$SIM/rank$SLURM_PROCID"
)";

void write_executable(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  testing::write_file(path, text);
  chmod(path.c_str(), 0755);
}

struct Job {
  int exit_code = -1;
  std::string output, srun_args, srun_env;
  std::map<int, std::string> ranks;  // what each rank's gpubench was given
};

class SlurmCollective : public ::testing::Test {
 protected:
  void SetUp() override {
    write_executable(sim_ + "/bin/srun", kFakeSrun);
    write_executable(gpubench_, kFakeGpubench);
  }
  // Runs `script` with `args` in a job's environment plus `env`.
  Job run(const std::string& args, const std::string& env = "", const std::string& script = kScript) {
    for (const auto& entry : fs::directory_iterator(sim_))
      if (entry.is_regular_file()) fs::remove(entry.path());  // the last job's records
    const auto r = testing::run_command("cd '" + sim_ + "' && env -u GPUBENCH -u SLURM_MPI_TYPE -u GPUS_PER_NODE "
                                        "-u SLURM_NTASKS_PER_NODE SIM='" + sim_ + "' PATH='" + sim_ + "/bin:/usr/bin:/bin' "
                                        "SLURM_JOB_NUM_NODES=1 OUT=run.json " + env + " bash '" + script + "' " + args);
    Job job;
    job.exit_code = r.exit_code;
    job.output = r.out;
    job.srun_args = testing::read_file(sim_ + "/srun_args");
    job.srun_env = testing::read_file(sim_ + "/srun_env");
    for (int rank = 0; rank < 16; ++rank)
      if (fs::exists(sim_ + "/rank" + std::to_string(rank))) job.ranks[rank] = testing::read_file(sim_ + "/rank" + std::to_string(rank));
    return job;
  }
  std::string sim_ = testing::temp_dir();
  std::string gpubench_ = sim_ + "/stand-in/gpubench";
};

TEST_F(SlurmCollective, ThePluginComesFromTheOption) {
  const Job job = run("--mpi pmix --quick", "GPUBENCH='" + gpubench_ + "' GPUS_PER_NODE=4");
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(job.srun_args.rfind("--mpi=pmix --ntasks-per-node=4 --cpu-bind=none " + gpubench_, 0), 0u) << job.srun_args;
  ASSERT_EQ(job.ranks.size(), 4u);
  for (const auto& [rank, seen] : job.ranks) {
    // Every rank sees the node's GPUs; its local rank picks one.
    EXPECT_NE(seen.find("local=" + std::to_string(rank) + " visible=0,1,2,3 "), std::string::npos) << seen;
    EXPECT_NE(seen.find("args=--suite collective --no-isolate --out run.json --quick\n"), std::string::npos) << seen;
  }
  EXPECT_EQ(run("--mpi=pmi2", "GPUBENCH='" + gpubench_ + "'").srun_args.rfind("--mpi=pmi2 ", 0), 0u);
}

TEST_F(SlurmCollective, WithoutTheOptionSrunTakesTheEnvironmentOrTheClusterDefault) {
  const Job job = run("", "GPUBENCH='" + gpubench_ + "' SLURM_MPI_TYPE=pmi2");
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(job.srun_args.find("--mpi"), std::string::npos) << job.srun_args;
  EXPECT_EQ(job.srun_env, "SLURM_MPI_TYPE=pmi2\n");
  EXPECT_EQ(job.ranks.size(), 8u);  // the script's default: 8 ranks per node
  // The job's --ntasks-per-node, where it gave one.
  EXPECT_EQ(run("", "GPUBENCH='" + gpubench_ + "' SLURM_NTASKS_PER_NODE=2").ranks.size(), 2u);
}

TEST_F(SlurmCollective, OneGpuPerTaskGivesEachRankItsOwn) {
  const Job job = run("--gpus-per-task 1 -- --filter all_reduce", "GPUBENCH='" + gpubench_ + "' GPUS_PER_NODE=4");
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_NE(job.srun_args.find("--gpus-per-task=1 "), std::string::npos) << job.srun_args;
  ASSERT_EQ(job.ranks.size(), 4u);
  for (const auto& [rank, seen] : job.ranks) {
    EXPECT_NE(seen.find("local=" + std::to_string(rank) + " visible=0 "), std::string::npos) << seen;
    EXPECT_NE(seen.find("--out run.json --filter all_reduce\n"), std::string::npos) << seen;
  }
  EXPECT_EQ(run("--gpus-per-task 2", "GPUBENCH='" + gpubench_ + "'").exit_code, 2);
  EXPECT_EQ(run("--mpi", "GPUBENCH='" + gpubench_ + "'").exit_code, 2);
}

TEST_F(SlurmCollective, TheBinaryIsFoundInstalledInTheSubmitDirectoryOrOnPath) {
  // Installed: <prefix>/share/gpubench/scripts/slurm_collective.sh runs <prefix>/bin/gpubench.
  const std::string prefix = sim_ + "/prefix";
  fs::create_directories(prefix + "/share/gpubench/scripts");
  fs::copy_file(kScript, prefix + "/share/gpubench/scripts/slurm_collective.sh");
  write_executable(prefix + "/bin/gpubench", kFakeGpubench);
  Job job = run("", "GPUS_PER_NODE=1", prefix + "/share/gpubench/scripts/slurm_collective.sh");
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(job.ranks[0].rfind(prefix + "/bin/gpubench ", 0), 0u) << job.ranks[0];
  // sbatch runs a copy of the script from its spool folder: the submit directory's build, then PATH.
  const std::string spooled = sim_ + "/spool/slurm_script";
  fs::create_directories(sim_ + "/spool");
  fs::copy_file(kScript, spooled);
  write_executable(sim_ + "/submit/build/gpubench", kFakeGpubench);
  job = run("", "GPUS_PER_NODE=1 SLURM_SUBMIT_DIR='" + sim_ + "/submit'", spooled);
  EXPECT_EQ(job.ranks[0].rfind(sim_ + "/submit/build/gpubench ", 0), 0u) << job.ranks[0] << job.output;
  write_executable(sim_ + "/bin/gpubench", kFakeGpubench);
  job = run("", "GPUS_PER_NODE=1", spooled);
  EXPECT_EQ(job.ranks[0].rfind(sim_ + "/bin/gpubench ", 0), 0u) << job.ranks[0] << job.output;
  fs::remove(sim_ + "/bin/gpubench");
  job = run("", "GPUS_PER_NODE=1", spooled);
  EXPECT_EQ(job.exit_code, 2);
  EXPECT_NE(job.output.find("no gpubench binary found"), std::string::npos) << job.output;
}

}  // namespace
}  // namespace gpubench
