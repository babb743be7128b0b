#include "harness/core/family.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "harness/model/number_text.h"
#include "harness/model/context.h"
#include "harness/model/exit_codes.h"
#include "harness/system/library.h"

namespace gpubench {

bool Params::has(const std::string& axis) const {
  for (const auto& [name, value] : values)
    if (name == axis) return true;
  return false;
}

const std::string& Params::str(const std::string& axis) const {
  for (const auto& [name, value] : values)
    if (name == axis) return value;
  throw std::out_of_range("no axis '" + axis + "'");
}

std::int64_t Params::integer(const std::string& axis) const { return std::stoll(str(axis)); }

double Params::real(const std::string& axis) const { return std::stod(str(axis)); }

int Params::gpu(const std::string& axis) const {
  const std::string& value = str(axis);
  if (value.rfind("gpu", 0) != 0) throw std::invalid_argument("axis '" + axis + "' is not a GPU");
  return std::stoi(value.substr(3));
}

nlohmann::json Params::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& [name, value] = values[i];
    if (kinds[i] == Axis::Kind::kInt)
      out[name] = std::stoll(value);
    else if (kinds[i] == Axis::Kind::kFloat)
      out[name] = std::stod(value);
    else
      out[name] = value;
  }
  return out;
}

Family::Family(std::string full_name) : name_(std::move(full_name)) {}

std::string Family::suite() const { return name_.substr(0, name_.find('/')); }

Family& Family::describe(std::string text) {
  description_ = std::move(text);
  return *this;
}

namespace {

template <typename T, typename Format>
std::vector<std::string> formatted(const std::vector<T>& values, Format format) {
  std::vector<std::string> out;
  for (const T& v : values) out.push_back(format(v));
  return out;
}

std::string int_value(std::int64_t v) { return std::to_string(v); }

}  // namespace

std::string float_axis_value(double value) {
  std::string text;
  for (int precision = 1; precision <= 17; ++precision) {
    text = significant_text(value, precision);
    if (std::strtod(text.c_str(), nullptr) == value) break;
  }
  return text;
}

Family& Family::add_axis(Axis axis) {
  for (const auto& existing : axes_)
    if (existing.name == axis.name) throw std::logic_error(name_ + ": axis '" + axis.name + "' declared twice");
  axes_.push_back(std::move(axis));
  return *this;
}

Family& Family::axis_str(std::string name, std::vector<std::string> values, std::vector<std::string> quick,
                         std::vector<std::string> by_config) {
  return add_axis({std::move(name), Axis::Kind::kString, std::move(values), std::move(quick), {}, std::move(by_config), {}});
}

Family& Family::axis_int(std::string name, std::vector<std::int64_t> values, std::vector<std::int64_t> quick) {
  return add_axis({std::move(name), Axis::Kind::kInt, formatted(values, int_value), formatted(quick, int_value), {}, {}, {}});
}

Family& Family::axis_float(std::string name, std::vector<double> values, std::vector<double> quick) {
  return add_axis(
      {std::move(name), Axis::Kind::kFloat, formatted(values, float_axis_value), formatted(quick, float_axis_value), {}, {}, {}});
}

Family& Family::axis_pow2(std::string name, int lo, int hi, int step, std::vector<std::int64_t> quick) {
  if (step <= 0 || lo < 0 || hi > 62) throw std::logic_error(name_ + ": axis_pow2 needs 0 <= lo, hi <= 62, step > 0");
  std::vector<std::int64_t> values;
  for (int e = lo; e <= hi; e += step) values.push_back(std::int64_t{1} << e);
  return axis_int(std::move(name), std::move(values), std::move(quick));
}

Family& Family::axis_gpus(std::string name) { return add_axis({std::move(name), Axis::Kind::kGpu, {}, {}, {}, {}, {}}); }

Family& Family::axis_computed(std::string name, Axis::Compute compute, Axis::Kind kind,
                              std::vector<std::string> quick, Axis::Compute by_config) {
  if (!compute) throw std::logic_error(name_ + ": axis_computed needs a function");
  return add_axis({std::move(name), kind, {}, std::move(quick), std::move(compute), {}, std::move(by_config)});
}

Family& Family::per_device() {
  per_device_ = true;
  return *this;
}

Family& Family::where(std::function<bool(const Params&)> keep) {
  keep_.push_back(std::move(keep));
  return *this;
}

Family& Family::needs_gpus(int count) {
  min_gpus_ = count;
  return *this;
}

Family& Family::needs_cc(int major, int minor) {
  min_cc_major_ = major;
  min_cc_minor_ = minor;
  return *this;
}

