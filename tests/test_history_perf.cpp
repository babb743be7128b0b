// The history at the scale of a fleet's year: 1000 runs of the acceptance preset (one committed
// H200 acceptance run, its figures moved by its own same-build noise, 10 nodes x 100 nights)
// added in under 30 s, and `history show` (its table) and `history drift` over them in under 1 s
// each.
// ctest label `perf` (history/perf): it times, so it runs alone.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "harness/analysis/history_store.h"
#include "tests/history_support.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(HistoryPerf, AThousandAcceptanceRunsAddedShownAndDrifted) {
  const std::vector<ResultFile> same_build = testing::judged_runs(testing::acceptance_runs());
  const ResultFile& base = same_build.front();
  std::size_t figures = 0;
  for (const BenchmarkResult& b : base.benchmarks) figures += b.ok() ? b.metrics.size() : 0;
  // Each figure's deviations over the five runs, applied to all its metrics alike.
  std::map<std::string, std::vector<double>> deviations;
  for (const testing::FigureNoise& f : testing::figure_noise(same_build)) deviations[f.benchmark] = f.deviations;

  const std::string db = testing::temp_dir() + "/fleet.db";
  std::mt19937 random(5);
  std::uniform_int_distribution<std::size_t> pick(0, 4);
  auto start = std::chrono::steady_clock::now();
  double adding_s = 0;  // in HistoryStore::add alone, without making the runs
  {
    HistoryStore store(db, true);
    for (int i = 0; i < 1000; ++i) {
      ResultFile run = base;
      run.host_name = "node" + std::to_string(i % 10);
      for (BenchmarkResult& b : run.benchmarks) {
        const auto d = deviations.find(b.name);
        const double scale = d == deviations.end() ? 1 : 1 + d->second[pick(random)];
        for (auto& [metric, m] : b.metrics) m.median *= m.higher_is_better ? scale : 1 / scale;
      }
      char date[40];
      const int night = i / 10;
      std::snprintf(date, sizeof date, "2027-%02d-%02dT02:%02d:00+0000", 1 + night / 28, 1 + night % 28, i % 10);
      const auto adding = std::chrono::steady_clock::now();
      ASSERT_EQ(store.add(run, date, "synthetic"), AddOutcome::kAdded);
      adding_s += seconds_since(adding);
    }
  }
  const double add_s = seconds_since(start);
  std::printf("added 1000 runs of %zu figures each in %.2f s (%.2f s of it in add)\n", figures, add_s, adding_s);
  EXPECT_LT(add_s, 30);

  for (const std::string command : {"show", "show --format csv", "show --format json", "show --format html", "drift"}) {
    start = std::chrono::steady_clock::now();
    const auto r = testing::run_gpubench_to("/dev/null", "history " + command + " --db " + db);
    const double s = seconds_since(start);
    std::printf("history %s: %.2f s (exit %d)\n", command.c_str(), s, r.exit_code);
    EXPECT_LE(r.exit_code, 1) << r.err;
    // Every format, the tidy CSV of every figure (213 000 rows, 50 MB) and a chart per figure too.
    EXPECT_LT(s, 1.0) << "history " << command;
  }
}

}  // namespace
}  // namespace gpubench
