#include "harness/report/report.h"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "gpubench_git_commit.h"
#include "harness/report/exit_codes.h"
#include "harness/report/text_table.h"

namespace gpubench {

Format parse_format(const std::string& name) {
  if (name == "table") return Format::kTable;
  if (name == "json") return Format::kJson;
  if (name == "csv") return Format::kCsv;
  if (name == "md" || name == "markdown") return Format::kMarkdown;
  throw UsageError{kExitBadInput, "unknown format '" + name + "' (table, json, csv, md)"};
}

namespace {

std::string iso_date() {
  const std::time_t now = std::time(nullptr);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S%z", std::localtime(&now));
  return buffer;
}

nlohmann::json google_benchmark_context() {
  const auto& cpu = benchmark::CPUInfo::Get();
  nlohmann::json caches = nlohmann::json::array();
  for (const auto& c : cpu.caches)
    caches.push_back({{"type", c.type}, {"level", c.level}, {"size", c.size}, {"num_sharing", c.num_sharing}});
  char executable[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", executable, sizeof executable - 1);
  return {{"date", iso_date()},
          {"host_name", benchmark::SystemInfo::Get().name},
          {"executable", n > 0 ? std::string(executable, static_cast<std::size_t>(n)) : "gpubench"},
          {"num_cpus", cpu.num_cpus},
          {"mhz_per_cpu", static_cast<int>(cpu.cycles_per_second / 1e6)},
          {"cpu_scaling_enabled", cpu.scaling == benchmark::CPUInfo::ENABLED},
          {"caches", caches},
          {"load_avg", cpu.load_avg},
          {"library_build_type", "release"}};
}

std::vector<std::string> row_for(const nlohmann::json& entry) {
  const auto& g = entry.at("gpubench");
  const std::string status = g.value("status", "failed");
  const std::string primary = g.value("primary_metric", "");
  std::string name = entry.value("name", "");
  if (entry.value("repetitions", 1) > 1) name += " #" + std::to_string(entry.value("repetition_index", 0));
  if (status != "ok") return {name, "", "", "", "", status + ": " + g.value("error", "")};
  const auto& metric = g.at("metrics").at(primary);
  const std::string value = format_number(metric.value("median", 0.0)) + " " + metric.value("unit", "");
  const std::string noise = format_number(metric.value("cv_pct", 0.0), 2) + "%";
  const auto& pct = g.value("pct_of_peak", nlohmann::json());
  const std::string peak = pct.is_number() ? format_number(pct.get<double>(), 3) + "%" : "";
  const bool throttled = g.value("telemetry", nlohmann::json::object()).value("throttled", false);
  return {name, primary, value, noise, peak, throttled ? "ok (throttled)" : "ok"};
}

}  // namespace

nlohmann::json make_document(const Context& context, const std::vector<BenchResult>& results,
                             const std::string& command_line) {
  nlohmann::json doc;
  doc["context"] = google_benchmark_context();
  nlohmann::json g = to_json(context);
  g["schema"] = "gpubench/1";
  g["version"] = GPUBENCH_VERSION;
  g["git_commit"] = GPUBENCH_GIT_COMMIT;
  g["command_line"] = command_line;
  doc["context"]["gpubench"] = std::move(g);
  doc["benchmarks"] = nlohmann::json::array();
  for (const auto& r : results) doc["benchmarks"].push_back(to_json(r));
  return doc;
}

std::string render(const nlohmann::json& document, Format format) {
  if (format == Format::kJson) return document.dump(2) + "\n";
  TextTable table;
  table.header = {"benchmark", "metric", "median", "noise (cv)", "% of peak", "status"};
  table.right_align = {false, false, true, true, true, false};
  int ok = 0, failed = 0, skipped = 0, throttled = 0;
  for (const auto& entry : document.at("benchmarks")) {
    table.rows.push_back(row_for(entry));
    const std::string status = entry.at("gpubench").value("status", "failed");
    ok += status == "ok";
    skipped += status == "skipped";
    failed += status == "failed" || status == "timeout";
    throttled += table.rows.back().back() == "ok (throttled)";
  }
  if (format == Format::kCsv) return table.to_csv();
  std::string summary = std::to_string(ok) + " ok, " + std::to_string(failed) + " failed, " +
                        std::to_string(skipped) + " skipped";
  if (throttled) summary += "; " + std::to_string(throttled) + " measured while the GPU throttled";
  if (format == Format::kMarkdown) return table.to_markdown() + "\n" + summary + "\n";
  return table.to_text() + summary + "\n";
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  const std::string temp = (dir / ("." + target.filename().string() + ".tmp-" + std::to_string(getpid()))).string();
  FILE* file = std::fopen(temp.c_str(), "wb");
  if (!file) throw UsageError{kExitBadInput, path + ": cannot write: " + std::strerror(errno)};
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size() &&
                       std::fflush(file) == 0 && fsync(fileno(file)) == 0;
  const int write_errno = errno;
  if (std::fclose(file) != 0 || !written) {
    std::remove(temp.c_str());
    throw UsageError{kExitBadInput, path + ": cannot write: " + std::strerror(write_errno)};
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int rename_errno = errno;
    std::remove(temp.c_str());
    throw UsageError{kExitBadInput, path + ": cannot write: " + std::strerror(rename_errno)};
  }
}

}  // namespace gpubench
