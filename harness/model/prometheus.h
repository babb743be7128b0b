#pragma once
// The Prometheus text exposition format (version 0.0.4), as node exporter's textfile collector
// reads it: `# HELP` and `# TYPE` once per metric family, then that family's samples together,
// names of [a-zA-Z_:][a-zA-Z0-9_:]*, label values escaped. The collector rejects a whole file
// over one duplicate series, so a series already added is not added again (the first stands).
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

using PromLabels = std::vector<std::pair<std::string, std::string>>;

class PrometheusText {
 public:
  // Adds a sample of gauge `name` (sanitised), declaring the family with `help` on first use.
  void gauge(const std::string& name, const std::string& help, const PromLabels& labels, double value);
  std::string text() const;

 private:
  struct Family {
    std::string name, help;
    std::vector<std::string> series;  // `{labels}`, in the order added
    std::vector<double> values;
  };
  std::vector<Family> families_;
};

// Any text as a metric name: characters outside [a-zA-Z0-9_:] become '_', a leading digit
// gets a '_' before it.
std::string prometheus_metric_name(const std::string& text);
// As a label name ([a-zA-Z_][a-zA-Z0-9_]*; names starting "__" are reserved and get "param").
std::string prometheus_label_name(const std::string& text);
// Backslash, double quote and newline escaped as the format requires.
std::string prometheus_label_value(const std::string& text);
// Shortest text that reads back exactly; NaN, +Inf, -Inf as the format spells them.
std::string prometheus_number(double value);

}  // namespace gpubench
