#include "harness/report/result_file.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "harness/report/stats.h"

namespace gpubench {
namespace {

std::string escape_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

const char* type_name(const nlohmann::json& node) {
  if (node.is_number()) return "a number";
  if (node.is_string()) return "a string";
  if (node.is_boolean()) return "a boolean";
  if (node.is_object()) return "an object";
  if (node.is_array()) return "an array";
  return "null";
}

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& file) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // what() is "[json.exception.parse_error.101] parse error at line L, column C: ..."; the
    // bracketed id means nothing to a user, the byte offset locates the damage.
    std::string what = e.what();
    const auto close = what.find("] ");
    if (close != std::string::npos) what = what.substr(close + 2);
    throw UsageError{kExitBadInput, file + ": byte " + std::to_string(e.byte) + ": " + what};
  } catch (const nlohmann::json::exception& e) {
    throw UsageError{kExitBadInput, file + ": " + e.what()};
  }
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError{kExitBadInput, path + ": cannot read: " + std::strerror(errno)};
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw UsageError{kExitBadInput, path + ": cannot read: " + std::strerror(errno)};
  return parse_json_text(text.str(), path);
}

JsonAt::JsonAt(const nlohmann::json& node, std::string file, std::string pointer)
    : node_(&node), file_(std::move(file)), pointer_(std::move(pointer)) {}

void JsonAt::fail(const std::string& what) const {
  throw UsageError{kExitBadInput, file_ + ": " + place() + ": " + what};
}

void JsonAt::expect(bool ok, const char* type) const {
  if (!ok) fail(std::string("expected ") + type + ", found " + type_name(*node_));
}

JsonAt JsonAt::at(const std::string& key) const {
  auto found = find(key);
  if (!found) fail("missing required field \"" + key + "\"");
  return *found;
}

std::optional<JsonAt> JsonAt::find(const std::string& key) const {
  expect(node_->is_object(), "an object");
  auto it = node_->find(key);
  if (it == node_->end() || it->is_null()) return std::nullopt;
  return JsonAt(*it, file_, pointer_ + "/" + escape_pointer_token(key));
}

std::vector<std::pair<std::string, JsonAt>> JsonAt::members() const {
  expect(node_->is_object(), "an object");
  std::vector<std::pair<std::string, JsonAt>> out;
  for (auto it = node_->begin(); it != node_->end(); ++it)
    out.emplace_back(it.key(), JsonAt(*it, file_, pointer_ + "/" + escape_pointer_token(it.key())));
  return out;
}

std::vector<JsonAt> JsonAt::items() const {
  expect(node_->is_array(), "an array");
  std::vector<JsonAt> out;
  for (std::size_t i = 0; i < node_->size(); ++i)
    out.emplace_back((*node_)[i], file_, pointer_ + "/" + std::to_string(i));
  return out;
}

std::string JsonAt::str() const {
  expect(node_->is_string(), "a string");
  return node_->get<std::string>();
}

double JsonAt::num() const {
  expect(node_->is_number(), "a number");
  const double value = node_->get<double>();
  if (!std::isfinite(value)) fail("number out of range");
  return value;
}

long long JsonAt::integer() const {
  if (node_->is_number_unsigned()) {
    const auto value = node_->get<unsigned long long>();
    if (value > static_cast<unsigned long long>(1) << 62) fail("integer out of range");
    return static_cast<long long>(value);
  }
  if (node_->is_number_integer()) return node_->get<long long>();
  const double value = num();
  // Writers may emit 16.0 for 16; anything with a fraction is a mistake.
  if (std::floor(value) != value || std::fabs(value) > 9.0e15) fail("expected an integer");
  return static_cast<long long>(value);
}

bool JsonAt::boolean() const {
  expect(node_->is_boolean(), "a boolean");
  return node_->get<bool>();
}

void JsonAt::only_keys(std::initializer_list<const char*> allowed) const {
  for (const auto& [key, value] : members()) {
    bool known = false;
    for (const char* name : allowed) known = known || key == name;
    if (!known) value.fail("unknown field \"" + key + "\"");
  }
}

const BenchmarkResult* ResultFile::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &benchmarks[it->second];
}

void ResultFile::put(BenchmarkResult benchmark) {
  auto it = index_.find(benchmark.name);
  if (it != index_.end()) {
    benchmarks[it->second] = std::move(benchmark);
    return;
  }
  index_[benchmark.name] = benchmarks.size();
  benchmarks.push_back(std::move(benchmark));
}

