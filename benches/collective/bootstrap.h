#pragma once
// How the ranks of a collective benchmark talk to each other outside NCCL: the ncclUniqueId goes
// out from rank 0, each sample's slowest time and each rank's verification come back to it.
// One process driving every GPU is one rank (LocalBootstrap); mpirun or srun makes one process
// per GPU (MpiBootstrap, in builds with GPUBENCH_MPI); the CPU tests use threads.
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpubench::collective {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;  // among the ranks of this node
  // Every rank ends with root's `data`.
  virtual void broadcast(std::string& data, int root) = 0;
  // Root gets every rank's `mine`, in rank order; the others get nothing.
  virtual std::vector<std::string> gather(const std::string& mine, int root) = 0;
};

class LocalBootstrap : public Bootstrap {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  void broadcast(std::string&, int) override {}
  std::vector<std::string> gather(const std::string& mine, int) override { return {mine}; }
};

// The slowest rank's seconds, on every rank.
double slowest(Bootstrap& bootstrap, double seconds);
// Every rank's error joined ("rank 2: out of memory"), on every rank; empty when none failed.
std::string agree_on_errors(Bootstrap& bootstrap, const std::string& mine);

// How many ranks the launcher started, from its environment (Open MPI, PMIx, PMI, Slurm); 1
// when not started as one of several.
int launcher_world_size(const std::function<const char*(const char*)>& getenv);
// This process's bootstrap: MPI when the launcher started several ranks, else local.
Bootstrap& process_bootstrap();
// Defined by mpi/mpi_bootstrap.cpp, or by mpi/no_mpi_bootstrap.cpp where MPI is not built in
// (it then throws, saying so).
std::unique_ptr<Bootstrap> make_mpi_bootstrap();

}  // namespace gpubench::collective
