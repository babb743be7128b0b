// A benchmark entry of a result document, written and read: the only place that knows its
// fields. The worker sends the same entry down its pipe, so parent and files agree.
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "harness/model/result.h"

namespace gpubench {
namespace {

using nlohmann::json;

// JSON has no NaN or infinity: such a number is written null, and the entry's "error" says
// which fields were, so that a null never passes for a figure.
class FiniteNumbers {
 public:
  json operator()(double value, const std::string& field) {
    if (std::isfinite(value)) return value;
    nonfinite_.insert(field);
    return nullptr;
  }
  json optional(const std::optional<double>& value, const std::string& field) {
    return value ? (*this)(*value, field) : json(nullptr);
  }
  std::string error_with_reason(const std::string& error) const {
    if (nonfinite_.empty()) return error;
    std::string fields;
    for (const auto& f : nonfinite_) fields += (fields.empty() ? "" : ", ") + f;
    return error + (error.empty() ? "" : "; ") + "non-finite numbers written as null: " + fields;
  }

 private:
  std::set<std::string> nonfinite_;
};

json metric_json(const std::string& name, const Metric& metric, FiniteNumbers& finite) {
  const Summary s = metric.summary();
  json values = json::array();
  for (double v : metric.values) values.push_back(finite(v, name + " values"));
  json out = {{"unit", metric.unit}, {"better", metric.higher_is_better ? "higher" : "lower"},
              {"median", finite(s.median, name)}, {"mean", finite(s.mean, name)},
              {"min", finite(s.min, name)}, {"max", finite(s.max, name)},
              {"stddev", finite(s.stddev, name)}, {"cv_pct", finite(s.cv_pct, name)},
              {"samples", s.samples}, {"values", values}};
  if (metric.difference) out["difference"] = true;
  return out;
}

double ns_per_unit(const std::string& unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  return 0;
}

// A member that states a number as null: how a non-finite number is written.
bool null_member(const JsonAt& object, const std::string& key) {
  const auto it = object.get().find(key);
  return it != object.get().end() && it->is_null();
}

Metric read_metric(const JsonAt& metric, std::vector<std::string>& null_figures) {
  Metric m;
  const JsonAt better = metric.at("better");
  if (better.str() != "higher" && better.str() != "lower")
    better.fail("expected \"higher\" or \"lower\", found \"" + better.str() + "\"");
  m.higher_is_better = better.str() == "higher";
  m.unit = optional_string(metric, "unit");
  m.difference = optional_bool(metric, "difference").value_or(false);
  if (auto values = metric.find("values")) {
    // The samples are most of a file: a JsonAt (and its pointer text) only for a bad one.
    const std::size_t n = values->size();
    m.values.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const json& v = values->get()[i];
      const double number = v.is_number() ? v.get<double>() : 0;
      if (v.is_null()) m.values.push_back(std::numeric_limits<double>::quiet_NaN());
      else if (v.is_number() && std::isfinite(number)) m.values.push_back(number);
      else m.values.push_back(values->item(i).num());
    }
  }
  if (!m.values.empty()) {
    if (null_member(metric, "median")) null_figures.push_back(metric.at("median").place());
  } else {
    Summary s;
    const JsonAt median = metric.at("median");
    s.median = median.get().is_null() ? std::numeric_limits<double>::quiet_NaN() : median.num();
    s.mean = optional_number(metric, "mean", s.median);
    s.min = optional_number(metric, "min", s.median);
    s.max = optional_number(metric, "max", s.median);
    s.stddev = optional_number(metric, "stddev");
    s.cv_pct = optional_number(metric, "cv_pct");
    s.samples = optional_size(metric, "samples");
    m.recorded = s;
  }
  return m;
}

// Google Benchmark's cpu_time of an ok entry, in ns; unset where the file states none (or null:
// a non-finite figure).
std::optional<double> read_cpu_time_ns(const JsonAt& entry) {
  const auto cpu_time = entry.find("cpu_time");
  if (!cpu_time || cpu_time->get().is_null()) return std::nullopt;
  const auto time_unit = entry.find("time_unit");
  const std::string unit = time_unit ? time_unit->str() : "ns";
  const double scale = ns_per_unit(unit);
  if (scale == 0) time_unit->fail("expected ns, us, ms or s, found \"" + unit + "\"");
  return cpu_time->num() * scale;
}

Status read_status(const JsonAt& status) {
  try {
    return status_from_string(status.str());
  } catch (const std::invalid_argument&) {
    status.fail("expected ok, failed, skipped or timeout, found \"" + status.str() + "\"");
  }
}

}  // namespace

