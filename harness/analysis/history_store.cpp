#include "harness/analysis/history_store.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <regex>
#include <tuple>

#include "harness/analysis/gpu_names.h"
#include "harness/analysis/history_sqlite.h"
#include "harness/analysis/judgeable.h"
#include "harness/model/health.h"

namespace gpubench {
namespace {

// migrations[v] takes a database from user_version v to v + 1, in the transaction that sets it.
// Figures are keyed run first: a run's figures are appended together (a few pages written per
// add, where series first would touch a page per figure), and show and drift read them all.
const std::vector<const char*> kMigrations = {
    R"(CREATE TABLE runs (
         id INTEGER PRIMARY KEY,
         host TEXT NOT NULL, date TEXT NOT NULL, time REAL NOT NULL, complete INTEGER NOT NULL,
         version TEXT NOT NULL, git_commit TEXT NOT NULL, command_line TEXT NOT NULL,
         driver TEXT NOT NULL, cuda_driver TEXT NOT NULL, cuda_runtime TEXT NOT NULL,
         cublas TEXT NOT NULL, cudnn TEXT NOT NULL, nccl TEXT NOT NULL,
         gpu_models TEXT NOT NULL, gpu_uuids TEXT NOT NULL, health TEXT NOT NULL, source TEXT NOT NULL,
         UNIQUE (host, date, git_commit, command_line, gpu_uuids));
       CREATE INDEX runs_by_time ON runs (time);
       CREATE TABLE series (
         id INTEGER PRIMARY KEY,
         name TEXT NOT NULL, gpu_uuid TEXT NOT NULL, metric TEXT NOT NULL,
         unit TEXT NOT NULL, higher_is_better INTEGER NOT NULL,
         UNIQUE (name, gpu_uuid, metric));
       CREATE TABLE figures (
         series_id INTEGER NOT NULL REFERENCES series (id),
         run_id INTEGER NOT NULL REFERENCES runs (id),
         median REAL NOT NULL, noise_pct REAL NOT NULL, samples INTEGER NOT NULL,
         PRIMARY KEY (run_id, series_id)) WITHOUT ROWID;)",
};

int user_version(SqliteDb& db) {
  SqliteStatement version = db.prepare("PRAGMA user_version");
  const int v = version.step() ? static_cast<int>(version.integer(0)) : 0;
  while (version.step()) {
  }
  return v;
}

void migrate(SqliteDb& db) {
  if (user_version(db) == kHistorySchemaVersion) return;
  SqliteTransaction transaction(db);
  const int found = user_version(db);  // again, under the write lock: another writer may have migrated
  if (found > kHistorySchemaVersion)
    throw UsageError{kExitBadInput, db.path() + ": history schema version " + std::to_string(found) +
                                        " is newer than this gpubench's (" + std::to_string(kHistorySchemaVersion) + ")"};
  for (int v = found; v < kHistorySchemaVersion; ++v) db.exec(kMigrations[v]);
  db.exec("PRAGMA user_version = " + std::to_string(kHistorySchemaVersion));
  transaction.commit();
}

std::string value_of(const ResultFile& run, const char* field) {
  auto it = run.versions.find(field);
  return it == run.versions.end() ? "" : it->second;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ",") + part;
  return out;
}

// The findings that are not passes, over every GPU: what the run's health state was.
std::string health_of(const ResultFile& run) {
  std::vector<std::string> seen;
  for (const GpuInfo& gpu : run.gpus) {
    std::vector<HealthFinding> findings = gpu_health(gpu, gpu.nvlinks_active.value_or(0));
    for (HealthFinding& f : counter_health(gpu, CounterLimits{})) findings.push_back(std::move(f));
    for (const HealthFinding& f : findings)
      if (f.bad || f.notice || !f.unknown.empty())
        seen.push_back("gpu" + std::to_string(gpu.index) + " " + to_string(f.rule) + ": " +
                       (f.bad ? "bad" : f.notice ? "notice" : "unknown") + ", " + f.text);
  }
  std::string out;
  for (const std::string& s : seen) out += (out.empty() ? "" : "; ") + s;
  return out.empty() ? "ok" : out;
}

