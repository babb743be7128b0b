#include "harness/report/html_results.h"

#include <cmath>

#include "harness/model/number_text.h"
#include "harness/model/text_table.h"
#include "harness/report/svg_chart.h"

namespace gpubench {
namespace {

std::string number_cell(double value, const std::string& text) {
  return "<td class=\"num\" data-v=\"" + significant_text(value, 17) + "\">" + xml_escape(text) + "</td>";
}

std::string text_cell(const std::string& text, const std::string& css = "") {
  return (css.empty() ? "<td>" : "<td class=\"" + css + "\">") + xml_escape(text) + "</td>";
}

// "yes" when every repetition verified its output, "no" when none did, "2 of 3" between.
std::string verified_of(const RunDocument& document, const std::string& name) {
  int ok = 0, verified = 0;
  for (const BenchResult& r : document.results)
    if (r.name == name && r.status == Status::kOk) ++ok, verified += r.verified ? 1 : 0;
  if (ok == 0) return "-";
  if (verified == ok) return "yes";
  return verified == 0 ? "no" : std::to_string(verified) + " of " + std::to_string(ok);
}

// Names, metrics and axes have no spaces: they may break after a slash, an underscore or an
// equals sign, so that the table fits the page.
std::string breakable(const std::string& text) {
  std::string out;
  for (char c : xml_escape(text)) out += c == '/' || c == '_' || c == '=' ? std::string(1, c) + "<wbr>" : std::string(1, c);
  return out;
}

std::string axes_cell(const BenchmarkResult& b) {
  std::string out = "<td class=\"axes\">";
  for (const auto& [axis, value] : b.params) out += breakable(axis + "=" + value) + " ";
  return out + "</td>";
}

std::string row_tone(const BenchmarkResult& b, const std::string& verdict) {
  if (!b.ok() && b.status != Status::kSkipped) return "bad";
  if (verdict == "regressed" || verdict == "not_ok") return "bad";
  if (verdict == "noisy") return "warn";
  if (verdict == "improved") return "good";
  return b.status == Status::kSkipped ? "quiet" : "";
}

std::string metric_cell(const std::string& metric) { return "<td class=\"name\">" + breakable(metric) + "</td>"; }

std::string figure_cells(const BenchmarkResult& b) {
  const auto metric = b.metrics.find(b.primary_metric);
  if (!b.ok() || metric == b.metrics.end() || !std::isfinite(metric->second.median))
    return metric_cell(b.primary_metric) + "<td class=\"num\" data-v=\"\">-</td>" + text_cell("") +
           "<td class=\"num\" data-v=\"\">-</td><td class=\"num\" data-v=\"\">-</td>";
  const MetricResult& m = metric->second;
  std::string out = metric_cell(b.primary_metric) + number_cell(m.median, format_number(m.median)) + text_cell(m.unit);
  out += m.noise_pct > 0 ? number_cell(m.noise_pct, format_number(m.noise_pct, 2) + " %")
                         : std::string("<td class=\"num\" data-v=\"\">-</td>");
  if (b.peak && *b.peak > 0) {
    const double pct = 100 * m.median / *b.peak;
    out += number_cell(pct, format_number(pct, 3) + " %");
  } else {
    out += "<td class=\"num\" data-v=\"\">-</td>";
  }
  return out;
}

std::string result_row(const BenchmarkResult& b, const ResultsTableInput& in) {
  std::string verdict;
  if (in.verdicts)
    if (const auto it = in.verdicts->find(b.name); it != in.verdicts->end()) verdict = it->second;
  const std::string tone = row_tone(b, verdict);
  std::string out = (tone.empty() ? "<tr" : "<tr class=\"" + tone + "\"") + std::string(" data-name=\"") +
                    xml_escape(b.name) + "\">";
  out += "<td class=\"name\">" + breakable(b.name) + "</td>" + text_cell(b.suite) + "<td class=\"name\">" +
         breakable(b.family) + "</td>" + axes_cell(b);
  out += figure_cells(b);
  out += "<td" + std::string(b.error.empty() ? "" : " title=\"" + xml_escape(b.error) + "\"") + ">" +
         xml_escape(to_string(b.status)) + "</td>";
  out += text_cell(b.ok() ? verified_of(*in.document, b.name) : "-");
  out += text_cell(b.ok() ? (b.throttled ? "throttled" : "no") : "-", b.throttled ? "flag" : "");
  if (in.compared) out += text_cell(verdict.empty() ? "same" : verdict, verdict.empty() ? "" : "flag");
  return out + "</tr>";
}

}  // namespace

std::string results_section(const ResultsTableInput& in) {
  std::string out =
      "<section id=\"results\"><h2>All results</h2><p>Every benchmark of the run, its primary metric's median "
      "over the repetitions. Click a column's header to sort by it.</p>"
      "<p class=\"filter\" hidden><label>Filter <input type=\"search\" id=\"results-filter\" size=\"40\" "
      "placeholder=\"name, family, axis=value, status\"></label> <span id=\"results-count\"></span></p>"
      "<table class=\"wide results\" id=\"results-table\"><thead><tr>";
  std::vector<std::string> header = {"benchmark", "suite", "family", "axes", "metric", "median", "unit",
                                     "noise", "% of peak", "status", "verified", "throttled"};
  if (in.compared) header.push_back("vs base");
  for (const std::string& h : header) out += "<th>" + xml_escape(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (const BenchmarkResult& b : in.figures->benchmarks) out += result_row(b, in);
  return out + "</tbody></table></section>";
}

// Number cells sort by data-v (empty last), others by text; the filter keeps the rows whose
// text holds every word typed.
const char* results_table_script() {
  return R"(
(function(){var table=document.getElementById('results-table');if(!table)return;
var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows),heads=table.tHead.rows[0].cells;
var filter=document.getElementById('results-filter'),count=document.getElementById('results-count');
function key(row,c){var cell=row.cells[c];if(cell.hasAttribute('data-v')){var v=cell.getAttribute('data-v');
return v===''?null:parseFloat(v);}return cell.textContent.toLowerCase();}
Array.prototype.forEach.call(heads,function(th,c){th.className+=' sortable';th.addEventListener('click',function(){
var dir=th.getAttribute('data-dir')==='asc'?-1:1;Array.prototype.forEach.call(heads,function(h){h.removeAttribute('data-dir');});
th.setAttribute('data-dir',dir>0?'asc':'desc');rows.sort(function(a,b){var x=key(a,c),y=key(b,c);
if(x===y)return 0;if(x===null)return 1;if(y===null)return -1;return (x<y?-1:1)*dir;});
rows.forEach(function(r){body.appendChild(r);});});});
function apply(){var words=filter.value.toLowerCase().split(/\s+/).filter(Boolean),shown=0;
rows.forEach(function(r){var text=r.textContent.toLowerCase();var keep=words.every(function(w){return text.indexOf(w)>=0;});
r.hidden=!keep;if(keep)shown++;});count.textContent=shown+' of '+rows.length+' results';}
filter.parentNode.parentNode.hidden=false;filter.addEventListener('input',apply);apply();})();
)";
}

}  // namespace gpubench