namespace {

// Scalars written as text, for params and for context fields that may be strings or numbers.
std::string scalar_text(const JsonAt& node) {
  const auto& j = node.get();
  if (j.is_string()) return j.get<std::string>();
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  if (j.is_number_integer() || j.is_number_unsigned()) return j.dump();
  if (j.is_number_float()) {
    const double v = node.num();
    if (std::floor(v) == v && std::fabs(v) < 9.0e15) return std::to_string(static_cast<long long>(v));
    return j.dump();
  }
  node.fail(std::string("expected a string or number, found ") + type_name(j));
}

int opt_int(const JsonAt& obj, const char* key, int fallback = 0) {
  auto node = obj.find(key);
  if (!node) return fallback;
  const long long v = node->integer();
  if (v < INT_MIN || v > INT_MAX) node->fail("integer out of range");
  return static_cast<int>(v);
}
std::uint64_t opt_size(const JsonAt& obj, const char* key) {
  auto node = obj.find(key);
  if (!node) return 0;
  const long long v = node->integer();
  if (v < 0) node->fail("expected a size >= 0");
  return static_cast<std::uint64_t>(v);
}
double opt_num(const JsonAt& obj, const char* key, double fallback = 0) {
  auto node = obj.find(key);
  return node ? node->num() : fallback;
}
std::string opt_str(const JsonAt& obj, const char* key) {
  auto node = obj.find(key);
  return node ? node->str() : "";
}
std::optional<bool> opt_bool(const JsonAt& obj, const char* key) {
  auto node = obj.find(key);
  if (!node) return std::nullopt;
  return node->boolean();
}

// Reads one GPU of context.gpubench.gpus with type checks (the capture side trusts its
// own output; a file handed to compare or check may come from anywhere).
GpuInfo read_gpu(const JsonAt& gpu) {
  GpuInfo info;
  info.index = opt_int(gpu, "index");
  info.name = opt_str(gpu, "name");
  info.uuid = opt_str(gpu, "uuid");
  info.pci_bus_id = opt_str(gpu, "pci_bus_id");
  info.sm_count = opt_int(gpu, "sm_count");
  if (auto cc = gpu.find("cc")) scalar_text(*cc);
  info.memory_bytes = opt_size(gpu, "memory_bytes");
  info.l2_bytes = opt_size(gpu, "l2_bytes");
  info.sm_clock_max_mhz = opt_int(gpu, "sm_clock_max_mhz");
  info.mem_clock_max_mhz = opt_int(gpu, "mem_clock_max_mhz");
  info.memory_bus_width_bits = opt_int(gpu, "memory_bus_width_bits");
  if (auto pcie = gpu.find("pcie")) {
    info.pcie.gen = opt_int(*pcie, "gen");
    info.pcie.width = opt_int(*pcie, "width");
    info.pcie.gen_max = opt_int(*pcie, "gen_max");
    info.pcie.width_max = opt_int(*pcie, "width_max");
  }
  if (auto nvlink = gpu.find("nvlink")) {
    info.nvlinks_active = opt_int(*nvlink, "links_active");
    info.nvlink_gbps_per_link = opt_num(*nvlink, "gbps_per_link");
  }
  info.numa_node = opt_int(gpu, "numa_node", -1);
  info.ecc_enabled = opt_bool(gpu, "ecc_enabled");
  info.mig_mode = opt_bool(gpu, "mig_mode");
  info.power_limit_w = opt_num(gpu, "power_limit_w");
  return info;
}

void read_context(const JsonAt& root, ResultFile& run) {
  const JsonAt context = root.at("context");
  const JsonAt gb = context.at("gpubench");
  const JsonAt schema = gb.at("schema");
  if (schema.str() != "gpubench/1")
    schema.fail("unsupported schema \"" + schema.str() + "\" (this gpubench reads \"gpubench/1\")");
  run.host_name = opt_str(context, "host_name");
  for (const char* key : {"version", "git_commit", "command_line", "driver_version", "cuda_driver",
                          "cuda_runtime", "cublas", "cudnn", "nccl"})
    if (auto node = gb.find(key)) run.versions[key] = scalar_text(*node);
  if (auto nvml = gb.find("nvml")) {
    run.nvml_available = opt_bool(*nvml, "available");
    run.nvml_error = opt_str(*nvml, "error");
  }
  if (auto gpus = gb.find("gpus"))
    for (const JsonAt& gpu : gpus->items()) run.gpus.push_back(read_gpu(gpu));
  if (auto links = gb.find("links"))
    for (const JsonAt& row : links->items()) {
      run.links.emplace_back();
      for (const JsonAt& cell : row.items()) run.links.back().push_back(cell.str());
    }
  if (auto environment = gb.find("environment"))
    for (const auto& [name, value] : environment->members()) run.environment[name] = value.str();
  run.context = context.get();
}

// One repetition's contribution to a metric, gathered before repetitions are merged.
struct MetricParts {
  MetricResult merged;
  std::vector<double> repetition_medians;
  double spread = 0;  // largest stddev seen, for a band when there are no samples
  double cv_pct = 0;
};

void read_metric(const JsonAt& metric, MetricParts& parts) {
  const std::string better = metric.at("better").str();
  if (better != "higher" && better != "lower")
    metric.at("better").fail("expected \"higher\" or \"lower\", found \"" + better + "\"");
  parts.merged.higher_is_better = better == "higher";
  parts.merged.unit = opt_str(metric, "unit");
  parts.repetition_medians.push_back(metric.at("median").num());
  if (auto values = metric.find("values"))
    for (const JsonAt& v : values->items()) parts.merged.values.push_back(v.num());
  parts.spread = std::max(parts.spread, opt_num(metric, "stddev"));
  parts.cv_pct = std::max(parts.cv_pct, opt_num(metric, "cv_pct"));
}

void finish_metric(MetricParts& parts) {
  MetricResult& m = parts.merged;
  m.median = median_of(parts.repetition_medians);
  m.repetition_medians = parts.repetition_medians;
  if (m.values.size() >= 2) {
    const Summary s = summarize(m.values);
    m.noise_pct = median_noise_pct(m.values);
    m.band_lo = s.min;
    m.band_hi = s.max;
  } else {
    // No samples written: the file's own spread (or the repetitions') is all there is.
    const Summary reps = summarize(parts.repetition_medians);
    const double spread = std::max(parts.spread, reps.max - reps.min);
    m.noise_pct = parts.cv_pct;
    m.band_lo = std::min(reps.min, m.median - spread);
    m.band_hi = std::max(reps.max, m.median + spread);
  }
}

struct BenchmarkParts {
  BenchmarkResult result;
  std::map<std::string, MetricParts> metrics;
};

void read_benchmark(const JsonAt& entry, BenchmarkParts& parts) {
  BenchmarkResult& b = parts.result;
  const JsonAt gb = entry.at("gpubench");
  const JsonAt status = gb.at("status");
  const std::string st = status.str();
  if (st != "ok" && st != "failed" && st != "skipped" && st != "timeout")
    status.fail("expected ok, failed, skipped or timeout, found \"" + st + "\"");
  ++b.repetitions;
  if (b.ok() && st != "ok") {  // any bad repetition makes the benchmark bad
    b.status = st;
    b.error = opt_str(gb, "error");
  }
  // Suite and family default to the name's first components ("suite/family/axis:value...").
  const auto slash = b.name.find('/');
  const auto slash2 = slash == std::string::npos ? slash : b.name.find('/', slash + 1);
  b.suite = gb.find("suite") ? gb.at("suite").str() : b.name.substr(0, slash);
  b.family = gb.find("family") ? gb.at("family").str() : b.name.substr(0, slash2);
  if (b.family.find('/') == std::string::npos) b.family = b.suite + "/" + b.family;
  if (auto params = gb.find("params"))
    for (const auto& [axis, value] : params->members()) b.params[axis] = scalar_text(value);
  if (auto telemetry = gb.find("telemetry")) {
    if (auto throttled = telemetry->find("throttled")) b.throttled = b.throttled || throttled->boolean();
    if (auto reasons = telemetry->find("throttle_reasons"))
      for (const JsonAt& r : reasons->items()) {
        const std::string reason = r.str();
        if (std::find(b.throttle_reasons.begin(), b.throttle_reasons.end(), reason) ==
            b.throttle_reasons.end())
          b.throttle_reasons.push_back(reason);
      }
  }
  const auto metrics = gb.find("metrics");
  if (st == "ok" && !metrics) gb.fail("missing required field \"metrics\" (status is ok)");
  if (metrics && st == "ok")  // a failed repetition carries no figures
    for (const auto& [name, metric] : metrics->members()) read_metric(metric, parts.metrics[name]);
  if (auto primary = gb.find("primary_metric"); primary && !primary->str().empty()) {
    b.primary_metric = primary->str();
    if (st == "ok" && !metrics->get().contains(b.primary_metric))
      primary->fail("primary metric \"" + b.primary_metric + "\" is not among the metrics");
  }
}

}  // namespace

