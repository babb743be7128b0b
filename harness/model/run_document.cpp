#include "harness/model/run_document.h"

#include <cmath>
#include <map>
#include <set>

#include "gpubench_git_commit.h"

namespace gpubench {
namespace {

using nlohmann::json;

constexpr const char* kSchema = "gpubench/1";
// Google Benchmark's JSON layout version that these files follow (family_index and
// per_family_instance_index, aggregate_name, skipped).
constexpr int kGoogleBenchmarkSchemaVersion = 1;

json host_json(const HostInfo& h) {
  json caches = json::array();
  for (const auto& c : h.caches)
    caches.push_back({{"type", c.type}, {"level", c.level}, {"size", c.size}, {"num_sharing", c.num_sharing}});
  return {{"date", h.date}, {"host_name", h.host_name}, {"executable", h.executable},
          {"num_cpus", h.num_cpus}, {"mhz_per_cpu", h.mhz_per_cpu},
          {"cpu_scaling_enabled", h.cpu_scaling_enabled}, {"caches", caches}, {"load_avg", h.load_avg},
          {"library_build_type", "release"},
          // The library whose conventions the file follows is gpubench, not Google Benchmark.
          {"library_version", "gpubench " GPUBENCH_VERSION},
          {"json_schema_version", kGoogleBenchmarkSchemaVersion}};
}

HostInfo read_host(const JsonAt& context) {
  HostInfo h;
  h.date = optional_string(context, "date");
  h.host_name = optional_string(context, "host_name");
  h.executable = optional_string(context, "executable");
  h.num_cpus = optional_int(context, "num_cpus");
  h.mhz_per_cpu = optional_number(context, "mhz_per_cpu");
  h.cpu_scaling_enabled = optional_bool(context, "cpu_scaling_enabled").value_or(false);
  if (auto caches = context.find("caches"))
    for (const JsonAt& c : caches->items())
      h.caches.push_back({optional_string(c, "type"), optional_int(c, "level"),
                          static_cast<long long>(optional_size(c, "size")), optional_int(c, "num_sharing")});
  if (auto load = context.find("load_avg"))
    for (const JsonAt& v : load->items()) h.load_avg.push_back(v.num());
  return h;
}

// Google Benchmark's aggregates of a benchmark's repetitions, over its ok ones: what
// compare.py shows and tests. The cv is a fraction, as Google Benchmark writes it.
std::vector<json> aggregates(const std::vector<const BenchResult*>& repetitions, const json& indices) {
  std::vector<const BenchResult*> ok;
  for (const BenchResult* r : repetitions)
    if (r->status == Status::kOk) ok.push_back(r);
  if (ok.size() < 2) return {};
  std::map<std::string, std::vector<double>> series;  // real_time, cpu_time and each flat counter
  for (const BenchResult* r : ok) {
    series["real_time"].push_back(real_time_ns(*r));
    if (r->cpu_time_ns) series["cpu_time"].push_back(*r->cpu_time_ns);
    for (const auto& [name, metric] : r->metrics)
      if (metric.summary().samples > 0) series[name].push_back(metric.summary().median);
  }
  std::vector<json> out;
  for (const char* aggregate : {"mean", "median", "stddev", "cv"}) {
    const std::string kind = aggregate;
    json entry = {{"name", ok[0]->name + "_" + kind}, {"run_name", ok[0]->name}, {"run_type", "aggregate"},
                  {"repetitions", ok[0]->repetitions}, {"threads", 1}, {"aggregate_name", kind},
                  {"aggregate_unit", kind == "cv" ? "percentage" : "time"},
                  {"iterations", ok.size()}, {"time_unit", "ns"}};
    entry.update(indices);
    for (const auto& [name, values] : series) {
      if (values.size() != ok.size()) continue;  // a counter not every repetition has
      const Summary s = summarize(values);
      const double value = kind == "mean" ? s.mean : kind == "median" ? s.median
                         : kind == "stddev" ? s.stddev : s.cv_pct / 100;
      entry[name] = std::isfinite(value) ? json(value) : json(nullptr);
    }
    out.push_back(std::move(entry));
  }
  return out;
}

json benchmarks_json(const std::vector<BenchResult>& results) {
  // Google Benchmark numbers families and their instances in order of first appearance.
  std::map<std::string, int> family_index, instance_index, last_of_name;
  std::map<std::string, int> instances_in_family;
  std::map<std::string, std::vector<const BenchResult*>> by_name;
  std::set<std::string> with_ok_repetition;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const BenchResult& r = results[i];
    family_index.try_emplace(r.family, static_cast<int>(family_index.size()));
    if (instance_index.try_emplace(r.name, instances_in_family[r.family]).second) ++instances_in_family[r.family];
    last_of_name[r.name] = static_cast<int>(i);
    by_name[r.name].push_back(&r);
    if (r.status == Status::kOk) with_ok_repetition.insert(r.name);
  }
  json out = json::array();
  for (std::size_t i = 0; i < results.size(); ++i) {
    const BenchResult& r = results[i];
    const json indices = {{"family_index", family_index[r.family]},
                          {"per_family_instance_index", instance_index[r.name]}};
    json entry = to_json(r);
    entry.update(indices);
    // compare.py reads time_unit on every entry of a name once one of them has it, and pairs
    // those of the first entry's unit: a repetition not ok beside ok ones ("ns") says "s" (its
    // zero times are zero in any unit), so that it stays out of the ok repetitions' pairs.
    if (r.status != Status::kOk && with_ok_repetition.count(r.name)) entry["time_unit"] = "s";
    out.push_back(std::move(entry));
    if (last_of_name[r.name] == static_cast<int>(i))
      for (json& aggregate : aggregates(by_name[r.name], indices)) out.push_back(std::move(aggregate));
  }
  return out;
}

}  // namespace

