#include "harness/cli/run_command.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <regex>
#include <set>
#include <sstream>

#include "harness/run/config.h"
#include "harness/run/node_plan.h"
#include "harness/model/exit_codes.h"
#include "harness/model/node_figures.h"
#include "harness/model/text_table.h"
#include "harness/core/family.h"
#include "harness/core/host_clock.h"
#include "harness/run/progress.h"
#include "harness/run/supervisor.h"
#include "harness/run/worker_job.h"
#include "harness/system/capture.h"
#include "harness/system/gpu_probe.h"

namespace gpubench {
namespace {

std::vector<std::string> resolve_suites(const std::vector<std::string>& requested) {
  const auto known = known_suites();
  std::vector<std::string> suites;
  for (const auto& suite : requested.empty() ? std::vector<std::string>{"all"} : requested) {
    if (suite == "all") {
      for (const auto& f : registered_families())
        if (!f->is_hidden() && std::find(suites.begin(), suites.end(), f->suite()) == suites.end())
          suites.push_back(f->suite());
    } else if (std::find(known.begin(), known.end(), suite) == known.end()) {
      std::string list;
      for (const auto& k : known) list += k + ", ";
      throw UsageError{kExitBadInput, "unknown suite '" + suite + "' (known: " + list + "all)"};
    } else if (std::find(suites.begin(), suites.end(), suite) == suites.end()) {
      suites.push_back(suite);
    }
  }
  return suites;
}

// Flags override the config file, which overrides the defaults.
RunSettings settings_of(const RunOptions& options, const RunConfig& config) {
  RunSettings settings;
  settings.quick = options.quick;
  if (options.quick) settings.stop.max_time_s = 0.5, settings.stop.max_noise_pct = 2.0;
  auto pick = [](const std::optional<double>& flag, const std::optional<double>& from_config, double fallback) {
    return flag ? *flag : from_config.value_or(fallback);
  };
  settings.stop.min_time_s = pick(options.min_time_s, config.min_time_s, settings.stop.min_time_s);
  settings.stop.max_noise_pct = pick(options.max_noise_pct, config.max_noise_pct, settings.stop.max_noise_pct);
  settings.stop.max_time_s = pick(options.max_time_s, config.max_time_s, settings.stop.max_time_s);
  settings.timeout_s = pick(options.timeout_s, config.timeout_s, settings.timeout_s);
  settings.stop.min_samples = config.min_samples.value_or(settings.stop.min_samples);
  settings.repetitions = options.repetitions ? static_cast<int>(*options.repetitions) : config.repetitions.value_or(1);
  // --repetitions is every family's count: it overrides the config's per-family counts too.
  if (!options.repetitions) settings.family_repetitions = config.repetitions_by_family;
  TelemetrySettings& t = settings.telemetry;
  if (options.telemetry_interval_ms) t.interval_ms = static_cast<int>(*options.telemetry_interval_ms);
  t.cooldown_margin_c = options.cooldown_margin_c.value_or(t.cooldown_margin_c);
  t.cooldown_target_c = options.cooldown_target_c;
  // A smoke run wants its answer in seconds: it waits for no GPU to cool unless told to.
  t.cooldown_max_wait_s = options.cooldown_max_wait_s.value_or(options.quick ? 0 : t.cooldown_max_wait_s);
  return settings;
}

// What a run and `list` take from a --config file into expansion.
ExpandOptions expansion_of(const RunConfig& config) {
  ExpandOptions expand;
  expand.axis_overrides = config.axis_overrides;
  expand.config = config.axis_documents;
  return expand;
}

// The temperature each GPU idles at, read before anything runs: what cooldown waits to get near.
void read_idle_temperatures(TelemetrySettings& telemetry, const std::vector<int>& devices) {
  GpuProbe& probe = nvml_probe();
  if (!probe.available()) return;
  for (int device : devices)
    if (const auto temp = probe.read(device).temp_c) telemetry.idle_temp_c[device] = *temp;
}

}  // namespace

std::vector<int> parse_devices(const std::string& spec, int visible) {
  std::vector<int> devices;
  if (spec == "all") {
    for (int d = 0; d < visible; ++d) devices.push_back(d);
    return devices;
  }
  std::stringstream items(spec);
  std::string item;
  while (std::getline(items, item, ',')) {
    std::size_t used = 0;
    int device = -1;
    try {
      device = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || device < 0)
      throw UsageError{kExitBadInput, "--devices: '" + item + "' is not a device index (use e.g. 0,1 or all)"};
    if (device >= visible)
      throw UsageError{kExitBadInput, "--devices: no GPU " + std::to_string(device) + " (" +
                                          std::to_string(visible) + " visible)"};
    if (std::find(devices.begin(), devices.end(), device) != devices.end())
      throw UsageError{kExitBadInput, "--devices: GPU " + item + " given twice"};
    devices.push_back(device);
  }
  if (devices.empty()) throw UsageError{kExitBadInput, "--devices: no device given"};
  return devices;
}

namespace {

std::regex filter_regex(const std::string& text) {
  try {
    return std::regex(text.empty() ? "." : text, std::regex::ECMAScript);
  } catch (const std::regex_error& error) {
    throw UsageError{kExitBadInput, "--filter: bad regular expression '" + text + "': " + error.what()};
  }
}

// The benchmarks of `families` that --filter (or --exact names) selects.
std::vector<Instance> selected_instances(const std::vector<const Family*>& families, const ExpandOptions& expand,
                                         const RunOptions& options, const std::regex& filter) {
  std::vector<Instance> out;
  for (const Family* f : families)
    for (auto& instance : f->expand(expand)) {
      const bool wanted = options.exact_names.empty()
                              ? std::regex_search(instance.name, filter)
                              : std::find(options.exact_names.begin(), options.exact_names.end(),
                                          instance.name) != options.exact_names.end();
      if (wanted) out.push_back(std::move(instance));
    }
  return out;
}

}  // namespace

RunDocument execute_run(const RunOptions& options, const InterruptCatcher& interrupts, Reporter& reporter) {
  const double start_s = host_now_s();
  RunConfig config;
  if (!options.config_path.empty()) config = load_config(options.config_path);
  const auto suites = resolve_suites(!options.suites.empty() ? options.suites : config.suites);
  const std::string filter_text = !options.filter.empty() ? options.filter : config.filter.value_or("");
  const std::regex filter = filter_regex(filter_text);

  RunPlan plan;
  plan.settings = settings_of(options, config);
  RunSettings& settings = plan.settings;

  std::vector<const Family*> families;
  for (const auto& f : registered_families())
    if (std::find(suites.begin(), suites.end(), f->suite()) != suites.end()) families.push_back(f.get());
  const Context context = capture_context();
  const int visible = static_cast<int>(context.gpus.size());
  if (visible > 0 && !context.nvml_available)
    std::fprintf(stderr, "gpubench: note: NVML unavailable (%s): no link, clock or throttle data\n",
                 context.nvml_error.c_str());
  // Without a GPU, expand as if there were the GPUs named (one for "all"), so that the filter
  // decides whether the selection needed one (exit 3) or selected nothing (exit 2), and so that
  // CPU-only families (selftest) run node mode's lanes on simulated GPUs. The indices cannot be
  // checked, but a malformed --devices is still bad usage.
  ExpandOptions expand = expansion_of(config);
  expand.devices = visible > 0                 ? parse_devices(options.devices, visible)
                   : options.devices != "all" ? parse_devices(options.devices, std::numeric_limits<int>::max())
                                              : std::vector<int>{0};
  expand.quick = options.quick;
  expand.context = &context;
  settings.devices = expand.devices;
  if (visible > 0) read_idle_temperatures(settings.telemetry, settings.devices);

  plan.instances = selected_instances(families, expand, options, filter);
  const SoloReference solo_reference = options.solo_reference
                                           ? solo_reference_from(*options.solo_reference, "--solo-reference")
                                           : solo_reference_from(config.solo_reference, "solo_reference");
  if (options.concurrent || config.concurrent)
    plan.instances = node_mode_plan(plan.instances, solo_reference, expand.devices.front());
  const bool needs_gpu = std::any_of(plan.instances.begin(), plan.instances.end(),
                                     [](const Instance& i) { return i.family->needs_gpu(); });
  if (needs_gpu && visible == 0)
    throw UsageError{kExitNoGpu, "no usable GPU: " + (context.gpu_error.empty() ? "none visible" : context.gpu_error)};
  if (plan.instances.empty()) {
    std::string suite_list;
    for (const auto& s : suites) suite_list += (suite_list.empty() ? "" : ",") + s;
    throw UsageError{kExitBadInput, "--filter '" + filter_text + "' matches no benchmark in suite(s) " + suite_list};
  }

  RunDocument document = start_run_document(context, options.command_line);
  document.config = {{"file", options.config_path}, {"settings", settings_to_json(settings)}};
  reporter.context(document);
  std::vector<PlannedRun> planned;
  for (const Instance& instance : plan.instances)
    planned.insert(planned.end(), settings.repetitions_of(instance.family->name()),
                   {instance.name, instance.family->known_length_s(instance.params)});
  ProgressDisplay progress(std::move(planned));
  RunObserver observer;
  observer.started = [&](const std::string& name) { progress.started(name); };
  observer.finished = [&](const BenchResult& result) {
    if (gpu_of_name(result.name) != "all") progress.finished(result);  // node totals are not in the plan's count
    reporter.result(result);
  };
  RunOutcome outcome = run_plan(plan, context, options.isolate, observer, interrupts);
  document.results = std::move(outcome.results);
  for (GpuInfo& gpu : document.context.gpus) gpu.error_counters = outcome.error_counters[gpu.index];
  document.complete = outcome.interrupted.empty();
  if (!outcome.interrupted.empty()) document.interrupted = outcome.interrupted;
  reporter.finish(document);
  // On stderr: stdout may be the results themselves (--format json).
  std::fprintf(stderr, "%s\n", run_summary(document.results.size(), host_now_s() - start_s).c_str());
  return document;
}

std::string family_listing(const std::vector<std::string>& suites, const std::string& config_path, bool as_json) {
  const ExpandOptions expand = expansion_of(config_path.empty() ? RunConfig{} : load_config(config_path));
  std::string text;
  nlohmann::json families = nlohmann::json::array();
  for (const auto& f : registered_families()) {
    const bool asked = std::find(suites.begin(), suites.end(), f->suite()) != suites.end();
    if (suites.empty() ? f->is_hidden() : !asked) continue;
    TextTable axes;
    axes.header = {"  axis", config_path.empty() ? "default sweep" : "sweep with " + config_path};
    nlohmann::json axes_json = nlohmann::json::array();
    const auto declared = f->axes();
    for (const auto& axis : f->resolved_axes(expand)) {
      const bool computed = std::any_of(declared.begin(), declared.end(),
                                        [&](const Axis& a) { return a.name == axis.name && a.compute; });
      const bool gpu = axis.kind == Axis::Kind::kGpu;
      axes_json.push_back({{"name", axis.name}, {"values", gpu ? nlohmann::json::array() : nlohmann::json(axis.values)},
                           {"each_gpu", gpu}, {"computed", computed}});
      std::string values = join_values(axis.values);
      if (gpu) values = "<each selected GPU>";
      else if (computed && values.empty()) values = "<computed at expansion: none without the machine or --config axes>";
      else if (computed) values += "  (computed at expansion)";
      axes.rows.push_back({"  " + axis.name, values});
    }
    families.push_back({{"name", f->name()}, {"suite", f->suite()}, {"description", f->description()}, {"axes", axes_json}});
    text += f->name() + "\n  " + f->description() + "\n" + axes.to_text() + "\n";
  }
  if (families.empty()) throw UsageError{kExitBadInput, "list: no family in the given suite(s)"};
  return as_json ? families.dump(2) + "\n" : text;
}

}  // namespace gpubench
