// The Prometheus output (--format prometheus, --out FILE.prom, check --format prometheus):
// golden text, the exposition format's rules checked here and by the reference client's parser
// (python3-prometheus-client), what the gauges say, and the atomic file for node exporter.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness/analysis/check.h"
#include "harness/model/prometheus.h"
#include "tests/report_fixtures.h"

namespace gpubench {
namespace {

using testing::read_file;

// Every way `text` breaks the exposition format's rules (0.0.4): metric and label names, label
// syntax and escapes, one HELP and TYPE per family before its samples, each family's samples
// together, no series twice.
std::vector<std::string> exposition_problems(const std::string& text) {
  static const std::regex sample(R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+))");
  static const std::regex label(R"(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)\"(,|$))");
  static const std::regex comment(R"(# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*))");
  std::vector<std::string> problems;
  std::set<std::string> typed, helped, series, closed;
  std::string current;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (line.rfind("#", 0) == 0) {
      if (!std::regex_match(line, m, comment)) { problems.push_back("bad comment: " + line); continue; }
      auto& seen = m[1] == "TYPE" ? typed : helped;
      if (!seen.insert(m[2]).second) problems.push_back("second " + m[1].str() + " for " + m[2].str());
      if (m[1] == "TYPE" && m[3] != "gauge" && m[3] != "counter") problems.push_back("type " + m[3].str());
      continue;
    }
    if (!std::regex_match(line, m, sample)) { problems.push_back("bad sample: " + line); continue; }
    const std::string name = m[1];
    if (!typed.count(name)) problems.push_back(name + ": sample before its TYPE");
    if (name != current) {
      if (closed.count(name)) problems.push_back(name + ": samples not together");
      closed.insert(current);
      current = name;
    }
    std::string labels = m[3];
    std::set<std::string> label_names;
    for (std::smatch l; !labels.empty(); labels = l.suffix()) {
      if (!std::regex_search(labels, l, label) || l.position(0) != 0) {
        problems.push_back("bad labels: " + line);
        break;
      }
      if (!label_names.insert(l[1]).second) problems.push_back("label twice: " + line);
    }
    try {
      std::size_t used = 0;
      const std::string value = m[4];
      if (value != "NaN" && value != "+Inf" && value != "-Inf" && (std::stod(value, &used), used != value.size()))
        problems.push_back("bad value: " + line);
    } catch (const std::exception&) {
      problems.push_back("bad value: " + line);
    }
    if (!series.insert(name + "{" + m[3].str() + "}").second) problems.push_back("series twice: " + line);
  }
  return problems;
}

// The parameters a benchmark's name spells, as the runner records them.
nlohmann::json params_of(const std::string& name) {
  nlohmann::json params = nlohmann::json::object();
  std::istringstream parts(name);
  for (std::string part; std::getline(parts, part, '/');)
    if (const auto colon = part.find(':'); colon != std::string::npos) params[part.substr(0, colon)] = part.substr(colon + 1);
  return params;
}

RunDocument mixed_run() {
  RunDocument doc = testing::document_of(testing::one_gpu_context(), testing::mixed_results(), "gpubench");
  for (BenchResult& r : doc.results) r.params = params_of(r.name);
  doc.version = "0.0.0";
  doc.git_commit = "0123456789ab";
  doc.host.host_name = "node01";
  return doc;
}

CheckReport fixed_check() {
  CheckReport report;
  report.baseline_path = "configs/baselines/h200.json";
  report.run_path = "/var/lib/gpubench/2026-12-02/run.json";
  report.host = "node01";
  report.gpu_model = "NVIDIA H200";
  report.baseline_name = "h200";
  CheckLine pass{"memory/stream/op:triad/gpu:gpu0", "memory/stream/op:triad/gpu:gpu0", "bandwidth_gbps",
                 4100, ">= 4000", 2.5};
  CheckLine fail = pass;
  fail.subject = fail.benchmark = "memory/stream/op:dot/gpu:gpu0";
  fail.value = 3000, fail.margin_pct = -25, fail.result = LineResult::kFail;
  CheckLine health{"health/gpu0/pcie", "", "pcie", std::nullopt, "gen 5 x16"};
  health.result = LineResult::kFail;
  health.note = "gen 4 x16 \"downtrained\"";
  report.lines = {pass, fail, health};
  return report;
}

void expect_valid(const std::string& text) {
  for (const auto& problem : exposition_problems(text)) ADD_FAILURE() << problem << "\n" << text;
}