Family& Family::needs_library(std::string name) {
  // An unknown name is a declaration error, found at start-up; the library loads when needed.
  if (!is_known_library(name)) throw std::logic_error("unknown library '" + name + "'");
  libraries_.push_back(std::move(name));
  return *this;
}

namespace {
// An H200 holds 1980 MHz for about the first 100 ms of a BF16 GEMM, then about 1700, with dips to
// 1500 as its one-second power average reaches the limit.
constexpr double kPowerSettleS = 0.15, kPowerMinTimeS = 0.2;
// Samples of 4-10 ms after the settle: their halves' medians up to 10 % apart while the noise read
// under 0.5 % (an H100, attention at batch 32 and 3000 tokens, 2026-12-07).
constexpr double kPowerMaxHalvesApartPct = 1.0, kPowerSteadyWindowS = 1.0;
// About the gap a sweep leaves between two benchmarks (cooldown wait and set-up).
constexpr double kPowerRestS = 0.5;
}  // namespace

FamilySettings power_limited(FamilySettings base) {
  if (!base.settle_s) base.settle_s = kPowerSettleS;
  if (!base.min_time_s) base.min_time_s = kPowerMinTimeS;
  if (!base.rest_s) base.rest_s = kPowerRestS;
  if (!base.max_halves_apart_pct) base.max_halves_apart_pct = kPowerMaxHalvesApartPct;
  if (!base.steady_window_s) base.steady_window_s = kPowerSteadyWindowS;
  return base;
}

std::string power_limited_description(const FamilySettings& settings) {
  char text[640];
  const int length = std::snprintf(
      text, sizeof text,
      "Timing: samples start after %g s of load and span at least %g s, and up to %g s until the medians of their "
      "halves agree within %g %%, so a figure is the rate the GPU holds under its power limit (a benchmark of a few "
      "ms sees the boost clock: up to 15 %% more).",
      settings.settle_s.value_or(0), settings.min_time_s.value_or(0), settings.steady_window_s.value_or(0),
      settings.max_halves_apart_pct.value_or(0));
  if (settings.rest_s.value_or(0) > 0 && length > 0 && static_cast<std::size_t>(length) < sizeof text)
    std::snprintf(text + length, sizeof text - length,
                  " After algo:best's ranking the GPU rests %g s before each measurement.", *settings.rest_s);
  return text;
}

Family& Family::settings(FamilySettings settings) {
  settings_ = settings;
  return *this;
}

std::string Family::unmet_requirement(const ExpandOptions& options) const {
  if (static_cast<int>(options.devices.size()) < min_gpus_)
    return "needs " + std::to_string(min_gpus_) + " GPUs (" + std::to_string(options.devices.size()) +
           " selected)";
  for (const auto& library : libraries_) {
    const std::string reason = library_unavailable_reason(library);
    if (!reason.empty()) return "needs " + library + ": " + reason;
  }
  if (options.context && needs_gpu_ && min_cc_major_ > 0) {
    for (int device : options.devices) {
      for (const auto& gpu : options.context->gpus) {
        if (gpu.index != device) continue;
        if (std::make_pair(gpu.cc_major, gpu.cc_minor) < std::make_pair(min_cc_major_, min_cc_minor_))
          return "needs compute capability " + std::to_string(min_cc_major_) + "." + std::to_string(min_cc_minor_) +
                 " (gpu" + std::to_string(device) + " is " + std::to_string(gpu.cc_major) + "." +
                 std::to_string(gpu.cc_minor) + ")";
      }
    }
  }
  return "";
}

Family& Family::cpu_only() {
  needs_gpu_ = false;
  min_gpus_ = 0;
  return *this;
}

Family& Family::hidden() {
  hidden_ = true;
  return *this;
}

Family& Family::quiet_host() {
  quiet_host_ = true;
  return *this;
}

Family& Family::known_length(std::function<double(const Params&)> seconds) {
  known_length_ = std::move(seconds);
  return *this;
}

std::optional<double> Family::known_length_s(const Params& params) const {
  if (!known_length_) return std::nullopt;
  return known_length_(params);
}

Family& Family::run(std::function<void(State&)> body) {
  body_ = std::move(body);
  return *this;
}

std::string join_values(const std::vector<std::string>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + values[i];
  return text;
}

namespace {

std::vector<std::string> computed_quick_values(const std::vector<std::string>& computed,
                                               const std::vector<std::string>& preferred) {
  std::vector<std::string> chosen;
  for (const auto& value : preferred)
    if (std::find(computed.begin(), computed.end(), value) != computed.end()) chosen.push_back(value);
  if (chosen.empty() && !computed.empty()) chosen.push_back(computed.front());
  return chosen;
}

}  // namespace

