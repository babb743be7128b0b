// Run by test_collective_mpi under `mpirun -np N`: the collective driver over real MPI, with a
// fake engine standing in for NCCL. Rank r's collective takes (r + 1) x 10 us and has r wrong
// elements; rank 0 prints what it gathered as one line of JSON.
#include <cstdio>
#include <exception>
#include <vector>

#include "benches/collective/bootstrap.h"
#include "tests/collective_fake.h"

int main() {
  using namespace gpubench::collective;
  try {
    Bootstrap& bootstrap = process_bootstrap();
    testing::FakeEngine engine;
    engine.op_s = (bootstrap.rank() + 1) * 1e-5;
    engine.wrong = bootstrap.rank();
    std::vector<double> samples;
    const DriveOutcome outcome =
        drive(bootstrap, engine, DriveSettings{}, [](double, int, double) {}, testing::fixed_samples(5, samples));
    if (bootstrap.rank() == 0)
      std::printf("{\"ranks\": %d, \"ops\": %d, \"sample_s\": %.9g, \"samples\": %zu, \"wrong\": %lld}\n",
                  bootstrap.size(), outcome.ops_per_sample, samples.empty() ? 0.0 : samples.front(), samples.size(),
                  outcome.wrong);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "probe: %s\n", e.what());
    return 1;
  }
  return 0;
}
