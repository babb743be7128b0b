#include "harness/model/prometheus.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace gpubench {
namespace {

bool name_char(char c, bool colon_allowed) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         (colon_allowed && c == ':');
}

std::string sanitised(const std::string& text, bool colon_allowed) {
  std::string name;
  for (char c : text) name += name_char(c, colon_allowed) ? c : '_';
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) name.insert(name.begin(), '_');
  return name;
}

std::string help_text(const std::string& text) {
  std::string escaped;
  for (char c : text) escaped += c == '\\' ? "\\\\" : c == '\n' ? "\\n" : std::string(1, c);
  return escaped;
}

}  // namespace

std::string prometheus_metric_name(const std::string& text) { return sanitised(text, true); }

std::string prometheus_label_name(const std::string& text) {
  const std::string name = sanitised(text, false);
  return name.rfind("__", 0) == 0 ? "param" + name : name;
}

std::string prometheus_label_value(const std::string& text) {
  std::string escaped;
  for (char c : text) escaped += c == '\\' ? "\\\\" : c == '"' ? "\\\"" : c == '\n' ? "\\n" : std::string(1, c);
  return escaped;
}

std::string prometheus_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return std::string(text, end);
}

void PrometheusText::gauge(const std::string& name, const std::string& help, const PromLabels& labels,
                           double value) {
  const std::string metric = prometheus_metric_name(name);
  auto family = std::find_if(families_.begin(), families_.end(), [&](const Family& f) { return f.name == metric; });
  if (family == families_.end()) family = families_.insert(families_.end(), Family{metric, help, {}, {}});
  std::string series;
  for (const auto& [label, text] : labels)
    series += (series.empty() ? "{" : ",") + prometheus_label_name(label) + "=\"" + prometheus_label_value(text) + "\"";
  if (!series.empty()) series += "}";
  if (std::find(family->series.begin(), family->series.end(), series) != family->series.end()) return;
  family->series.push_back(series);
  family->values.push_back(value);
}

std::string PrometheusText::text() const {
  std::string out;
  for (const Family& f : families_) {
    out += "# HELP " + f.name + " " + help_text(f.help) + "\n# TYPE " + f.name + " gauge\n";
    for (std::size_t i = 0; i < f.series.size(); ++i)
      out += f.name + f.series[i] + " " + prometheus_number(f.values[i]) + "\n";
  }
  return out;
}

}  // namespace gpubench