double real_time_ns(const BenchResult& result) {
  for (const std::string& name : {result.primary_metric, std::string("time_us")}) {
    const auto metric = result.metrics.find(name);
    if (metric == result.metrics.end() || metric->second.summary().samples == 0) continue;
    if (const double scale = ns_per_unit(metric->second.unit); scale > 0)
      return metric->second.summary().median * scale;
  }
  return 0;
}

json notes_json(const BenchResult& result) {
  json notes = result.notes;
  if (!result.not_applicable.empty()) notes["not_applicable"] = result.not_applicable;
  if (result.series.empty()) return notes;
  json& series = notes["series"] = json::array();
  for (const TimeSlice& slice : result.series) {
    json entry = {{"t_s", slice.t_s}};
    for (const auto& [key, value] : slice.values) entry[key] = value;
    if (slice.throttled) {
      entry["throttled"] = *slice.throttled;
      entry["throttle_reasons"] = slice.throttle_reasons;
    }
    series.push_back(std::move(entry));
  }
  return notes;
}

// notes.series and notes.not_applicable into their fields; the rest of the notes as they are.
void read_notes(const JsonAt& notes, BenchResult& r) {
  notes.members();  // an object, or fail
  r.notes = notes.get();
  if (auto absent = notes.find("not_applicable")) {
    for (const auto& [metric, why] : absent->members()) r.not_applicable[metric] = why.str();
    r.notes.erase("not_applicable");
  }
  if (auto series = notes.find("series")) {
    for (const JsonAt& entry : series->items()) {
      TimeSlice slice;
      slice.t_s = entry.at("t_s").num();
      for (const auto& [key, value] : entry.members()) {
        if (key == "t_s" || value.get().is_null()) continue;  // null: a figure that was not finite
        if (key == "throttled") slice.throttled = value.boolean();
        else if (key == "throttle_reasons")
          for (const JsonAt& reason : value.items()) slice.throttle_reasons.push_back(reason.str());
        else slice.values[key] = value.num();
      }
      r.series.push_back(std::move(slice));
    }
    r.notes.erase("series");
  }
}

json to_json(const BenchResult& result) {
  FiniteNumbers finite;
  json metrics = json::object();
  for (const auto& [name, metric] : result.metrics) metrics[name] = metric_json(name, metric, finite);
  json gpubench = {
      {"suite", result.suite}, {"family", result.family}, {"params", result.params},
      {"status", to_string(result.status)}, {"verified", result.verified},
      {"primary_metric", result.primary_metric}, {"metrics", metrics},
      {"pct_of_peak", finite.optional(result.pct_of_peak(), "pct_of_peak")},
      {"peak", finite.optional(result.peak, "peak")},
      {"peak_source", result.peak_source}, {"ops_per_sample", result.ops_per_sample},
      {"telemetry", result.telemetry}, {"notes", notes_json(result)}};
  if (!result.choice.is_null()) gpubench["choice"] = result.choice;
  if (result.plausibility_factor > 1) gpubench["plausibility_factor"] = result.plausibility_factor;

  // Google Benchmark's per-run fields. An entry not ok states the zero times Google Benchmark
  // writes for a run that did not run, and no time_unit: compare.py pairs only entries that
  // have one, so it leaves this one out (run_document.cpp: beside ok repetitions).
  const bool ok = result.status == Status::kOk;
  json entry = {{"name", result.name}, {"run_name", result.name}, {"run_type", "iteration"},
                {"repetitions", result.repetitions}, {"repetition_index", result.repetition_index},
                {"threads", 1}, {"iterations", result.iterations},
                {"real_time", ok ? finite(real_time_ns(result), "real_time") : json(0)}};
  if (!ok) entry["cpu_time"] = 0;
  else if (result.cpu_time_ns) entry["cpu_time"] = finite(*result.cpu_time_ns, "cpu_time");
  if (ok) entry["time_unit"] = "ns";
  for (const auto& [name, metric] : result.metrics)
    if (metric.summary().samples > 0) entry[name] = finite(metric.summary().median, name);
  const std::string error = finite.error_with_reason(result.error);
  if (result.status == Status::kSkipped) {
    entry["skipped"] = true;
    entry["skip_message"] = error;
  } else if (!ok) {
    entry["error_occurred"] = true;
    entry["error_message"] = error;
  }
  gpubench["error"] = error;
  entry["gpubench"] = std::move(gpubench);
  return entry;
}

