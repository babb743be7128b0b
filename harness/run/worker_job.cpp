#include "harness/run/worker_job.h"

#include <stdexcept>

#include "harness/model/json_at.h"

namespace gpubench {
namespace {

const char* kind_name(Axis::Kind kind) {
  switch (kind) {
    case Axis::Kind::kInt: return "int";
    case Axis::Kind::kFloat: return "float";
    case Axis::Kind::kGpu: return "gpu";
    case Axis::Kind::kString: break;
  }
  return "string";
}

Axis::Kind kind_from_name(const std::string& name) {
  if (name == "int") return Axis::Kind::kInt;
  if (name == "float") return Axis::Kind::kFloat;
  if (name == "gpu") return Axis::Kind::kGpu;
  if (name == "string") return Axis::Kind::kString;
  throw std::runtime_error("worker job: unknown axis kind '" + name + "'");
}

nlohmann::json telemetry_settings_json(const TelemetrySettings& t) {
  nlohmann::json idle = nlohmann::json::object();
  for (const auto& [device, temp] : t.idle_temp_c) idle[std::to_string(device)] = temp;
  return {{"interval_ms", t.interval_ms},
          {"cooldown_margin_c", t.cooldown_margin_c},
          {"cooldown_target_c", t.cooldown_target_c ? nlohmann::json(*t.cooldown_target_c) : nlohmann::json(nullptr)},
          {"cooldown_max_wait_s", t.cooldown_max_wait_s},
          {"idle_temp_c", idle}};
}

TelemetrySettings telemetry_settings_from_json(const nlohmann::json& j) {
  TelemetrySettings t;
  t.interval_ms = j.at("interval_ms");
  t.cooldown_margin_c = j.at("cooldown_margin_c");
  if (!j.at("cooldown_target_c").is_null()) t.cooldown_target_c = j.at("cooldown_target_c").get<double>();
  t.cooldown_max_wait_s = j.at("cooldown_max_wait_s");
  for (const auto& item : j.at("idle_temp_c").items()) t.idle_temp_c[std::stoi(item.key())] = item.value().get<double>();
  return t;
}

}  // namespace

nlohmann::json settings_to_json(const RunSettings& s) {
  return {{"min_samples", s.stop.min_samples}, {"max_samples", s.stop.max_samples},
          {"min_time_s", s.stop.min_time_s},   {"max_noise_pct", s.stop.max_noise_pct},
          {"max_time_s", s.stop.max_time_s},   {"max_halves_apart_pct", s.stop.max_halves_apart_pct},
          {"steady_window_s", s.stop.steady_window_s}, {"warmup_s", s.warmup_s},
          {"batch_below_s", s.batch_below_s},  {"batch_target_s", s.batch_target_s},
          {"repetitions", s.repetitions},      {"family_repetitions", s.family_repetitions},
          {"timeout_s", s.timeout_s},
          {"quick", s.quick},                  {"devices", s.devices},
          {"telemetry", telemetry_settings_json(s.telemetry)}};
}

RunSettings settings_from_json(const nlohmann::json& j) {
  RunSettings s;
  s.stop.min_samples = j.at("min_samples");
  s.stop.max_samples = j.at("max_samples");
  s.stop.min_time_s = j.at("min_time_s");
  s.stop.max_noise_pct = j.at("max_noise_pct");
  s.stop.max_time_s = j.at("max_time_s");
  s.stop.max_halves_apart_pct = j.at("max_halves_apart_pct");
  s.stop.steady_window_s = j.at("steady_window_s");
  s.warmup_s = j.at("warmup_s");
  s.batch_below_s = j.at("batch_below_s");
  s.batch_target_s = j.at("batch_target_s");
  s.repetitions = j.at("repetitions");
  s.family_repetitions = j.at("family_repetitions").get<std::map<std::string, int>>();
  s.timeout_s = j.at("timeout_s");
  s.quick = j.at("quick");
  s.devices = j.at("devices").get<std::vector<int>>();
  s.telemetry = telemetry_settings_from_json(j.at("telemetry"));
  return s;
}

nlohmann::json context_to_job_json(const Context& context) {
  nlohmann::json p2p = nlohmann::json::array();
  for (const auto& row : context.links) {
    nlohmann::json flags = nlohmann::json::array();
    for (const auto& link : row) flags.push_back(link.p2p_access);
    p2p.push_back(std::move(flags));
  }
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& gpu : context.gpus) {
    nlohmann::json extra = {{"nvlinks_total", gpu.nvlinks_total}, {"throttle_mask", nullptr}};
    if (gpu.throttle_mask) extra["throttle_mask"] = *gpu.throttle_mask;
    gpus.push_back(std::move(extra));
  }
  return {{"document", to_json(context)}, {"gpu_error", context.gpu_error}, {"p2p_access", p2p}, {"gpus", gpus}};
}

Context context_from_job_json(const nlohmann::json& j) {
  Context context = read_context(JsonAt(j.at("document"), "worker job"));
  context.gpu_error = j.at("gpu_error");
  const auto& p2p = j.at("p2p_access");
  for (std::size_t row = 0; row < context.links.size() && row < p2p.size(); ++row)
    for (std::size_t col = 0; col < context.links[row].size() && col < p2p[row].size(); ++col)
      context.links[row][col].p2p_access = p2p[row][col].get<bool>();
  const auto& gpus = j.at("gpus");
  for (std::size_t i = 0; i < context.gpus.size() && i < gpus.size(); ++i) {
    context.gpus[i].nvlinks_total = gpus[i].at("nvlinks_total");
    if (!gpus[i].at("throttle_mask").is_null()) context.gpus[i].throttle_mask = gpus[i].at("throttle_mask");
  }
  return context;
}

nlohmann::json instance_to_json(const Instance& instance) {
  // An array of [axis, value, kind]: a JSON object would lose the axes' declaration order.
  nlohmann::json params = nlohmann::json::array();
  for (std::size_t i = 0; i < instance.params.values.size(); ++i)
    params.push_back({instance.params.values[i].first, instance.params.values[i].second,
                      kind_name(instance.params.kinds[i])});
  return {{"family", instance.family->name()}, {"name", instance.name}, {"params", params},
          {"device", instance.device}, {"skip_reason", instance.skip_reason}};
}

Instance instance_from_json(const nlohmann::json& j) {
  Instance instance;
  const std::string family = j.at("family");
  instance.family = find_family(family);
  if (!instance.family) throw std::runtime_error("worker job: unknown family '" + family + "'");
  instance.name = j.at("name");
  for (const auto& param : j.at("params")) {
    instance.params.values.emplace_back(param.at(0).get<std::string>(), param.at(1).get<std::string>());
    instance.params.kinds.push_back(kind_from_name(param.at(2).get<std::string>()));
  }
  instance.device = j.at("device");
  instance.skip_reason = j.at("skip_reason");
  return instance;
}

nlohmann::json job_to_json(const WorkerJob& job) {
  nlohmann::json instances = nlohmann::json::array();
  for (const auto& instance : job.instances) instances.push_back(instance_to_json(instance));
  return {{"settings", settings_to_json(job.settings)},
          {"context", context_to_job_json(job.context)},
          {"instances", instances}};
}

WorkerJob job_from_json(const nlohmann::json& j) {
  WorkerJob job;
  try {
    job.settings = settings_from_json(j.at("settings"));
    job.context = context_from_job_json(j.at("context"));
    for (const auto& instance : j.at("instances")) job.instances.push_back(instance_from_json(instance));
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(std::string("worker job: ") + error.what());
  }
  return job;
}

}  // namespace gpubench
