// `gpubench history add|show|drift` end to end: the binary on small runs cut from a committed
// H200 memory run, one a night.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <filesystem>

#include "harness/model/run_document.h"
#include "harness/model/run_stream.h"
#include "tests/cli_support.h"
#include "tests/history_support.h"

namespace gpubench {
namespace {

using testing::run_gpubench;

// Night `night` of a node: the memory run's triad figures, times `scale`, dated that night.
std::string write_night(const std::string& dir, int night, double scale = 1, const std::string& host = "node1") {
  static const RunDocument base = load_run_document(testing::memory_runs().front());
  RunDocument doc = base;
  std::vector<BenchResult> kept;
  for (BenchResult& r : doc.results)
    if (r.name.find("op:triad/type:fp64") != std::string::npos) {
      for (auto& [name, m] : r.metrics)
        for (double& v : m.values) v *= m.higher_is_better ? scale : 1 / scale;
      kept.push_back(std::move(r));
    }
  doc.results = std::move(kept);
  doc.host.host_name = host;
  char date[32];
  std::snprintf(date, sizeof date, "2027-01-%02dT02:00:00+0000", night + 1);
  doc.host.date = date;
  const std::string path = dir + "/" + host + "-" + std::to_string(night) + ".json";
  testing::write_file(path, to_json(doc).dump());
  return path;
}

std::string nights(const std::string& dir, int count, int step_at = -1, const std::string& host = "node1") {
  std::string files;
  for (int n = 0; n < count; ++n) files += " " + write_night(dir, n, step_at >= 0 && n >= step_at ? 0.9 : 1, host);
  return files;
}

TEST(HistoryCli, AddShowAndDriftAHealthyNode) {
  const std::string dir = testing::temp_dir(), db = dir + "/h.db";
  const std::string files = nights(dir, 12);
  auto r = run_gpubench("history add --db " + db + files);
  ASSERT_EQ(r.exit_code, 0) << testing::describe(r);
  EXPECT_NE(r.out.find("history add: 12 added, 0 already there, 0 refused, 0 unreadable -> ok"), std::string::npos) << r.out;
  r = run_gpubench("history add --db " + db + files);  // again: kept once
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("0 added, 12 already there"), std::string::npos) << r.out;

  r = run_gpubench("history show --db " + db);
  EXPECT_EQ(r.exit_code, 0) << testing::describe(r);
  EXPECT_NE(r.out.find("series from 12 runs."), std::string::npos) << r.out;
  r = run_gpubench("history show --format json --db " + db + " --name 'array_bytes:4294967296/'");
  const nlohmann::json j = testing::cli::parse_json(r.out);
  ASSERT_FALSE(j["series"].empty());
  for (const auto& s : j["series"]) EXPECT_EQ(s["nights"].size(), 12u) << s.dump();
  r = run_gpubench("history show --format csv --db " + db + " --since 2027-01-11");
  EXPECT_EQ(r.out.substr(0, 10), "host,date,");
  EXPECT_EQ(r.out.find("2027-01-10"), std::string::npos);
  r = run_gpubench("history show --format html --db " + db);
  EXPECT_NE(r.out.find("<svg"), std::string::npos);

