#include "harness/analysis/baseline.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "harness/analysis/gpu_names.h"
#include "harness/model/number_rules.h"
#include "harness/model/stats.h"
#include "harness/model/text_table.h"

namespace gpubench {

bool asks_for(const Baseline& b, HealthRule rule) {
  if (b.health.stated.count(policy_key(rule))) return true;
  switch (rule) {
    case HealthRule::kPcieWidth: return b.applies_to.pcie_width.has_value();
    case HealthRule::kPcieGen: return b.applies_to.pcie_gen.has_value();
    case HealthRule::kNvlink:
    case HealthRule::kNvlinkErrors: return b.applies_to.nvlinks_per_gpu.has_value();
    default: return false;
  }
}

bool valid_glob(const std::string& pattern, std::string* why) {
  auto bad = [why](const char* what) {
    if (why) *why = what;
    return false;
  };
  if (pattern.empty()) return bad("empty pattern");
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      if (++i == pattern.size()) return bad("trailing backslash");
    } else if (pattern[i] == '[') {
      std::size_t j = i + 1;
      if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) ++j;
      const std::size_t first = j;
      if (j < pattern.size() && pattern[j] == ']') ++j;  // "[]...]": a literal ']' first
      while (j < pattern.size() && pattern[j] != ']') ++j;
      if (j == pattern.size()) return bad("unterminated '[' bracket expression");
      if (j == first) return bad("empty '[]' bracket expression");
      i = j;
    }
  }
  return true;
}

namespace {

double read_pct(const JsonAt& node, double max) {
  const double pct = node.num();
  if (pct < 0 || pct >= max) node.fail("a percentage in [0, " + format_number(max) + ")");
  return pct;
}

std::optional<int> read_count(const JsonAt& obj, const char* key) {
  auto node = obj.find(key);
  if (!node) return std::nullopt;
  const long long v = node->integer();
  if (v < 0 || v > 1024) node->fail("out of range");
  return static_cast<int>(v);
}

AppliesTo read_applies_to(const JsonAt& node) {
  node.only_keys({"gpu_model", "nvlinks_per_gpu", "pcie_gen", "pcie_width"});
  AppliesTo a;
  a.gpu_model = node.at("gpu_model").str();
  if (a.gpu_model.empty()) node.at("gpu_model").fail("empty GPU model");
  a.nvlinks_per_gpu = read_count(node, "nvlinks_per_gpu");
  a.pcie_gen = read_count(node, "pcie_gen");
  a.pcie_width = read_count(node, "pcie_width");
  return a;
}

Expectation read_expectation(const JsonAt& node) {
  node.only_keys({"name", "pattern", "metric", "floor", "ceiling", "reference", "tolerance_pct",
                  "warn_pct", "min_gpus", "pairs", "note"});
  Expectation e;
  auto name = node.find("name");
  auto pattern = node.find("pattern");
  if (!name == !pattern) node.fail("give exactly one of \"name\" and \"pattern\"");
  e.is_pattern = static_cast<bool>(pattern);
  e.name = (e.is_pattern ? pattern : name)->str();
  std::string why;
  if (e.is_pattern && !valid_glob(e.name, &why)) pattern->fail("bad pattern \"" + e.name + "\": " + why);
  if (!e.is_pattern && e.name.empty()) name->fail("empty benchmark name");
  if (!e.is_pattern) {
    e.placeholders = gpu_placeholders(e.name);
    if (e.placeholders < 0)
      name->fail("\"" + e.name + "\" has glob characters other than GPU placeholders (gpu:*, src:*, dst:*, "
                 "peer:*); use \"pattern\" for patterns");
    if (e.placeholders > 2) name->fail("\"" + e.name + "\": at most two GPU placeholders (a pair)");
  }
  if (auto pairs = node.find("pairs")) {
    const std::string kind = pairs->str();
    if (kind != "ordered" && kind != "unordered") pairs->fail("expected \"ordered\" or \"unordered\"");
    if (e.placeholders != 2) pairs->fail("\"pairs\" goes with a name of two GPU placeholders only");
    e.unordered_pairs = kind == "unordered";
  }
  e.min_gpus = read_count(node, "min_gpus");
  if (e.min_gpus && *e.min_gpus < 1) node.at("min_gpus").fail("a GPU count >= 1");
  if (auto metric = node.find("metric")) {
    e.metric = metric->str();
    if (e.metric.empty()) metric->fail("empty metric name");
  }
  int bounds = 0;
  const std::pair<const char*, Bound> kinds[] = {
      {"floor", Bound::kFloor}, {"ceiling", Bound::kCeiling}, {"reference", Bound::kReference}};
  for (const auto& [key, bound] : kinds)
    if (auto v = node.find(key)) {
      ++bounds;
      e.bound = bound;
      e.value = v->num();
      // Every figure checked is a rate or a time: a bound at or below zero passes anything.
      if (!(e.value > 0)) v->fail(std::string("a ") + key + " must be > 0 (found " + format_number(e.value) + ")");
    }
  if (bounds != 1) node.fail("give exactly one of \"floor\", \"ceiling\" and \"reference\"");
  if (auto tol = node.find("tolerance_pct")) {
    if (e.bound != Bound::kReference) tol->fail("\"tolerance_pct\" goes with \"reference\" only");
    e.tolerance_pct = read_pct(*tol, 100);
  }
  if (auto warn = node.find("warn_pct")) e.warn_pct = read_pct(*warn, 100);
  if (auto note = node.find("note")) e.note = note->str();
  return e;
}

void read_run_spec(const JsonAt& node, RunSpec& run) {
  node.only_keys({"suites", "filter", "config", "quick"});
  if (auto suites = node.find("suites"))
    for (const JsonAt& s : suites->items()) run.suites.push_back(s.str());
  if (auto filter = node.find("filter")) {
    run.filter = filter->str();
    try {
      std::regex check(run.filter);
    } catch (const std::regex_error& e) {
      filter->fail(std::string("bad regex: ") + e.what());
    }
  }
  if (auto config = node.find("config")) run.config = config->str();
  if (auto quick = node.find("quick")) run.quick = quick->boolean();
}

}  // namespace

