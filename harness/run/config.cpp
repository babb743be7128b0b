#include "harness/run/config.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "harness/model/exit_codes.h"
#include "harness/model/number_rules.h"
#include "harness/core/family.h"
#include "harness/run/node_plan.h"

namespace gpubench {
namespace {

[[noreturn]] void bad(const std::string& source, const std::string& path, const std::string& what) {
  throw UsageError{kExitBadInput, source + ": " + path + ": " + what};
}

double positive_number(const nlohmann::json& value, const std::string& source, const std::string& path) {
  if (!value.is_number()) bad(source, path, "expected a positive number");
  if (const auto problem = positive_number_problem(value.get<double>())) bad(source, path, *problem);
  return value.get<double>();
}

int positive_integer(const nlohmann::json& value, const std::string& source, const std::string& path) {
  if (!value.is_number_integer()) bad(source, path, "expected a positive integer");
  if (const auto problem = positive_count_problem(value.get<long long>())) bad(source, path, *problem);
  return value.get<int>();
}

// gpu0 .. gpu9999, as GPU axes name GPUs; Params::gpu() parses exactly this.
bool is_gpu_name(const std::string& s) {
  return s.size() > 3 && s.size() <= 7 && s.rfind("gpu", 0) == 0 &&
         s.find_first_not_of("0123456789", 3) == std::string::npos;
}

bool has_value(const Axis& axis, const std::string& value) {
  for (const auto* values : {&axis.values, &axis.by_config})
    if (std::find(values->begin(), values->end(), value) != values->end()) return true;
  return false;
}

void check_axis_values(const Family& family, const std::string& axis_name, const nlohmann::json& values,
                       const std::string& source, const std::string& path) {
  const auto& axes = family.axes();
  auto axis = std::find_if(axes.begin(), axes.end(), [&](const Axis& a) { return a.name == axis_name; });
  if (axis == axes.end() && !(family.is_per_device() && axis_name == "gpu")) {
    std::string known;
    for (const auto& a : axes) known += (known.empty() ? "" : ", ") + a.name;
    bad(source, path, "family " + family.name() + " has no axis '" + axis_name + "' (axes: " + known + ")");
  }
  if (!values.is_array() || values.empty()) bad(source, path, "expected a non-empty array of values");
  const Axis::Kind kind = axis == axes.end() ? Axis::Kind::kGpu : axis->kind;
  // A computed axis has its values only at expansion, which checks a string value against them.
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string item = path + "/" + std::to_string(i);
    const auto& v = values[i];
    if (kind == Axis::Kind::kInt) {
      if (!v.is_number_integer() || v.get<long long>() < 0) bad(source, item, "expected a non-negative integer");
    } else if (!v.is_string()) {
      bad(source, item, "expected a string");
    } else if (kind == Axis::Kind::kGpu && !is_gpu_name(v.get<std::string>())) {
      bad(source, item, "'" + v.get<std::string>() + "' is not a GPU (gpu0, gpu1, ...)");
    } else if (kind == Axis::Kind::kString && !axis->compute && !has_value(*axis, v.get<std::string>())) {
      bad(source, item, "'" + v.get<std::string>() + "' is not a value of axis " + axis_name);
    }
  }
}

}  // namespace

RunConfig parse_config(const nlohmann::json& json, const std::string& source) {
  if (!json.is_object()) bad(source, "/", "expected a JSON object");
  RunConfig config;
  for (const auto& [key, value] : json.items()) {
    const std::string path = "/" + key;
    if (key == "suites") {
      if (!value.is_array()) bad(source, path, "expected an array of suite names");
      const auto known = known_suites();
      for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string item = path + "/" + std::to_string(i);
        if (!value[i].is_string()) bad(source, item, "expected a string");
        const auto suite = value[i].get<std::string>();
        if (suite != "all" && std::find(known.begin(), known.end(), suite) == known.end())
          bad(source, item, "unknown suite '" + suite + "'");
        config.suites.push_back(suite);
      }
    } else if (key == "filter") {
      if (!value.is_string()) bad(source, path, "expected a regular expression string");
      config.filter = value.get<std::string>();
    } else if (key == "settings") {
      if (!value.is_object()) bad(source, path, "expected an object");
      for (const auto& [name, setting] : value.items()) {
        const std::string item = path + "/" + name;
        if (name == "min_time") config.min_time_s = positive_number(setting, source, item);
        else if (name == "max_noise") config.max_noise_pct = positive_number(setting, source, item);
        else if (name == "max_time") config.max_time_s = positive_number(setting, source, item);
        else if (name == "timeout") config.timeout_s = positive_number(setting, source, item);
        else if (name == "min_samples") config.min_samples = positive_integer(setting, source, item);
        else if (name == "repetitions") config.repetitions = positive_integer(setting, source, item);
        else bad(source, item, "unknown setting (known: min_time, max_noise, max_time, timeout, min_samples, repetitions)");
      }
    } else if (key == "families") {
      if (!value.is_object()) bad(source, path, "expected an object of family -> axis -> values");
      for (const auto& [family_name, axes] : value.items()) {
        const std::string family_path = path + "/" + family_name;
        const Family* family = find_family(family_name);
        if (!family) bad(source, family_path, "unknown family '" + family_name + "'");
        if (!axes.is_object()) bad(source, family_path, "expected an object of axis -> values");
        for (const auto& [axis_name, values] : axes.items())
          check_axis_values(*family, axis_name, values, source, family_path + "/" + axis_name);
      }
      config.axis_overrides = value;
    } else if (key == "repetitions_by_family") {
      if (!value.is_object()) bad(source, path, "expected an object of family -> repetitions");
      for (const auto& [family_name, count] : value.items()) {
        const std::string item = path + "/" + family_name;
        if (!find_family(family_name)) bad(source, item, "unknown family '" + family_name + "'");
        config.repetitions_by_family[family_name] = positive_integer(count, source, item);
      }
    } else if (key == "axes") {
      if (!value.is_object()) bad(source, path, "expected an object of documents for computed axes");
      config.axis_documents = value;
    } else if (key == "concurrent") {
      if (!value.is_boolean()) bad(source, path, "expected true or false");
      config.concurrent = value.get<bool>();
    } else if (key == "solo_reference") {
      if (!value.is_string()) bad(source, path, "expected \"none\", \"first\" or \"every\"");
      config.solo_reference = value.get<std::string>();
      solo_reference_from(config.solo_reference, source + ": " + path);
    } else if (key != "description") {
      bad(source, path,
          "unknown key (known: description, suites, filter, settings, families, repetitions_by_family, axes, concurrent, "
          "solo_reference)");
    }
  }
  return config;
}

RunConfig load_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError{kExitBadInput, path + ": cannot open config file"};
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& error) {
    throw UsageError{kExitBadInput, path + ": byte " + std::to_string(error.byte) + ": malformed JSON"};
  }
  return parse_config(json, path);
}

}  // namespace gpubench