TEST(Prometheus, NamesLabelsAndNumbersFollowTheFormat) {
  EXPECT_EQ(prometheus_metric_name("gpubench_memory_bandwidth-gbps.x"), "gpubench_memory_bandwidth_gbps_x");
  EXPECT_EQ(prometheus_metric_name("9lives"), "_9lives");
  EXPECT_EQ(prometheus_label_name("a:b"), "a_b");
  EXPECT_EQ(prometheus_label_name("__name"), "param__name");
  EXPECT_EQ(prometheus_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(prometheus_number(4000), "4000");
  EXPECT_EQ(prometheus_number(0.1), "0.1");
  EXPECT_EQ(prometheus_number(1.0 / 0.0), "+Inf");
}

TEST(Prometheus, TheRuleCheckCatchesBrokenText) {
  EXPECT_FALSE(exposition_problems("x 1\n").empty());  // no TYPE
  EXPECT_FALSE(exposition_problems("# TYPE x gauge\nx{a=\"1\"} 1\nx{a=\"1\"} 2\n").empty());
  EXPECT_FALSE(exposition_problems("# TYPE x gauge\nx{a=1} 1\n").empty());
  EXPECT_FALSE(exposition_problems("# TYPE x gauge\n# TYPE y gauge\nx 1\ny 1\nx{a=\"2\"} 1\n").empty());
  EXPECT_TRUE(exposition_problems("# HELP x h\n# TYPE x gauge\nx{a=\"q\\\"\"} 1\n").empty());
}

TEST(Prometheus, ASeriesIsWrittenOnceWithItsFamilyDeclaredOnce) {
  PrometheusText out;
  out.gauge("m", "help", {{"a", "1"}}, 1);
  out.gauge("n", "other", {}, 3);
  out.gauge("m", "help", {{"a", "2"}}, 2);
  out.gauge("m", "help", {{"a", "1"}}, 9);  // a duplicate would make the collector drop the file
  EXPECT_EQ(out.text(), "# HELP m help\n# TYPE m gauge\nm{a=\"1\"} 1\nm{a=\"2\"} 2\n# HELP n other\n# TYPE n gauge\nn 3\n");
}

TEST(Prometheus, RunGaugesCarryTheGpuTheParametersAndTheStatusInBaseUnits) {
  const std::string text = testing::render(mixed_run(), Format::kPrometheus);
  expect_valid(text);
  const std::string host = mixed_run().host.host_name;
  for (const std::string line :
       {"gpubench_bandwidth_bytes_per_second{suite=\"memory\",family=\"stream\",array_bytes=\"1073741824\",gpu=\"0\","
        "uuid=\"GPU-1234\",op=\"triad\",host=\"" + host + "\"} 4e+12\n",
        "gpubench_run_benchmarks{host=\"" + host + "\",status=\"failed\"} 1\n",
        "gpubench_run_complete{host=\"" + host + "\"} 1\n", "gpubench_up{host=\"" + host + "\"} 1\n",
        "gpubench_run_exit_code{host=\"" + host + "\"} 1\n",
        "gpubench_benchmark_ok{suite=\"memory\",family=\"stream\",array_bytes=\"1073741824\",gpu=\"0\",uuid=\"GPU-1234\","
        "op=\"copy\",host=\"" + host + "\",status=\"failed\"} 0\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "not in:\n" << text;
  EXPECT_EQ(text.find("gpubench_bandwidth_bytes_per_second{suite=\"memory\",family=\"stream\",array_bytes=\"1073741824\",gpu=\"0\","
                      "uuid=\"GPU-1234\",op=\"copy\""), std::string::npos)
      << "a failed benchmark has no figure:\n" << text;
  EXPECT_NE(text.find("gpubench_time_seconds{"), std::string::npos) << "time_us in seconds:\n" << text;
  EXPECT_EQ(text.find("gpubench_bandwidth_gbps"), std::string::npos) << text;
}

TEST(Prometheus, ARunThatCannotStartSaysSo) {
  HostInfo host;
  host.host_name = "node01";
  host.date = "2026-12-02T05:48:42+0000";
  const std::string text = no_run_prometheus(host, 3);
  expect_valid(text);
  EXPECT_NE(text.find("gpubench_up{host=\"node01\"} 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("gpubench_run_exit_code{host=\"node01\"} 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("gpubench_run_timestamp_seconds{host=\"node01\"} 1796190522\n"), std::string::npos) << text;
}

// promtool (Debian package prometheus) prints nothing for the file a run that cannot start
// writes, nor for a check's gauges. ctest prometheus/promtool runs it on the files the binary
// writes; this runs it in every build, on the text alone.
TEST(Prometheus, PromtoolPrintsNothingForTheNoRunFileAndACheck) {
  if (testing::run_command("command -v promtool").exit_code != 0) GTEST_SKIP() << "promtool absent (package prometheus)";
  HostInfo host;
  host.host_name = "node01";
  host.date = "2026-12-02T05:48:42+0000";
  const std::string dir = testing::temp_dir();
  for (const auto& [name, text] : {std::pair{"no-run.prom", no_run_prometheus(host, 3)},
                                   {"check.prom", check_prometheus(fixed_check())}}) {
    testing::write_file(dir + "/" + name, text);
    const auto checked = testing::run_command("promtool check metrics < " + dir + "/" + name + " 2>&1");
    EXPECT_EQ(checked.exit_code, 0) << name << ": " << checked.out;
    EXPECT_EQ(checked.out, "") << name;
  }
}

TEST(Prometheus, RepetitionsAreOneSeries) {
  RunDocument doc = mixed_run();
  doc.results.resize(1);
  for (int i = 1; i < 3; ++i) {
    doc.results.push_back(doc.results[0]);
    doc.results.back().repetition_index = i;
    for (double& v : doc.results.back().metrics["bandwidth_gbps"].values) v *= 1 + 0.01 * i;
  }
  const std::string text = testing::render(doc, Format::kPrometheus);
  expect_valid(text);
  EXPECT_NE(text.find("op=\"triad\",host=\"" + doc.host.host_name + "\"} 4.04e+12\n"), std::string::npos) << "the repetitions' median:\n" << text;
}

TEST(Prometheus, ParametersThatNeedEscapingStayValid) {
  RunDocument doc = mixed_run();
  doc.results[0].params = {{"status", "a\"b"}, {"odd-name", "back\\slash\nnewline"}, {"gpu", "gpu7"}};
  expect_valid(testing::render(doc, Format::kPrometheus));
}

TEST(Prometheus, CheckGaugesCarryTheVerdict) {
  const std::string text = check_prometheus(fixed_check());
  expect_valid(text);
  testing::expect_golden(text, "check.prom");
  EXPECT_NE(text.find("gpubench_check_ok{host=\"node01\",gpu_model=\"NVIDIA H200\",baseline=\"h200\"} 0\n"),
            std::string::npos) << text;
  // A label is the same every night: no file path of the baseline or of the night's run.
  EXPECT_EQ(text.find("run.json"), std::string::npos) << text;
  EXPECT_EQ(text.find("configs/"), std::string::npos) << text;
  EXPECT_EQ(render_check(fixed_check(), "prometheus"), text);
}

TEST(Prometheus, TheFileAppearsWholeWhenTheRunFinishes) {
  const std::string dir = testing::temp_dir() + "/textfile";
  std::filesystem::create_directory(dir);
  const std::string path = dir + "/gpubench.prom";
  auto reporter = prometheus_file_reporter(path);
  RunDocument start = mixed_run();
  start.results.clear();
  reporter->context(start);
  reporter->result(mixed_run().results[0]);
  EXPECT_FALSE(std::filesystem::exists(path)) << "the collector would read a partial run";
  reporter->finish(mixed_run());
  EXPECT_EQ(read_file(path), testing::render(mixed_run(), Format::kPrometheus));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1) << "a temporary file was left";
  EXPECT_TRUE(is_prometheus_path(path));
  EXPECT_FALSE(is_prometheus_path(dir + "/run.json"));
}

TEST(Prometheus, TheReferenceParserReadsTheGoldenFiles) {
  const std::string python = testing::python_with("prometheus_client");
  if (python.empty()) GTEST_SKIP() << "no python3 with prometheus_client (package python3-prometheus-client)";
  const std::string root = std::string(GPUBENCH_SOURCE_DIR) + "/tests/";
  const std::string escaped = testing::temp_dir() + "/escaped.prom";
  RunDocument doc = mixed_run();
  doc.results[0].params = {{"odd-name", "back\\slash \"quoted\"\nnewline"}, {"gpu", "gpu0"}};
  testing::write_file(escaped, testing::render(doc, Format::kPrometheus));
  const auto out = testing::run_command(python + " " + root + "prometheus_parse.py " + root + "golden/run.prom " +
                                        root + "golden/check.prom " + escaped);
  EXPECT_EQ(out.exit_code, 0) << out.out;
}

TEST(Prometheus, ARunWritesTheJsonAndThePrometheusFiles) {
  if (!GPUBENCH_HAVE_CUDA) GTEST_SKIP() << "this build does not run benchmarks";
  const std::string dir = testing::temp_dir();
  const auto r = testing::run_gpubench("--suite selftest --filter 'cpu_faults/fault:none$' --format prometheus --out " +
                                       dir + "/run.json --out " + dir + "/node.prom");
  ASSERT_EQ(r.exit_code, 0) << testing::describe(r);
  expect_valid(r.out);
  EXPECT_EQ(read_file(dir + "/node.prom"), r.out);
  EXPECT_NE(r.out.find("gpubench_benchmark_ok{suite=\"selftest\",family=\"cpu_faults\",fault=\"none\""), std::string::npos) << r.out;
  EXPECT_EQ(nlohmann::json::parse(read_file(dir + "/run.json")).at("benchmarks").size(), 1u);
}

}  // namespace
}  // namespace gpubench