RunDocument start_run_document(const Context& context, const std::string& command_line) {
  RunDocument doc;
  doc.host = capture_host();
  doc.context = context;
  doc.version = GPUBENCH_VERSION;
  doc.git_commit = GPUBENCH_GIT_COMMIT;
  doc.command_line = command_line;
  return doc;
}

json context_json(const RunDocument& doc) {
  json context = host_json(doc.host);
  json g = to_json(doc.context);
  g["schema"] = kSchema;
  g["version"] = doc.version;
  g["git_commit"] = doc.git_commit;
  g["command_line"] = doc.command_line;
  g["config"] = doc.config;
  g["complete"] = doc.complete;
  g["interrupted"] = doc.interrupted ? json(*doc.interrupted) : json(nullptr);
  context["gpubench"] = std::move(g);
  return context;
}

json to_json(const RunDocument& doc) {
  return {{"context", context_json(doc)}, {"benchmarks", benchmarks_json(doc.results)}};
}

RunDocument read_run_header(const JsonAt& root) {
  RunDocument doc;
  const JsonAt context = root.at("context");
  const JsonAt g = context.at("gpubench");
  const JsonAt schema = g.at("schema");
  if (schema.str() != kSchema)
    schema.fail("unsupported schema \"" + schema.str() + "\" (this gpubench reads \"" + kSchema + "\")");
  doc.host = read_host(context);
  doc.context = read_context(g);
  for (auto [key, field] : {std::pair{"version", &doc.version}, {"git_commit", &doc.git_commit},
                            {"command_line", &doc.command_line}})
    if (auto node = g.find(key)) *field = scalar_text(*node);
  if (auto config = g.find("config")) doc.config = config->get();
  // Files from before these fields were written are whole documents of finished runs.
  doc.complete = optional_bool(g, "complete").value_or(true);
  if (auto interrupted = g.find("interrupted")) doc.interrupted = interrupted->str();
  return doc;
}

std::optional<BenchResult> read_run_entry(const JsonAt& entry) {
  if (auto type = entry.find("run_type"); type && type->str() == "aggregate") return std::nullopt;
  return read_bench_result(entry);
}

RunDocument read_run_document(const json& document, const std::string& file) {
  const JsonAt root(document, file);
  RunDocument doc = read_run_header(root);
  for (const JsonAt& entry : root.at("benchmarks").items())
    if (auto result = read_run_entry(entry)) doc.results.push_back(std::move(*result));
  return doc;
}

}  // namespace gpubench