BenchResult read_bench_result(const JsonAt& entry) {
  BenchResult r;
  const JsonAt g = entry.at("gpubench");
  r.name = entry.at("name").str();
  if (r.name.empty()) entry.at("name").fail("empty benchmark name");
  // Suite and family default to the name's first components ("suite/family/axis:value...").
  const auto slash = r.name.find('/');
  const auto slash2 = slash == std::string::npos ? slash : r.name.find('/', slash + 1);
  r.suite = g.find("suite") ? g.at("suite").str() : r.name.substr(0, slash);
  r.family = g.find("family") ? g.at("family").str() : r.name.substr(0, slash2);
  if (r.family.find('/') == std::string::npos) r.family = r.suite + "/" + r.family;
  r.status = read_status(g.at("status"));
  r.error = optional_string(g, "error");
  r.verified = optional_bool(g, "verified").value_or(false);
  r.repetition_index = optional_int(entry, "repetition_index");
  r.repetitions = optional_int(entry, "repetitions", 1);
  if (auto iterations = entry.find("iterations")) r.iterations = iterations->integer();
  if (r.status == Status::kOk) r.cpu_time_ns = read_cpu_time_ns(entry);
  r.ops_per_sample = optional_int(g, "ops_per_sample", 1);
  if (auto params = g.find("params")) {
    params->members();  // an object, or fail
    r.params = params->get();
  }
  const auto metrics = g.find("metrics");
  if (r.status == Status::kOk && !metrics) g.fail("missing required field \"metrics\" (status is ok)");
  if (metrics && r.status == Status::kOk)  // a result that did not pass carries no figures
    for (const auto& [name, metric] : metrics->members()) {
      r.metrics[name] = read_metric(metric, r.null_figures);
      if (null_member(entry, name)) r.null_figures.push_back(entry.at(name).place());
    }
  if (auto primary = g.find("primary_metric"); primary && !primary->str().empty()) {
    r.primary_metric = primary->str();
    if (r.status == Status::kOk && !r.metrics.count(r.primary_metric))
      primary->fail("primary metric \"" + r.primary_metric + "\" is not among the metrics");
  }
  if (auto peak = g.find("peak")) {
    r.peak = peak->num();
  } else if (auto pct = g.find("pct_of_peak"); pct && pct->num() > 0 && r.metrics.count(r.primary_metric)) {
    // Files that recorded % of peak alone still say what the peak was.
    r.peak = r.metrics.at(r.primary_metric).summary().median * 100 / pct->num();
  }
  r.peak_source = optional_string(g, "peak_source");
  if (auto factor = g.find("plausibility_factor")) {
    r.plausibility_factor = factor->num();
    if (!(r.plausibility_factor >= 1)) factor->fail("expected a number of at least 1");
  }
  if (auto telemetry = g.find("telemetry")) {
    if (auto throttled = telemetry->find("throttled")) throttled->boolean();
    if (auto reasons = telemetry->find("throttle_reasons"))
      for (const JsonAt& reason : reasons->items()) reason.str();
    r.telemetry = telemetry->get();
  }
  if (auto notes = g.find("notes")) read_notes(*notes, r);
  if (auto choice = g.find("choice")) {
    choice->members();  // an object, or fail
    r.choice = choice->get();
  }
  return r;
}

}  // namespace gpubench
