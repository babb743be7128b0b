#include "harness/report/html_report.h"

#include <algorithm>

#include "harness/model/health.h"
#include "harness/report/html_results.h"
#include "harness/report/svg_chart.h"
#include "harness/model/text_table.h"

namespace gpubench {
namespace {

constexpr const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1220px;padding:0 16px 40px;color:#1b1f24;background:#fff}
h1{font-size:24px;margin:24px 0 4px}h2{font-size:19px;margin:32px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}p.meta{margin:2px 0;color:#57606a}code{font-size:12px;overflow-wrap:anywhere}
nav a{margin-right:12px}table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top;}td{overflow-wrap:anywhere}th{background:#f6f8fa}
table.wide{width:100%}details{margin:6px 0 12px}summary{cursor:pointer;color:#57606a}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.results{font-size:12px}table.results td{overflow-wrap:normal;white-space:nowrap}
table.results td.name,table.results td.axes{white-space:normal;overflow-wrap:break-word}
table.results td.flag{font-weight:600}th.sortable{cursor:pointer}th[data-dir=asc]::after{content:" \25B2"}th[data-dir=desc]::after{content:" \25BC"}
tr.bad td{background:#ffebe9}tr.warn td{background:#fff8c5}tr.good td{background:#dafbe1}tr.quiet td{color:#6e7781}
.verdict{font-weight:600;padding:6px 10px;display:inline-block;border-radius:4px}
.verdict.fail{background:#ffebe9;color:#a40e26}.verdict.pass{background:#dafbe1;color:#116329}
div.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(460px,1fr));gap:6px 18px}
svg.chart{display:block;margin:8px 0 12px;width:100%;height:auto;font-size:12px;background:#fff}
svg.chart .chart-title{font-size:13px;font-weight:600}svg.chart .chart-subtitle{font-size:12px;fill:#57606a}svg.chart .axis-label{font-size:12px;fill:#333}
svg.chart .grid{stroke:#e6e8eb}svg.chart .frame{stroke:#8c959f}svg.chart .category-note{fill:#a40e26;font-size:12px}
svg.chart .marker line{stroke:#6e7781;stroke-dasharray:3 3}svg.chart .marker text{fill:#57606a;font-size:11px}
svg.chart .legend-item{cursor:pointer}svg.chart .legend-item.off{opacity:.35}svg.chart .series.off{display:none}
)";

// Marks the page as rendered once every chart has been looked at, and whether it is wider than
// the window, for the headless-browser test; a click on a legend entry hides or shows its
// series.
constexpr const char* kScript = R"(
(function(){var root=document.documentElement;try{var charts=document.querySelectorAll('svg.chart');var drawn=0;
charts.forEach(function(svg){if(svg.querySelector('.series'))drawn++;
svg.querySelectorAll('.legend-item').forEach(function(item){item.addEventListener('click',function(){
var series=svg.querySelector('.series[data-index="'+item.getAttribute('data-index')+'"]');
if(series){series.classList.toggle('off');item.classList.toggle('off');}});});});
root.setAttribute('data-charts',String(drawn));root.setAttribute('data-viewport-width',String(root.clientWidth));
root.setAttribute('data-scroll-width',String(root.scrollWidth));root.setAttribute('data-report','ready');}
catch(e){root.setAttribute('data-script-error',String(e));}})();
)";

// Benchmark names are long and have no spaces: they may break after each slash.
std::string breakable(const std::string& html) {
  std::string out;
  for (char c : html) out += c == '/' ? "/<wbr>" : std::string(1, c);
  return out;
}

// Every table spans the page's width but a small key-value one: long benchmark names wrap.
std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                       const std::vector<std::string>& row_class = {}) {
  std::string out = header.size() > 2 ? "<table class=\"wide\"><thead><tr>" : "<table><thead><tr>";
  for (const std::string& h : header) out += "<th>" + xml_escape(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::string tone = r < row_class.size() ? row_class[r] : "";
    out += tone.empty() ? "<tr>" : "<tr class=\"" + tone + "\">";
    for (const std::string& cell : rows[r]) out += "<td>" + breakable(xml_escape(cell)) + "</td>";
    out += "</tr>";
  }
  return out + "</tbody></table>";
}

std::string value_or_dash(const std::string& text) { return text.empty() ? "-" : text; }

std::string versions_section(const HtmlReportInput& in) {
  const RunDocument& d = *in.document;
  const Context& c = d.context;
  std::vector<std::vector<std::string>> rows = {
      {"gpubench", d.version + (d.git_commit.empty() ? "" : " (" + d.git_commit + ")")},
      {"driver", value_or_dash(c.driver_version)},
      {"CUDA driver / runtime", value_or_dash(c.cuda_driver) + " / " + value_or_dash(c.cuda_runtime)},
      {"cuBLAS", value_or_dash(c.cublas)},
      {"cuDNN", value_or_dash(c.cudnn)},
      {"NCCL", value_or_dash(c.nccl)},
      {"NVML", c.nvml_available ? "available" : "absent" + (c.nvml_error.empty() ? "" : ": " + c.nvml_error)},
      {"host", value_or_dash(d.host.host_name) + ", " + std::to_string(d.host.num_cpus) + " CPUs"},
  };
  for (const auto& [name, value] : c.environment) rows.push_back({name, value});
  return "<h3>Versions and environment</h3>" + html_table({"what", "value"}, rows);
}

std::string gpus_section(const Context& c) {
  std::vector<std::vector<std::string>> rows;
  auto gib = [](std::uint64_t bytes) { return format_number(static_cast<double>(bytes) / (1 << 30), 4) + " GiB"; };
  for (const GpuInfo& g : c.gpus)
    rows.push_back({"gpu" + std::to_string(g.index), g.name, g.uuid, g.pci_bus_id,
                    std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor), std::to_string(g.sm_count),
                    gib(g.memory_bytes), tick_text(static_cast<double>(g.l2_bytes), AxisFormat::kBytes),
                    std::to_string(g.sm_clock_max_mhz) + " / " + std::to_string(g.mem_clock_max_mhz) + " MHz",
                    "gen" + std::to_string(g.pcie.gen) + " x" + std::to_string(g.pcie.width) + " (max gen" +
                        std::to_string(g.pcie.gen_max) + " x" + std::to_string(g.pcie.width_max) + ")",
                    g.nvlinks_active ? std::to_string(*g.nvlinks_active) : "?",
                    g.numa_node < 0 ? "-" : std::to_string(g.numa_node),
                    g.ecc_enabled ? (*g.ecc_enabled ? "on" : "off") : "?", g.mig_mode ? (*g.mig_mode ? "on" : "off") : "?",
                    format_number(g.power_limit_w) + " W"});
  return "<h3>GPUs</h3>" + html_table({"GPU", "name", "UUID", "PCI bus", "cc", "SMs", "memory", "L2",
                                       "max SM / memory clock", "PCIe", "NVLinks", "NUMA", "ECC", "MIG", "power limit"},
                                      rows);
}

std::string links_section(const ResultFile& f) {
  if (f.links.empty()) return "";
  std::vector<std::string> header = {""};
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < f.links.size(); ++i) header.push_back("gpu" + std::to_string(i));
  for (std::size_t i = 0; i < f.links.size(); ++i) {
    rows.push_back({"gpu" + std::to_string(i)});
    rows.back().insert(rows.back().end(), f.links[i].begin(), f.links[i].end());
  }
  return "<h3>Links (as nvidia-smi topo -m)</h3>" + html_table(header, rows);
}

std::string health_section(const Context& c) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> tones;
  for (const GpuInfo& g : c.gpus)
    for (const HealthFinding& f : gpu_health(g, 0)) {
      const bool unknown = !f.unknown.empty();
      rows.push_back({"gpu" + std::to_string(g.index), to_string(f.rule), f.bad ? "BAD" : unknown ? "unknown" : "ok",
                      f.expected, f.text});
      tones.push_back(f.bad ? "bad" : unknown ? "warn" : "");
    }
  if (rows.empty()) return "<h3>Health</h3><p>No health figures in this run's context.</p>";
  return "<h3>Health (at capture)</h3>" + html_table({"GPU", "rule", "result", "expected", "seen"}, rows, tones);
}

std::string verdicts_section(const VerdictTable& v) {
  std::string out = "<section id=\"verdicts\"><h2>" + xml_escape(v.title) + "</h2><p class=\"verdict " +
                    (v.failed ? "fail" : "pass") + "\">" + xml_escape(v.summary) + "</p>";
  if (!v.unjudgeable.empty()) {
    out += "<h3>Cannot be judged</h3><ul class=\"verdict fail\">";
    for (const std::string& line : v.unjudgeable) out += "<li>" + xml_escape(line) + "</li>";
    out += "</ul>";
  }
  if (!v.context_rows.empty()) out += "<h3>Context differences</h3>" + html_table(v.context_header, v.context_rows);
  if (!v.rows.empty()) out += html_table(v.header, v.rows, v.row_tone);
  if (!v.quiet_rows.empty())
    out += "<details><summary>" + std::to_string(v.quiet_rows.size()) + " " + xml_escape(v.quiet_label) + "</summary>" +
           html_table(v.header, v.quiet_rows) + "</details>";
  if (v.unchanged > 0) out += "<p>" + std::to_string(v.unchanged) + " unchanged lines not shown.</p>";
  return out + "</section>";
}

std::vector<std::string> suites_of(const ResultFile& f, const std::vector<ReportChart>& charts) {
  std::vector<std::string> out = report_suite_order();
  for (const BenchmarkResult& b : f.benchmarks)
    if (std::find(out.begin(), out.end(), b.suite) == out.end()) out.push_back(b.suite);
  out.erase(std::remove_if(out.begin(), out.end(), [&](const std::string& s) {
              return std::none_of(f.benchmarks.begin(), f.benchmarks.end(), [&](auto& b) { return b.suite == s; }) &&
                     std::none_of(charts.begin(), charts.end(), [&](auto& c) { return c.suite == s; });
            }),
            out.end());
  return out;
}

std::string suite_section(const std::string& suite, const HtmlReportInput& in) {
  int ok = 0;
  std::vector<std::vector<std::string>> failed, skipped;
  for (const BenchmarkResult& b : in.figures->benchmarks) {
    if (b.suite != suite) continue;
    if (b.ok()) ++ok;
    else (b.status == Status::kSkipped ? skipped : failed).push_back({b.name, to_string(b.status), b.error});
  }
  std::string out = "<section id=\"suite-" + xml_escape(suite) + "\" class=\"suite\"><h2>" + xml_escape(suite) +
                    "</h2><p>" + std::to_string(ok) + " ok, " + std::to_string(failed.size()) + " failed, timed out or " +
                    "interrupted, " + std::to_string(skipped.size()) + " skipped.</p>";
  std::string charts;
  for (const ReportChart& c : in.charts)
    if (c.suite == suite) charts += render_svg(c.chart);
  out += charts.empty() ? "<p>No chart: this run has no figure of this suite that a chart draws.</p>"
                        : "<div class=\"charts\">" + charts + "</div>";
  if (!failed.empty())
    out += "<h3>Not ok: no figure</h3>" +
           html_table({"benchmark", "status", "why"}, failed, std::vector<std::string>(failed.size(), "bad"));
  if (!skipped.empty())
    out += "<details><summary>" + std::to_string(skipped.size()) + " skipped</summary>" +
           html_table({"benchmark", "status", "why"}, skipped) + "</details>";
  return out + "</section>";
}

std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + xml_escape(title) +
         "</title><style>" + kStyle + "</style></head><body>\n<h1>" + xml_escape(title) + "</h1>";
}

}  // namespace

