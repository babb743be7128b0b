#pragma once
// The run history (DESIGN.md, "History"): runs kept in an SQLite database, read back as series,
// one per node, figure (benchmark name, GPU UUID, metric). docs/history.md has the schema.
//
// Many nodes' results may be added at once from a shared collector: the database is in WAL mode,
// waits up to a busy timeout for another writer, and adds each run in one transaction, so that a
// failure (a corrupt file, a lock held past the timeout) changes nothing. A run's identity is its
// host, start date, git commit, command line and GPU UUIDs: the same run added twice (the same
// file, or a copy of it from elsewhere) is kept once.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "harness/model/result_file.h"

namespace gpubench {

class SqliteDb;

// The schema version this build writes (PRAGMA user_version); older databases are migrated.
constexpr int kHistorySchemaVersion = 1;

struct HistoryRun {
  std::int64_t id = 0;
  std::string host, date;  // date as the file states it
  double time = 0;         // the date in seconds since 1970 (UTC)
  bool complete = true;
  std::string version, git_commit, command_line;
  std::string driver, cuda_driver, cuda_runtime, cublas, cudnn, nccl;
  std::string gpu_models, gpu_uuids;  // comma-separated, in GPU index order
  std::string health;  // "ok", else the health findings that are bad or unknown, "; "-separated
  std::string source;  // the file it was added from
};

struct HistoryPoint {
  std::size_t run = 0;  // index into HistoryData::runs
  double median = 0, noise_pct = 0;
  std::int64_t samples = 0;
};

struct HistorySeries {
  std::string host, name, gpu_uuid, metric, unit;  // gpu_uuid: "" in a series per host
  bool higher_is_better = true;
  std::vector<HistoryPoint> points;  // in date order
};

struct HistoryFilter {
  std::string host, gpu;     // exact host name; GPU UUID (or a prefix of it)
  std::string name_regex;    // over benchmark names (std::regex, searched)
  std::optional<double> since;  // seconds since 1970: runs from then on
  // A series per host and figure, whatever GPU measured it (its UUID then left empty): a node
  // whose GPUs were replaced, or cloud nodes of one name on other GPUs each night, as one series
  // in which a GPU change is a change of context. Otherwise a series per GPU.
  bool per_host = false;
};

struct HistoryData {
  std::vector<HistoryRun> runs;       // the runs the series' points come from, in date order
  std::vector<HistorySeries> series;  // by host, name, metric, GPU
};

enum class AddOutcome { kAdded, kAlreadyThere };

class HistoryStore {
 public:
  // create: make the database when absent (history add); show and drift need it to exist.
  HistoryStore(const std::string& path, bool create, double busy_timeout_s = 10);
  ~HistoryStore();

  // `run` as judge_run left it, with no reason against it (history_refusal says why not);
  // `source` the file it came from.
  AddOutcome add(const ResultFile& run, const std::string& date, const std::string& source);
  HistoryData read(const HistoryFilter& filter);

 private:
  std::int64_t series_id(const std::string& name, const std::string& gpu_uuid, const std::string& metric,
                         const MetricResult& figure);
  std::unique_ptr<SqliteDb> db_;
  std::unordered_map<std::string, std::int64_t> series_ids_;
};

// Why `run` (judged) cannot enter the history, "" when it can: the verdict rules' reasons
// (judgeable.h), and a date that is not one.
std::string history_refusal(const ResultFile& run, const std::string& date);

// An ISO 8601 date-time as Google Benchmark writes it ("2026-12-01T12:45:09+0000"; also
// "+00:00", "Z", fractions of a second) or a calendar date ("2026-12-01", midnight UTC), in
// seconds since 1970; nothing when it is neither.
std::optional<double> parse_history_date(const std::string& text);

}  // namespace gpubench
