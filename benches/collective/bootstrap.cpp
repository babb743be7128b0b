#include "benches/collective/bootstrap.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "harness/model/number_text.h"

namespace gpubench::collective {

namespace {
std::string exact(double value) { return significant_text(value, 17); }
}  // namespace

double slowest(Bootstrap& bootstrap, double seconds) {
  std::string worst;
  const auto all = bootstrap.gather(exact(seconds), 0);
  if (!all.empty()) {
    double most = 0;
    for (const auto& each : all) most = std::max(most, std::stod(each));
    worst = exact(most);
  }
  bootstrap.broadcast(worst, 0);
  return std::stod(worst);
}

std::string agree_on_errors(Bootstrap& bootstrap, const std::string& mine) {
  std::string joined;
  const auto all = bootstrap.gather(mine, 0);
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].empty()) continue;
    if (!joined.empty()) joined += "; ";
    joined += bootstrap.size() > 1 ? "rank " + std::to_string(r) + ": " + all[r] : all[r];
  }
  bootstrap.broadcast(joined, 0);
  return joined;
}

int launcher_world_size(const std::function<const char*(const char*)>& getenv) {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "SLURM_NTASKS"}) {
    const char* value = getenv(name);
    if (value && *value) {
      const int size = std::atoi(value);
      if (size > 0) return size;
    }
  }
  return 1;
}

Bootstrap& process_bootstrap() {
  static const std::unique_ptr<Bootstrap> bootstrap = []() -> std::unique_ptr<Bootstrap> {
    if (launcher_world_size([](const char* name) { return std::getenv(name); }) > 1) return make_mpi_bootstrap();
    return std::make_unique<LocalBootstrap>();
  }();
  return *bootstrap;
}

}  // namespace gpubench::collective