Baseline parse_baseline(const nlohmann::json& doc, const std::string& file) {
  const JsonAt root(doc, file);
  root.only_keys({"gpubench_baseline", "description", "applies_to", "run", "defaults", "health",
                  "benchmarks", "compare_tolerance"});
  const JsonAt version = root.at("gpubench_baseline");
  if (version.integer() != 1) version.fail("unsupported baseline format version (this gpubench reads 1)");
  Baseline b;
  b.path = file;
  if (auto description = root.find("description")) b.description = description->str();
  b.applies_to = read_applies_to(root.at("applies_to"));
  if (auto run = root.find("run")) read_run_spec(*run, b.run);
  if (auto defaults = root.find("defaults")) {
    defaults->only_keys({"warn_pct", "tolerance_pct"});
    if (auto warn = defaults->find("warn_pct")) b.warn_pct = read_pct(*warn, 100);
    if (auto tol = defaults->find("tolerance_pct")) b.tolerance_pct = read_pct(*tol, 100);
  }
  if (auto health = root.find("health")) b.health = read_health_policy(*health);
  const JsonAt benchmarks = root.at("benchmarks");
  for (const JsonAt& entry : benchmarks.items()) b.expectations.push_back(read_expectation(entry));
  if (b.expectations.empty()) benchmarks.fail("no benchmarks: a baseline that expects nothing passes any node");
  if (auto tolerance = root.find("compare_tolerance")) b.compare_tolerance = parse_tolerances(*tolerance);
  return b;
}

std::string locate_baseline_file(const Baseline& baseline, const std::string& name,
                                 const std::vector<std::string>& installed_configs) {
  namespace fs = std::filesystem;
  const fs::path path(name);
  if (path.is_absolute()) return name;
  std::vector<fs::path> tried{fs::path(baseline.path).parent_path() / path};
  const std::string prefix = "configs/";
  const std::string inside = name.compare(0, prefix.size(), prefix) == 0 ? name.substr(prefix.size()) : name;
  for (const std::string& dir : installed_configs) tried.push_back(fs::path(dir) / inside);
  std::string list;
  for (const fs::path& candidate : tried) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal().string();
    list += (list.empty() ? "" : ", ") + candidate.string();
  }
  throw UsageError{kExitBadInput, baseline.path + ": /run/config: cannot find \"" + name + "\" (looked at " + list + ")"};
}

Baseline parse_baseline_text(const std::string& text, const std::string& file) {
  return parse_baseline(parse_json_text(text, file), file);
}

Baseline load_baseline(const std::string& path) { return parse_baseline(read_json_file(path), path); }

