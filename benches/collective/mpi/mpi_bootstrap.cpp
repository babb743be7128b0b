// The bootstrap of an mpirun/srun job: one process per GPU, MPI_COMM_WORLD its ranks.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "benches/collective/bootstrap.h"

namespace gpubench::collective {
namespace {

void mpi_check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, static_cast<std::size_t>(length)));
}

// A rank joins its job once, so a second worker process of the same rank (the harness starts
// one per family unless --no-isolate) cannot: it says so at once rather than wait in MPI_Init.
// The mark is per job, parent process and rank.
std::filesystem::path joined_mark(int rank) {
  const char* job = std::getenv("PMIX_NAMESPACE");
  std::string name = "gpubench-mpi-" + std::string(job ? job : "job") + "-" + std::to_string(getppid()) + "-" +
                     std::to_string(rank) + ".joined";
  for (char& c : name)
    if (c == '/') c = '_';
  return std::filesystem::temp_directory_path() / name;
}

class MpiBootstrap : public Bootstrap {
 public:
  MpiBootstrap() {
    const char* rank_text = std::getenv("OMPI_COMM_WORLD_RANK");
    if (!rank_text) rank_text = std::getenv("PMIX_RANK");
    if (!rank_text) rank_text = std::getenv("PMI_RANK");
    const std::filesystem::path mark = joined_mark(rank_text ? std::atoi(rank_text) : 0);
    if (std::filesystem::exists(mark))
      throw std::runtime_error("another process of this rank already joined the MPI job: under mpirun or srun run "
                               "gpubench with --no-isolate (an MPI rank joins its job once)");
    std::ofstream(mark) << "";
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) mpi_check(MPI_Init(nullptr, nullptr), "MPI_Init");
    mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    MPI_Comm node = MPI_COMM_NULL;
    mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
              "MPI_Comm_split_type");
    mpi_check(MPI_Comm_rank(node, &local_rank_), "MPI_Comm_rank");
    MPI_Comm_free(&node);
  }
  ~MpiBootstrap() override {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (!finalised) MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }

  void broadcast(std::string& data, int root) override {
    int length = static_cast<int>(data.size());
    mpi_check(MPI_Bcast(&length, 1, MPI_INT, root, MPI_COMM_WORLD), "MPI_Bcast");
    data.resize(static_cast<std::size_t>(length));
    mpi_check(MPI_Bcast(data.data(), length, MPI_CHAR, root, MPI_COMM_WORLD), "MPI_Bcast");
  }

  std::vector<std::string> gather(const std::string& mine, int root) override {
    int length = static_cast<int>(mine.size());
    std::vector<int> lengths(rank_ == root ? static_cast<std::size_t>(size_) : 0);
    mpi_check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, root, MPI_COMM_WORLD), "MPI_Gather");
    std::vector<int> offsets(lengths.size());
    int total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    mpi_check(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, root,
                          MPI_COMM_WORLD),
              "MPI_Gatherv");
    std::vector<std::string> parts;
    for (std::size_t r = 0; r < lengths.size(); ++r)
      parts.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
    return parts;
  }

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

}  // namespace

std::unique_ptr<Bootstrap> make_mpi_bootstrap() { return std::make_unique<MpiBootstrap>(); }

}  // namespace gpubench::collective
