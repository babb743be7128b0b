// The bootstrap of an mpirun/srun job: one process per GPU, MPI_COMM_WORLD its ranks. MPI is
// loaded at run time (harness/system/library.h), never linked, so the one gpubench starts on a
// node without MPI and joins a job where the launcher started several ranks. Only mpi.h is needed
// to build: its declarations type the table, and the handles that Open MPI's ABI defines as
// addresses of its own objects (MPI_COMM_WORLD is &ompi_mpi_comm_world) are looked up there.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "benches/collective/bootstrap.h"
#include "harness/system/library.h"

#define GPUBENCH_MPI_FUNCTIONS(X)                                                                                 \
  X(MPI_Init) X(MPI_Initialized) X(MPI_Finalize) X(MPI_Finalized) X(MPI_Comm_rank) X(MPI_Comm_size)               \
  X(MPI_Comm_split_type) X(MPI_Comm_free) X(MPI_Bcast) X(MPI_Gather) X(MPI_Gatherv) X(MPI_Error_string)

namespace gpubench::collective {
namespace {

GPUBENCH_LIBRARY_TABLE(MpiApi, "mpi", GPUBENCH_MPI_FUNCTIONS)

// The library of the MPI whose mpi.h this was built with; global, as Open MPI's plugins may take
// its symbols from there.
const bool mpi_registered = [] {
#ifdef OPEN_MPI
  register_library("mpi", {"libmpi.so.40", "libmpi.so"}, SymbolScope::kGlobal);
#else
  register_library("mpi", {"libmpi.so.12", "libmpi.so"}, SymbolScope::kGlobal);
#endif
  return true;
}();

// The predefined handles the bootstrap uses.
struct MpiHandles {
  MPI_Comm world, null_comm;
  MPI_Datatype int_type, char_type;
  MPI_Info null_info;
};

#ifdef OPEN_MPI
template <class Handle>
Handle predefined(const char* symbol) {
  return static_cast<Handle>(shared_library("mpi").require(symbol));
}
MpiHandles load_handles() {
  return {predefined<MPI_Comm>("ompi_mpi_comm_world"), predefined<MPI_Comm>("ompi_mpi_comm_null"),
          predefined<MPI_Datatype>("ompi_mpi_int"), predefined<MPI_Datatype>("ompi_mpi_char"),
          predefined<MPI_Info>("ompi_mpi_info_null")};
}
#else
MpiHandles load_handles() { return {MPI_COMM_WORLD, MPI_COMM_NULL, MPI_INT, MPI_CHAR, MPI_INFO_NULL}; }
#endif

// MPI's functions and handles, or std::runtime_error saying that this rank cannot join its job.
const MpiApi& mpi_api() {
  try {
    return MpiApi::get();
  } catch (const LibraryError& e) {
    throw std::runtime_error("started as one of several ranks (mpirun/srun), but MPI cannot be loaded: " +
                             std::string(e.what()));
  }
}

void mpi_check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  mpi_api().MPI_Error_string(code, text, &length);
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
  MpiBootstrap() : mpi_(mpi_api()), handles_(load_handles()) {
    const char* rank_text = std::getenv("OMPI_COMM_WORLD_RANK");
    if (!rank_text) rank_text = std::getenv("PMIX_RANK");
    if (!rank_text) rank_text = std::getenv("PMI_RANK");
    const std::filesystem::path mark = joined_mark(rank_text ? std::atoi(rank_text) : 0);
    if (std::filesystem::exists(mark))
      throw std::runtime_error("another process of this rank already joined the MPI job: under mpirun or srun run "
                               "gpubench with --no-isolate (an MPI rank joins its job once)");
    std::ofstream(mark) << "";
    int initialised = 0;
    mpi_.MPI_Initialized(&initialised);
    if (!initialised) mpi_check(mpi_.MPI_Init(nullptr, nullptr), "MPI_Init");
    mpi_check(mpi_.MPI_Comm_rank(handles_.world, &rank_), "MPI_Comm_rank");
    mpi_check(mpi_.MPI_Comm_size(handles_.world, &size_), "MPI_Comm_size");
    MPI_Comm node = handles_.null_comm;
    mpi_check(mpi_.MPI_Comm_split_type(handles_.world, MPI_COMM_TYPE_SHARED, rank_, handles_.null_info, &node),
              "MPI_Comm_split_type");
    mpi_check(mpi_.MPI_Comm_rank(node, &local_rank_), "MPI_Comm_rank");
    mpi_.MPI_Comm_free(&node);
  }
  ~MpiBootstrap() override {
    int finalised = 0;
    mpi_.MPI_Finalized(&finalised);
    if (!finalised) mpi_.MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }

  void broadcast(std::string& data, int root) override {
    int length = static_cast<int>(data.size());
    mpi_check(mpi_.MPI_Bcast(&length, 1, handles_.int_type, root, handles_.world), "MPI_Bcast");
    data.resize(static_cast<std::size_t>(length));
    mpi_check(mpi_.MPI_Bcast(data.data(), length, handles_.char_type, root, handles_.world), "MPI_Bcast");
  }

  std::vector<std::string> gather(const std::string& mine, int root) override {
    int length = static_cast<int>(mine.size());
    std::vector<int> lengths(rank_ == root ? static_cast<std::size_t>(size_) : 0);
    mpi_check(mpi_.MPI_Gather(&length, 1, handles_.int_type, lengths.data(), 1, handles_.int_type, root, handles_.world),
              "MPI_Gather");
    std::vector<int> offsets(lengths.size());
    int total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    mpi_check(mpi_.MPI_Gatherv(mine.data(), length, handles_.char_type, all.data(), lengths.data(), offsets.data(),
                               handles_.char_type, root, handles_.world),
              "MPI_Gatherv");
    std::vector<std::string> parts;
    for (std::size_t r = 0; r < lengths.size(); ++r)
      parts.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
    return parts;
  }

 private:
  const MpiApi& mpi_;
  MpiHandles handles_;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

}  // namespace

std::unique_ptr<Bootstrap> make_mpi_bootstrap() { return std::make_unique<MpiBootstrap>(); }

}  // namespace gpubench::collective