nlohmann::json to_json(const Baseline& b) {
  nlohmann::json out = {{"gpubench_baseline", 1}};
  if (!b.description.empty()) out["description"] = b.description;
  nlohmann::json& a = out["applies_to"] = {{"gpu_model", b.applies_to.gpu_model}};
  const std::pair<const char*, const std::optional<int>*> counts[] = {
      {"nvlinks_per_gpu", &b.applies_to.nvlinks_per_gpu},
      {"pcie_gen", &b.applies_to.pcie_gen}, {"pcie_width", &b.applies_to.pcie_width}};
  for (const auto& [key, value] : counts)
    if (*value) a[key] = **value;
  out["run"] = {{"suites", b.run.suites}, {"quick", b.run.quick}};
  if (!b.run.filter.empty()) out["run"]["filter"] = b.run.filter;
  if (!b.run.config.empty()) out["run"]["config"] = b.run.config;
  out["defaults"] = {{"warn_pct", b.warn_pct}, {"tolerance_pct", b.tolerance_pct}};
  out["health"] = to_json(b.health);
  out["benchmarks"] = nlohmann::json::array();
  for (const Expectation& e : b.expectations) {
    nlohmann::json entry = {{e.is_pattern ? "pattern" : "name", e.name}};
    if (!e.metric.empty()) entry["metric"] = e.metric;
    entry[e.bound == Bound::kFloor ? "floor" : e.bound == Bound::kCeiling ? "ceiling" : "reference"] = e.value;
    if (e.tolerance_pct) entry["tolerance_pct"] = *e.tolerance_pct;
    if (e.warn_pct) entry["warn_pct"] = *e.warn_pct;
    if (e.unordered_pairs) entry["pairs"] = "unordered";
    if (e.min_gpus) entry["min_gpus"] = *e.min_gpus;
    if (!e.note.empty()) entry["note"] = e.note;
    out["benchmarks"].push_back(entry);
  }
  if (b.compare_tolerance) out["compare_tolerance"] = to_json(*b.compare_tolerance);
  return out;
}

namespace {

// Five significant digits: a readable file, and a bound moved by at most 0.005 %.
double round_figure(double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double scale = std::pow(10.0, 4 - std::floor(std::log10(std::fabs(v))));
  return std::round(v * scale) / scale;
}

std::string model_of(const ResultFile& run) {
  if (run.gpus.empty()) throw UsageError{kExitBadInput, run.path + ": the run's context lists no GPU"};
  for (const GpuInfo& g : run.gpus)
    if (g.name != run.gpus[0].name)
      throw UsageError{kExitBadInput, run.path + ": the run mixes GPU models (\"" + run.gpus[0].name +
                                          "\", \"" + g.name + "\"); a baseline is for one model"};
  return run.gpus[0].name;
}

}  // namespace

namespace {

// One benchmark's primary metric across the runs: what an entry is made from.
struct Measured {
  std::string metric, unit;
  bool higher_is_better = true;
  std::vector<double> medians;  // one per run that has it
};

// nullopt when some run has the benchmark not ok (a flaky figure is no reference), and for a
// difference of two figures: a bound a percentage away from a median near zero, or below it,
// would fail healthy runs; the figures it is made of carry the regression.
std::optional<Measured> measure(const std::vector<ResultFile>& runs, const std::string& name,
                                std::set<std::string>& suites) {
  Measured m;
  for (const ResultFile& run : runs) {
    const BenchmarkResult* bench = run.find(name);
    if (!bench) continue;
    if (!bench->ok() || !bench->metrics.count(bench->primary_metric)) return std::nullopt;
    const MetricResult& metric = bench->metrics.at(bench->primary_metric);
    if (metric.difference) return std::nullopt;
    m.metric = bench->primary_metric;
    m.unit = metric.unit;
    m.higher_is_better = metric.higher_is_better;
    m.medians.push_back(metric.median);
    suites.insert(bench->suite);
  }
  if (m.medians.empty()) return std::nullopt;
  return m;
}

// The benchmarks of one placeholder name: each GPU's (or pair's) median, and which GPUs.
struct Group {
  Measured first;
  std::vector<double> medians;  // one per member: its median across runs
  std::vector<std::vector<int>> gpus;
  std::size_t runs = 0;
};

Expectation entry_of(const std::string& name, const Group& g, double tolerance_pct, int node_gpus) {
  Expectation e;
  e.name = name;
  e.placeholders = gpu_placeholders(name);
  e.metric = g.first.metric;
  e.bound = g.first.higher_is_better ? Bound::kFloor : Bound::kCeiling;
  // The GPU that did worst sets the bound: every GPU of a healthy node must clear it.
  const double worst = g.first.higher_is_better ? *std::min_element(g.medians.begin(), g.medians.end())
                                                : *std::max_element(g.medians.begin(), g.medians.end());
  const double keep = 1 - tolerance_pct / 100;
  e.value = round_figure(g.first.higher_is_better ? worst * keep : worst / keep);
  e.unordered_pairs = e.placeholders == 2 && std::all_of(g.gpus.begin(), g.gpus.end(), [](const auto& p) {
                        return p.size() == 2 && p[0] < p[1];
                      });
  // A node-wide figure (all GPUs at once) was measured with this many GPUs.
  if (e.placeholders == 0 && node_gpus > 1) e.min_gpus = node_gpus;
  const std::string unit = g.first.unit.empty() ? "" : " " + g.first.unit;
  const std::string worst_of = std::string(g.first.higher_is_better ? "lowest" : "highest") + " of " +
                               std::to_string(g.medians.size()) + " medians, ";
  e.note = (g.medians.size() > 1 ? worst_of : "median ") + format_number(worst, 5) + unit + " over " +
           std::to_string(g.runs) + " run(s)";
  return e;
}

}  // namespace