// The GPUs a figure is of: those its name names, or (a node total, a figure of the host) all.
std::string figure_gpus(const ResultFile& run, const std::string& name) {
  std::vector<int> indices;
  generalise_gpu_name(name, &indices);
  std::vector<std::string> uuids;
  for (const GpuInfo& gpu : run.gpus)
    if (indices.empty() || std::find(indices.begin(), indices.end(), gpu.index) != indices.end())
      uuids.push_back(gpu.uuid);
  if (!indices.empty() && uuids.size() > 1) {  // in name order, not index order
    uuids.clear();
    for (int i : indices)
      for (const GpuInfo& gpu : run.gpus)
        if (gpu.index == i) uuids.push_back(gpu.uuid);
  }
  return joined(uuids);
}

}  // namespace

std::optional<double> parse_history_date(const std::string& text) {
  int y, mo, d, h = 0, mi = 0, consumed = 0;
  double s = 0;
  std::tm tm{};
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &consumed) != 3 || consumed != 10) return std::nullopt;
  std::size_t at = 10;
  double offset_s = 0;
  if (at < text.size()) {
    if (text[at] != 'T' && text[at] != ' ') return std::nullopt;
    int n = 0;
    if (std::sscanf(text.c_str() + at + 1, "%2d:%2d:%lf%n", &h, &mi, &s, &n) != 3) return std::nullopt;
    at += 1 + n;
    const std::string zone = text.substr(at);
    int zh = 0, zm = 0;
    if (zone == "Z" || zone.empty()) {
    } else if ((zone.size() == 5 && std::sscanf(zone.c_str() + 1, "%2d%2d", &zh, &zm) == 2) ||
               (zone.size() == 6 && zone[3] == ':' && std::sscanf(zone.c_str() + 1, "%2d:%2d", &zh, &zm) == 2)) {
      if (zone[0] != '+' && zone[0] != '-') return std::nullopt;
      offset_s = (zone[0] == '-' ? -1 : 1) * (zh * 3600.0 + zm * 60.0);
    } else {
      return std::nullopt;
    }
  }
  tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d, tm.tm_hour = h, tm.tm_min = mi;
  const std::tm asked = tm;
  const std::time_t seconds = timegm(&tm);
  // timegm normalises 2026-02-30 to March: a date it had to move is not a calendar date.
  if (tm.tm_mday != asked.tm_mday || tm.tm_mon != asked.tm_mon || h > 23 || mi > 59 || !(s >= 0 && s < 61))
    return std::nullopt;
  return static_cast<double>(seconds) + s - offset_s;
}

std::string history_refusal(const ResultFile& run, const std::string& date) {
  std::string out;
  for (const UnjudgeableReason& reason : run.unjudgeable) out += (out.empty() ? "" : "\n") + reason.line();
  if (!parse_history_date(date))
    out += (out.empty() ? "" : "\n") + run.path + ": /context/date '" + date + "' is not a date: the run has no place in a series";
  return out;
}

HistoryStore::HistoryStore(const std::string& path, bool create, double busy_timeout_s)
    : db_(std::make_unique<SqliteDb>(path, create, busy_timeout_s)) {
  // A page from the file, before anything is written: a file that is not a database fails here.
  db_->exec("PRAGMA schema_version");
  if (create) db_->exec_waiting("PRAGMA journal_mode = WAL");
  // In WAL mode NORMAL cannot corrupt the database; a power loss may undo the last adds, which
  // the next night's collector adds again (adds are idempotent), and each add skips an fsync.
  db_->exec("PRAGMA foreign_keys = ON; PRAGMA cache_size = -65536; PRAGMA synchronous = NORMAL");
  migrate(*db_);
}

HistoryStore::~HistoryStore() = default;