std::vector<Axis> Family::resolved_axes(const ExpandOptions& options) const {
  std::vector<Axis> axes = axes_;
  if (per_device_) axes.push_back({"gpu", Axis::Kind::kGpu, {}, {}, {}, {}, {}});
  static const Context no_gpu;
  std::map<std::string, std::vector<std::string>> earlier;
  for (auto& axis : axes) {
    const ExpandContext expand{options.context ? *options.context : no_gpu, options.config, options.devices, earlier};
    if (axis.compute) {
      axis.values = axis.compute(expand);
      if (axis.compute_by_config) axis.by_config = axis.compute_by_config(expand);
    } else if (axis.kind == Axis::Kind::kGpu) {
      axis.values.clear();
      for (int d : options.devices) axis.values.push_back("gpu" + std::to_string(d));
    }
    const auto family_overrides = options.axis_overrides.find(name_);
    if (family_overrides != options.axis_overrides.end() && family_overrides->contains(axis.name)) {
      std::vector<std::string> chosen;
      for (const auto& v : (*family_overrides)[axis.name])
        chosen.push_back(v.is_string()         ? v.get<std::string>()
                         : v.is_number_float() ? float_axis_value(v.get<double>())
                                               : v.dump());
      if (axis.compute && axis.kind == Axis::Kind::kString) {
        std::vector<std::string> known = axis.values;
        known.insert(known.end(), axis.by_config.begin(), axis.by_config.end());
        for (const auto& value : chosen)
          if (std::find(known.begin(), known.end(), value) == known.end())
            throw UsageError{kExitBadInput, "--config: families/" + name_ + "/" + axis.name + ": '" + value +
                                                "' is not a value of axis " + axis.name + " (" +
                                                (known.empty() ? "it has none here" : join_values(known)) + ")"};
      }
      axis.values = std::move(chosen);
    } else if (options.quick && !axis.quick_values.empty()) {
      axis.values = axis.compute ? computed_quick_values(axis.values, axis.quick_values) : axis.quick_values;
    }
    earlier[axis.name] = axis.values;
  }
  return axes;
}

std::string instance_name(const std::string& family_name, const Params& params) {
  std::string name = family_name;
  for (const auto& [axis, value] : params.values) name += "/" + axis + ":" + value;
  return name;
}

std::vector<Instance> Family::expand(const ExpandOptions& options) const {
  std::vector<Instance> instances;
  if (std::string reason = unmet_requirement(options); !reason.empty()) {
    Instance skipped{this, name_, {}, options.devices.empty() ? 0 : options.devices[0], {}};
    skipped.skip_reason = std::move(reason);
    instances.push_back(std::move(skipped));
    return instances;
  }
  const std::vector<Axis> axes = resolved_axes(options);
  std::vector<std::size_t> index(axes.size(), 0);
  for (const auto& axis : axes)
    if (axis.values.empty()) return instances;
  while (true) {
    Params params;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      params.values.emplace_back(axes[a].name, axes[a].values[index[a]]);
      params.kinds.push_back(axes[a].kind);
    }
    const bool keep = std::all_of(keep_.begin(), keep_.end(), [&](const auto& k) { return k(params); });
    if (keep) {
      const int device = per_device_ ? params.gpu("gpu") : (options.devices.empty() ? 0 : options.devices[0]);
      instances.push_back({this, instance_name(name_, params), params, device, {}});
    }
    // Odometer over the axes, last axis fastest, so names come out in declaration order.
    std::size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++index[a] < axes[a].values.size()) break;
      index[a] = 0;
      if (a == 0) return instances;
    }
    if (axes.empty()) return instances;
  }
}

namespace {
std::vector<std::unique_ptr<Family>>& registry() {
  static std::vector<std::unique_ptr<Family>> families;
  return families;
}
}  // namespace

Family& family(const std::string& full_name) {
  if (full_name.find('/') == std::string::npos)
    throw std::logic_error("family name must be suite/family: " + full_name);
  for (auto& f : registry())
    if (f->name() == full_name) return *f;
  registry().push_back(std::make_unique<Family>(full_name));
  return *registry().back();
}

const std::vector<std::unique_ptr<Family>>& registered_families() { return registry(); }

const Family* find_family(const std::string& full_name) {
  for (const auto& f : registry())
    if (f->name() == full_name) return f.get();
  return nullptr;
}

std::vector<std::string> known_suites() {
  std::vector<std::string> suites;
  for (const auto& f : registry())
    if (std::find(suites.begin(), suites.end(), f->suite()) == suites.end()) suites.push_back(f->suite());
  return suites;
}

}  // namespace gpubench
