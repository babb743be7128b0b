// The bootstrap of a build without MPI (GPUBENCH_MPI off): a multi-rank launch cannot be joined.
#include <stdexcept>

#include "benches/collective/bootstrap.h"

namespace gpubench::collective {

std::unique_ptr<Bootstrap> make_mpi_bootstrap() {
  throw std::runtime_error(
      "started as one of several ranks (mpirun/srun), but this gpubench was built without MPI "
      "(-DGPUBENCH_MPI=ON with Open MPI installed builds it in)");
}

}  // namespace gpubench::collective
