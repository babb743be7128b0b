// The run history's store (harness/analysis/history_store.h) and drift over it: idempotent
// adds, the schema version, refusals, a corrupt or locked database (exit 2, nothing changed),
// two writers at once, and a driver change named on the night of a step.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <thread>

#include "harness/analysis/history_drift.h"
#include "harness/analysis/history_store.h"
#include "tests/history_support.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

const ResultFile& memory_run() {
  static const ResultFile run = load_judged_run(testing::memory_runs().front());
  return run;
}

std::string night_date(int night, int hour = 2) {
  char text[40];
  std::snprintf(text, sizeof text, "2027-01-%02dT%02d:00:00+0000", 1 + night % 28, hour);
  std::string out = text;
  if (night >= 28) out.replace(5, 2, night >= 56 ? "03" : "02");
  return out;
}

// Every ok figure of `run` times `scale`.
ResultFile scaled(ResultFile run, double scale) {
  for (BenchmarkResult& b : run.benchmarks)
    for (auto& [name, m] : b.metrics) m.median *= scale;
  return run;
}

std::string db_path() { return testing::temp_dir() + "/history.db"; }

TEST(HistoryStore, AddingARunTwiceKeepsOne) {
  const std::string db = db_path();
  HistoryStore store(db, true);
  EXPECT_EQ(store.add(memory_run(), night_date(0), "a.json"), AddOutcome::kAdded);
  EXPECT_EQ(store.add(memory_run(), night_date(0), "copy-of-a.json"), AddOutcome::kAlreadyThere);
  EXPECT_EQ(store.add(memory_run(), night_date(1), "b.json"), AddOutcome::kAdded);
  const HistoryData data = store.read({});
  EXPECT_EQ(data.runs.size(), 2u);
  ASSERT_FALSE(data.series.empty());
  for (const HistorySeries& s : data.series) EXPECT_EQ(s.points.size(), 2u) << s.name;
  EXPECT_EQ(data.runs[0].source, "a.json");
  EXPECT_EQ(data.runs[0].driver, "580.159.04");
  EXPECT_EQ(data.runs[0].gpu_models, "NVIDIA H200");
  EXPECT_EQ(data.series[0].gpu_uuid.rfind("GPU-1512e1e2", 0), 0u);
}

TEST(HistoryStore, TheDatabaseIsVersionedAndInWalMode) {
  const std::string db = db_path();
  { HistoryStore store(db, true); }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  auto scalar = [&](const char* sql) {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(raw, sql, -1, &s, nullptr);
    sqlite3_step(s);
    const std::string out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return out;
  };
  EXPECT_EQ(scalar("PRAGMA user_version"), std::to_string(kHistorySchemaVersion));
  EXPECT_EQ(scalar("PRAGMA journal_mode"), "wal");
  sqlite3_exec(raw, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  try {
    HistoryStore newer(db, false);
    FAIL() << "a database of a newer schema was opened";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.code, 2);
    EXPECT_NE(e.message.find("newer than this gpubench's"), std::string::npos) << e.message;
  }
}

TEST(HistoryStore, ShowAndDriftNeedAnExistingDatabase) {
  const std::string db = db_path();
  EXPECT_THROW(HistoryStore(db, false), UsageError);
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(HistoryStore, ACorruptDatabaseIsExitTwoAndUnchanged) {
  const std::string db = db_path();
  std::string garbage(8192, 'x');
  testing::write_file(db, garbage);
  try {
    HistoryStore store(db, true);
    store.add(memory_run(), night_date(0), "a.json");
    FAIL() << "a corrupt database was written";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.code, 2);
    EXPECT_NE(e.message.find(db), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("not a database"), std::string::npos) << e.message;
  }
  EXPECT_EQ(testing::read_file(db), garbage);
  EXPECT_FALSE(std::filesystem::exists(db + "-wal"));
}

TEST(HistoryStore, ALockedDatabaseIsExitTwoAndChangesNothing) {
  const std::string db = db_path();
  { HistoryStore(db, true).add(memory_run(), night_date(0), "a.json"); }
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  try {
    HistoryStore store(db, true, 0.2);
    store.add(memory_run(), night_date(1), "b.json");
    FAIL() << "a run was added under another connection's exclusive lock";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.code, 2);
    EXPECT_NE(e.message.find("locked"), std::string::npos) << e.message;
  }
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_EQ(HistoryStore(db, false).read({}).runs.size(), 1u);
}

TEST(HistoryStore, AnUnjudgeableRunIsRefusedWithTheReason) {
  ResultFile unfinished = load_result_file(testing::memory_runs().front());
  unfinished.complete = false;
  judge_run(unfinished);
  EXPECT_NE(history_refusal(unfinished, night_date(0)).find("complete is false"), std::string::npos);
  EXPECT_NE(history_refusal(memory_run(), "yesterday").find("is not a date"), std::string::npos);
  EXPECT_EQ(history_refusal(memory_run(), night_date(0)), "");
}

TEST(HistoryStore, TwoWritersAtOnceLoseNothing) {
  const std::string db = db_path();
  { HistoryStore init(db, true); }
  auto writer = [&](int first) {
    HistoryStore store(db, true, 30);
    for (int night = first; night < first + 15; ++night) store.add(scaled(memory_run(), 1 + night * 1e-4), night_date(night), "w");
  };
  std::thread a(writer, 0), b(writer, 15);
  a.join();
  b.join();
  const HistoryData data = HistoryStore(db, false).read({});
  EXPECT_EQ(data.runs.size(), 30u);
  for (const HistorySeries& s : data.series) EXPECT_EQ(s.points.size(), 30u) << s.name;
}