ResultFile parse_result_document(const nlohmann::json& doc, const std::string& file) {
  ResultFile run;
  run.path = file;
  const JsonAt root(doc, file);
  read_context(root, run);
  std::map<std::string, BenchmarkParts> parts;
  std::vector<std::string> order;
  for (const JsonAt& entry : root.at("benchmarks").items()) {
    // Google Benchmark's aggregate rows (mean/median/stddev of repetitions) repeat what the
    // iteration rows hold; we merge repetitions ourselves.
    if (auto type = entry.find("run_type"); type && type->str() == "aggregate") continue;
    const std::string name = entry.at("name").str();
    if (name.empty()) entry.at("name").fail("empty benchmark name");
    auto [it, fresh] = parts.try_emplace(name);
    if (fresh) {
      order.push_back(name);
      it->second.result.name = name;
    }
    read_benchmark(entry, it->second);
  }
  for (const std::string& name : order) {
    BenchmarkParts& p = parts[name];
    if (p.result.ok()) {
      for (auto& [metric, mp] : p.metrics) {
        finish_metric(mp);
        p.result.metrics[metric] = std::move(mp.merged);
      }
      if (p.result.primary_metric.empty() && !p.result.metrics.empty())
        p.result.primary_metric = p.result.metrics.begin()->first;
    }
    run.put(std::move(p.result));
  }
  return run;
}

ResultFile parse_result_text(const std::string& text, const std::string& file) {
  return parse_result_document(parse_json_text(text, file), file);
}

ResultFile load_result_file(const std::string& path) {
  return parse_result_document(read_json_file(path), path);
}

}  // namespace gpubench