std::string render_html_verdicts(const VerdictTable& verdicts) {
  return page_head("gpubench: " + verdicts.title) + verdicts_section(verdicts) + "\n<script>" + kScript +
         "</script></body></html>\n";
}

std::string render_html_report(const HtmlReportInput& in) {
  const RunDocument& d = *in.document;
  std::string out = page_head("gpubench report: " + in.label);
  out += "<p class=\"meta\">" + xml_escape(value_or_dash(d.host.host_name)) + ", " + xml_escape(value_or_dash(d.host.date)) +
         (d.complete ? "" : ", <strong>incomplete run</strong>") +
         (d.interrupted ? ", <strong>interrupted by " + xml_escape(*d.interrupted) + "</strong>" : "") + "</p>";
  out += "<p class=\"meta\"><code>" + xml_escape(d.command_line) + "</code></p>\n";
  const std::vector<std::string> suites = suites_of(*in.figures, in.charts);
  out += "<nav><a href=\"#context\">context</a>";
  if (in.verdicts) out += "<a href=\"#verdicts\">verdicts</a>";
  for (const std::string& s : suites) out += "<a href=\"#suite-" + xml_escape(s) + "\">" + xml_escape(s) + "</a>";
  out += "<a href=\"#results\">all results</a></nav>\n";
  out += "<section id=\"context\"><h2>Context</h2>" + versions_section(in) + gpus_section(d.context) +
         links_section(*in.figures) + health_section(d.context) + "</section>\n";
  if (in.verdicts) out += verdicts_section(*in.verdicts) + "\n";
  for (const std::string& s : suites) out += suite_section(s, in) + "\n";
  out += results_section({in.document, in.figures, in.compared, &in.changed}) + "\n";
  return out + "<script>" + kScript + results_table_script() + "</script></body></html>\n";
}

}  // namespace gpubench