TEST(HistoryStore, FiltersSelectHostGpuNameAndDate) {
  const std::string db = db_path();
  HistoryStore store(db, true);
  ResultFile other = memory_run();
  other.host_name = "node2";
  store.add(memory_run(), night_date(0), "a");
  store.add(other, night_date(1), "b");
  HistoryFilter filter;
  filter.host = "node2";
  EXPECT_EQ(store.read(filter).runs.size(), 1u);
  filter = {};
  filter.since = parse_history_date("2027-01-02");
  EXPECT_EQ(store.read(filter).runs.size(), 1u);
  filter = {};
  filter.name_regex = "triad";
  for (const HistorySeries& s : store.read(filter).series) EXPECT_NE(s.name.find("triad"), std::string::npos);
  filter = {};
  filter.gpu = "GPU-nothing";
  EXPECT_TRUE(store.read(filter).series.empty());
}

TEST(HistoryStore, DatesAreParsedStrictly) {
  EXPECT_DOUBLE_EQ(*parse_history_date("1970-01-02"), 86400);
  EXPECT_DOUBLE_EQ(*parse_history_date("1970-01-01T01:00:00+0100"), 0);
  EXPECT_DOUBLE_EQ(*parse_history_date("1970-01-01T00:00:01Z"), 1);
  EXPECT_DOUBLE_EQ(*parse_history_date("1970-01-01T00:00:00-00:30"), 1800);
  for (const char* bad : {"2026-02-30", "2026-1-05", "tomorrow", "2026-12-01T25:00:00", "2026-12-01T10:00:00+01"})
    EXPECT_FALSE(parse_history_date(bad)) << bad;
}

// A driver change two nights from a step's estimated night is named with its date; one three
// nights away is not the step's.
TEST(HistoryDrift, AContextChangeNearTheEstimatedNightIsNamedWithItsDate) {
  const std::string db = db_path();
  HistoryStore store(db, true);
  for (int night = 0; night < 60; ++night) {
    ResultFile run = memory_run();
    if (night >= 38) run.versions["driver_version"] = "590.44.01";
    for (BenchmarkResult& b : run.benchmarks)
      for (auto& [metric, m] : b.metrics) m.median *= night >= 40 ? (m.higher_is_better ? 0.8 : 1.25) : 1;
    store.add(run, night_date(night), "night");
  }
  HistoryFilter filter;
  filter.name_regex = "^memory/stream/op:triad/type:fp64/array_bytes:4294967296/";
  const DriftReport report = find_drift(store.read(filter), Tolerances{}, 3);
  ASSERT_FALSE(report.changes.empty());
  for (const SeriesChange& c : report.changes) {  // one per GPU of the run
    EXPECT_EQ(c.change.index, 40u);
    EXPECT_EQ(c.context, "driver 580.159.04 -> 590.44.01 on " + night_date(38).substr(0, 10) + " (2 nights earlier)");
  }
}

// A step of 5 % on the night the driver changed: the step is found on that night and the
// driver change is named.
TEST(HistoryDrift, ADriverChangeOnTheStepsNightIsNamed) {
  const std::string db = db_path();
  HistoryStore store(db, true);
  const std::vector<testing::FigureNoise> noise = testing::figure_noise(testing::judged_runs(testing::memory_runs()));
  std::mt19937 random(3);
  std::vector<std::vector<double>> nights;
  for (const testing::FigureNoise& f : noise) {
    nights.push_back(testing::healthy_nights(f, 60, random));
    testing::worsen_step(f, nights.back(), 40, 0.05);
  }
  for (int night = 0; night < 60; ++night) {
    ResultFile run = memory_run();
    if (night >= 40) run.versions["driver_version"] = "590.44.01";
    for (std::size_t i = 0; i < noise.size(); ++i)
      for (BenchmarkResult& b : run.benchmarks)
        if (b.name == noise[i].benchmark) b.metrics[noise[i].metric].median = nights[i][night];
    store.add(run, night_date(night), "night");
  }
  const Tolerances shipped = load_tolerances(std::string(GPUBENCH_SOURCE_DIR) + "/configs/tolerance.json");
  HistoryFilter filter;
  filter.name_regex = "^memory/stream/op:triad/type:fp64/array_bytes:4294967296/";
  const HistoryData data = store.read(filter);
  const DriftReport report = find_drift(data, shipped, 3);
  ASSERT_EQ(report.changes.size(), 1u) << data.series.size() << " series";
  const SeriesChange& c = report.changes[0];
  EXPECT_EQ(c.change.kind, ChangeKind::kStep);
  EXPECT_LE(std::abs(static_cast<int>(c.change.index) - 40), 2);
  EXPECT_TRUE(c.worse);
  EXPECT_TRUE(report.failed());
  // The step's night is an estimate; the driver change is named whichever night it lands on.
  if (c.change.index == 40) {
    EXPECT_EQ(c.date, night_date(40));
    EXPECT_EQ(c.context, "driver 580.159.04 -> 590.44.01");
  } else {
    EXPECT_EQ(c.context.rfind("driver 580.159.04 -> 590.44.01 on " + night_date(40).substr(0, 10) + " (", 0), 0u)
        << c.context;
  }
}

}  // namespace
}  // namespace gpubench