Baseline make_baseline(const std::vector<ResultFile>& runs, double tolerance_pct,
                       const std::string& filter, int* skipped) {
  if (runs.empty()) throw UsageError{kExitBadInput, "baseline needs at least one result file"};
  for (const ResultFile& run : runs)
    if (!run.unjudgeable.empty()) throw UsageError{kExitFailure, run.unjudgeable.front().line()};
  if (const auto problem = number_range_problem(tolerance_pct, 0, 100, true))
    throw UsageError{kExitBadInput, "--tolerance: " + *problem};
  std::regex pattern;
  try {
    pattern = std::regex(filter);
  } catch (const std::regex_error& e) {
    throw UsageError{kExitBadInput, "--filter: bad regex \"" + filter + "\": " + e.what()};
  }
  const ResultFile& first = runs[0];
  Baseline b;
  b.applies_to.gpu_model = model_of(first);
  for (const ResultFile& run : runs)
    if (model_of(run) != b.applies_to.gpu_model)
      throw UsageError{kExitBadInput, run.path + ": GPU model \"" + model_of(run) + "\" differs from \"" +
                                          b.applies_to.gpu_model + "\" of " + first.path};
  // No link up, or none read, is no expectation: a PCIe node has none to expect.
  int links = 0;
  for (const GpuInfo& g : first.gpus) links = std::max(links, g.nvlinks_active.value_or(0));
  if (links > 0) b.applies_to.nvlinks_per_gpu = links;
  if (first.gpus[0].pcie.gen_max > 0) b.applies_to.pcie_gen = first.gpus[0].pcie.gen_max;
  if (first.gpus[0].pcie.width_max > 0) b.applies_to.pcie_width = first.gpus[0].pcie.width_max;
  b.health.stated = readable_checks(first);
  b.description = "Generated by gpubench baseline from " + std::to_string(runs.size()) +
                  " run(s) of " + b.applies_to.gpu_model + " with tolerance " +
                  format_number(tolerance_pct, 3) + "%";
  // check re-runs what the baseline was measured with: a --quick sweep has other figures.
  auto command = first.versions.find("command_line");
  if (command != first.versions.end()) {
    b.description += "; first run: " + command->second;
    b.run.quick = (" " + command->second + " ").find(" --quick ") != std::string::npos;
  }

  std::set<std::string> names, suites;
  for (const ResultFile& run : runs)
    for (const BenchmarkResult& bench : run.benchmarks)
      if (filter.empty() || std::regex_search(bench.name, pattern)) names.insert(bench.name);
  if (names.empty())
    throw UsageError{kExitBadInput, "--filter \"" + filter + "\" matches no benchmark of the runs"};
  int left_out = 0;
  std::map<std::pair<std::string, std::string>, Group> groups;  // by placeholder name and metric
  for (const std::string& name : names) {
    const std::optional<Measured> m = measure(runs, name, suites);
    if (!m) {
      ++left_out;
      continue;
    }
    std::vector<int> gpus;
    const std::string general = generalise_gpu_name(name, &gpus);
    Group& g = groups[{general, m->metric}];
    if (g.medians.empty()) g.first = *m;
    g.medians.push_back(median_of(m->medians));
    g.gpus.push_back(gpus);
    g.runs = std::max(g.runs, m->medians.size());
  }
  if (groups.empty())
    throw UsageError{kExitBadInput, "baseline: every selected benchmark is not ok in some run; nothing to write"};
  for (const auto& [key, g] : groups)
    b.expectations.push_back(entry_of(key.first, g, tolerance_pct, static_cast<int>(first.gpus.size())));
  b.run.suites.assign(suites.begin(), suites.end());
  if (skipped) *skipped = left_out;
  return b;
}

}  // namespace gpubench