std::int64_t HistoryStore::series_id(const std::string& name, const std::string& gpu_uuid, const std::string& metric,
                                     const MetricResult& figure) {
  const std::string key = name + '\n' + gpu_uuid + '\n' + metric;
  if (auto it = series_ids_.find(key); it != series_ids_.end()) return it->second;
  SqliteStatement insert = db_->prepare(
      "INSERT INTO series (name, gpu_uuid, metric, unit, higher_is_better) VALUES (?, ?, ?, ?, ?) "
      "ON CONFLICT DO NOTHING");
  insert.bind(1, name).bind(2, gpu_uuid).bind(3, metric).bind(4, figure.unit)
      .bind(5, std::int64_t{figure.higher_is_better}).run();
  SqliteStatement select = db_->prepare("SELECT id FROM series WHERE name = ? AND gpu_uuid = ? AND metric = ?");
  select.bind(1, name).bind(2, gpu_uuid).bind(3, metric);
  if (!select.step()) db_->fail("history database: a series vanished");
  const std::int64_t id = select.integer(0);
  while (select.step()) {
  }
  return series_ids_[key] = id;
}

AddOutcome HistoryStore::add(const ResultFile& run, const std::string& date, const std::string& source) {
  const std::optional<double> time = parse_history_date(date);
  if (!time) throw UsageError{kExitBadInput, run.path + ": /context/date '" + date + "' is not a date"};
  std::vector<std::string> models, uuids;
  for (const GpuInfo& gpu : run.gpus) models.push_back(gpu.name), uuids.push_back(gpu.uuid);
  try {
    SqliteTransaction transaction(*db_);
    SqliteStatement insert = db_->prepare(
        "INSERT INTO runs (host, date, time, complete, version, git_commit, command_line, driver, cuda_driver, "
        "cuda_runtime, cublas, cudnn, nccl, gpu_models, gpu_uuids, health, source) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
    insert.bind(1, run.host_name).bind(2, date).bind(3, *time).bind(4, std::int64_t{run.complete});
    int column = 5;
    for (const char* field : {"version", "git_commit", "command_line", "driver_version", "cuda_driver", "cuda_runtime",
                              "cublas", "cudnn", "nccl"})
      insert.bind(column++, value_of(run, field));
    insert.bind(14, joined(models)).bind(15, joined(uuids)).bind(16, health_of(run)).bind(17, source).run();
    SqliteStatement changes = db_->prepare("SELECT changes()");
    const bool added = changes.step() && changes.integer(0) == 1;
    while (changes.step()) {
    }
    if (!added) return AddOutcome::kAlreadyThere;  // the transaction rolls back: nothing to write
    const std::int64_t run_id = db_->last_insert_rowid();
    SqliteStatement figure = db_->prepare(
        "INSERT INTO figures (series_id, run_id, median, noise_pct, samples) VALUES (?, ?, ?, ?, ?)");
    for (const BenchmarkResult& b : run.benchmarks) {
      if (!b.ok()) continue;
      const std::string gpus = figure_gpus(run, b.name);
      for (const auto& [metric, m] : b.metrics)
        figure.bind(1, series_id(b.name, gpus, metric, m)).bind(2, run_id).bind(3, m.median).bind(4, m.noise_pct)
            .bind(5, static_cast<std::int64_t>(m.values.size())).run();
    }
    transaction.commit();
    return AddOutcome::kAdded;
  } catch (...) {
    series_ids_.clear();  // series added in the transaction that failed are gone
    throw;
  }
}

namespace {

struct SeriesRow {
  std::string name, gpu_uuid, metric, unit;
  bool higher_is_better = true;
};

std::regex name_pattern(const std::string& regex) {
  try {
    return std::regex(regex);
  } catch (const std::regex_error& error) {
    throw UsageError{kExitBadInput, "--name: bad regular expression '" + regex + "': " + error.what()};
  }
}

HistoryRun run_of(const SqliteStatement& row) {
  HistoryRun r;
  int c = 0;
  r.id = row.integer(c++);
  r.host = row.text(c++), r.date = row.text(c++);
  r.time = row.real(c++);
  r.complete = row.integer(c++) != 0;
  for (std::string* field : {&r.version, &r.git_commit, &r.command_line, &r.driver, &r.cuda_driver, &r.cuda_runtime,
                             &r.cublas, &r.cudnn, &r.nccl, &r.gpu_models, &r.gpu_uuids, &r.health, &r.source})
    *field = row.text(c++);
  return r;
}

}  // namespace

HistoryData HistoryStore::read(const HistoryFilter& filter) {
  const std::regex pattern = name_pattern(filter.name_regex);
  const bool by_gpu = !filter.gpu.empty();
  // One read transaction: a writer adding a run meanwhile is not half seen.
  SqliteTransaction snapshot(*db_, false);
  HistoryData data;
  std::unordered_map<std::int64_t, std::size_t> run_index;
  SqliteStatement runs = db_->prepare(
      "SELECT id, host, date, time, complete, version, git_commit, command_line, driver, cuda_driver, cuda_runtime, "
      "cublas, cudnn, nccl, gpu_models, gpu_uuids, health, source FROM runs WHERE time >= ? ORDER BY time, id");
  runs.bind(1, filter.since.value_or(-1e300));
  while (runs.step()) {
    HistoryRun r = run_of(runs);
    if (!filter.host.empty() && r.host != filter.host) continue;
    run_index[r.id] = data.runs.size();
    data.runs.push_back(std::move(r));
  }
  // Each series row of the filter, with the group its figures join: itself, or (per_host) every
  // row of its name and metric.
  std::unordered_map<std::int64_t, std::pair<SeriesRow, std::size_t>> series;
  std::map<std::pair<std::string, std::string>, std::size_t> groups_by_figure;
  SqliteStatement series_rows = db_->prepare("SELECT id, name, gpu_uuid, metric, unit, higher_is_better FROM series");
  while (series_rows.step()) {
    SeriesRow s{series_rows.text(1), series_rows.text(2), series_rows.text(3), series_rows.text(4),
                series_rows.integer(5) != 0};
    if (by_gpu && s.gpu_uuid.find(filter.gpu) == std::string::npos) continue;
    if (!filter.name_regex.empty() && !std::regex_search(s.name, pattern)) continue;
    if (filter.per_host) s.gpu_uuid.clear();
    const std::size_t group = filter.per_host ? groups_by_figure.emplace(std::pair(s.name, s.metric), series.size())
                                                    .first->second
                                              : series.size();
    series.emplace(series_rows.integer(0), std::pair(std::move(s), group));
  }
  std::unordered_map<std::string, std::size_t> host_ids;
  std::vector<std::size_t> host_of_run;
  for (const HistoryRun& r : data.runs) host_of_run.push_back(host_ids.emplace(r.host, host_ids.size()).first->second);
  // Series by host and group: integer keys, since this is the loop over every figure.
  std::unordered_map<std::uint64_t, HistorySeries> grouped;
  SqliteStatement figures = db_->prepare("SELECT series_id, run_id, median, noise_pct, samples FROM figures");
  while (figures.step()) {
    const auto s = series.find(figures.integer(0));
    if (s == series.end()) continue;
    const auto r = run_index.find(figures.integer(1));
    if (r == run_index.end()) continue;
    const auto& [row, group] = s->second;
    HistorySeries& out = grouped[static_cast<std::uint64_t>(group) * host_ids.size() + host_of_run[r->second]];
    if (out.points.empty()) out = {data.runs[r->second].host, row.name, row.gpu_uuid, row.metric, row.unit,
                                   row.higher_is_better, {}};
    out.points.push_back({r->second, figures.real(2), figures.real(3), figures.integer(4)});
  }
  snapshot.commit();
  for (auto& [key, s] : grouped) {
    // Runs are in date order: a series' points by date.
    std::sort(s.points.begin(), s.points.end(), [](const HistoryPoint& a, const HistoryPoint& b) { return a.run < b.run; });
    data.series.push_back(std::move(s));
  }
  std::sort(data.series.begin(), data.series.end(), [](const HistorySeries& a, const HistorySeries& b) {
    return std::tie(a.host, a.name, a.metric, a.gpu_uuid) < std::tie(b.host, b.name, b.metric, b.gpu_uuid);
  });
  return data;
}

}  // namespace gpubench