  r = run_gpubench("history drift --db " + db);
  EXPECT_EQ(r.exit_code, 0) << testing::describe(r);
  EXPECT_NE(r.out.find("0 steps, 0 drifts (0 to the latest night), 0 for the worse -> ok"), std::string::npos) << r.out;
}

TEST(HistoryCli, AStepIsExitOneAndTheDatabaseComesFromTheEnvironment) {
  const std::string dir = testing::temp_dir(), db = dir + "/h.db";
  ASSERT_EQ(run_gpubench("history add --db " + db + nights(dir, 12, 8)).exit_code, 0);
  const auto r = testing::run_gpubench_to(dir + "/drift.txt", "history drift --name 'array_bytes:4294967296/'",
                                          "GPUBENCH_HISTORY_DB=" + db);
  const std::string out = testing::read_file(dir + "/drift.txt");
  EXPECT_EQ(r.exit_code, 1) << out << r.err;
  EXPECT_NE(out.find("2027-01-09"), std::string::npos) << out;
  EXPECT_NE(out.find("step -10"), std::string::npos) << out;
  EXPECT_NE(out.find("-> FAIL"), std::string::npos) << out;
}

TEST(HistoryCli, AnUnjudgeableRunIsRefusedWithTheReason) {
  const std::string dir = testing::temp_dir(), db = dir + "/h.db";
  const std::string path = write_night(dir, 0);
  nlohmann::json doc = testing::cli::parse_json(testing::read_file(path));
  doc["context"]["gpubench"]["complete"] = false;
  testing::write_file(path, doc.dump());
  const auto r = run_gpubench("history add --db " + db + " " + path + " " + write_night(dir, 1));
  EXPECT_EQ(r.exit_code, 1) << testing::describe(r);
  EXPECT_NE(r.err.find("complete is false"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("1 added, 0 already there, 1 refused"), std::string::npos) << r.out;
}

TEST(HistoryCli, ACorruptOrLockedDatabaseIsExitTwoAndUnchanged) {
  const std::string dir = testing::temp_dir(), db = dir + "/h.db";
  testing::write_file(db, std::string(4096, 'z'));
  auto r = run_gpubench("history add --db " + db + " " + write_night(dir, 0));
  testing::cli::expect_usage_error(r, "file is not a database");
  EXPECT_EQ(testing::read_file(db), std::string(4096, 'z'));
  testing::cli::expect_usage_error(run_gpubench("history show --db " + db), "file is not a database");

  const std::string good = dir + "/good.db";
  ASSERT_EQ(run_gpubench("history add --db " + good + " " + write_night(dir, 0)).exit_code, 0);
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(good.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  r = run_gpubench("history add --busy-timeout 0.2 --db " + good + " " + write_night(dir, 1));
  EXPECT_EQ(r.exit_code, 2) << testing::describe(r);
  EXPECT_NE(r.err.find("database is locked"), std::string::npos) << r.err;
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  r = run_gpubench("history show --db " + good);
  EXPECT_NE(r.out.find("series from 1 runs."), std::string::npos) << r.out;
}

TEST(HistoryCli, TwoProcessesAddingAtOnceLoseNothing) {
  const std::string dir = testing::temp_dir(), db = dir + "/h.db";
  const std::string a = nights(dir, 10, -1, "node1"), b = nights(dir, 10, -1, "node2");
  const auto r = testing::run_command("'" GPUBENCH_EXE "' history add --db " + db + a + " >/dev/null & '" GPUBENCH_EXE
                                      "' history add --db " + db + b + " >/dev/null & wait");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const auto shown = run_gpubench("history show --format json --db " + db);
  EXPECT_EQ(testing::cli::parse_json(shown.out)["runs"].size(), 20u);
}

TEST(HistoryCli, BadUsageIsExitTwo) {
  const std::string dir = testing::temp_dir();
  testing::cli::expect_usage_error(run_gpubench("history show --db " + dir + "/none.db"), "cannot open");
  EXPECT_FALSE(std::filesystem::exists(dir + "/none.db"));
  const std::string db = dir + "/h.db";
  ASSERT_EQ(run_gpubench("history add --db " + db + " " + write_night(dir, 0)).exit_code, 0);
  testing::cli::expect_usage_error(run_gpubench("history show --since yesterday --db " + db), "--since");
  testing::cli::expect_usage_error(run_gpubench("history show --name '(' --db " + db), "--name");
  const auto r = testing::run_gpubench_to("/dev/null", "history show", "GPUBENCH_HISTORY_DB=");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no database"), std::string::npos) << r.err;
}

// scripts/nightly.sh with a history database: the stand-in gpubench (tests/nightly_stand_in.cpp)
// "runs" the night's file; compare, check and history are the real commands.
struct Night {
  int exit_code = -1;
  std::string summary;
};

Night nightly(const std::string& dir, const std::string& run, int night, const std::string& db) {
  char day[16];
  std::snprintf(day, sizeof day, "2027-01-%02d", night + 1);
  const std::string command = "env STAND_IN_RUN='" + run + "' GPUBENCH='" GPUBENCH_STAND_IN "' '" GPUBENCH_SOURCE_DIR
                              "/scripts/nightly.sh' --results-dir '" + dir + "/results' --date " + day +
                              " --baseline '" + dir + "/baseline.json' --history-db '" + db + "' >'" + dir +
                              "/summary.txt' 2>/dev/null";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, testing::read_file(dir + "/summary.txt")};
}

TEST(HistoryCli, NightlyAddsEachNightAndSaysWhetherTonightContinuesADrift) {
  const std::string dir = testing::temp_dir(), db = dir + "/h.db";
  // A baseline of the healthy night, loose enough that a 10 % drop still passes check.
  ASSERT_EQ(run_gpubench("baseline " + write_night(dir, 0) + " --tolerance 30 --out " + dir + "/baseline.json").exit_code, 0);
  Night n;
  for (int night = 0; night < 12; ++night) {
    n = nightly(dir, write_night(dir, night, night >= 8 ? 0.9 : 1), night, db);
    EXPECT_EQ(n.exit_code, 0) << n.summary;
    if (night == 7) EXPECT_NE(n.summary.find("0 steps, 0 drifts (0 continuing tonight), 0 for the worse |"),
                              std::string::npos) << n.summary;
  }
  // Tonight is the fourth night of a 10 % drop: a step, reported, that does not fail the night.
  EXPECT_NE(n.summary.find("history: "), std::string::npos) << n.summary;
  EXPECT_EQ(n.summary.find(" 0 steps"), std::string::npos) << n.summary;
  EXPECT_EQ(run_gpubench("history show --format json --db " + db).exit_code, 0);

  testing::write_file(db, "not a database");
  n = nightly(dir, write_night(dir, 12), 12, db);
  EXPECT_EQ(n.exit_code, 2) << n.summary;
  EXPECT_NE(n.summary.find("history: ERROR exit 2: gpubench: " + db), std::string::npos) << n.summary;
}

}  // namespace
}  // namespace gpubench
