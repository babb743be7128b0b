#include "harness/report/svg_parts.h"

#include <charconv>

#include "harness/model/text_table.h"

namespace gpubench {

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : printable(text)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace svg {
namespace {

// Tableau's ten categorical colours: neighbours in the order stay apart in hue. Grey (7) is
// also what reference bars such as a datasheet peak use (kReferenceColour in svg_chart.h).
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr int kPaletteSize = sizeof kPalette / sizeof kPalette[0];

}  // namespace

std::string fixed(double value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, 1);
  return end.ec == std::errc() ? std::string(buffer, end.ptr) : std::string("0.0");
}

std::string dash_of(int colour, bool base_run) {
  if (base_run) return " stroke-dasharray=\"6 4\"";
  const int round = (colour / kPaletteSize) % 3;
  return round == 1 ? " stroke-dasharray=\"2 3\"" : round == 2 ? " stroke-dasharray=\"9 3 2 3\"" : "";
}

const char* colour_of(int index) { return kPalette[((index % kPaletteSize) + kPaletteSize) % kPaletteSize]; }

const char* verdict_colour(const std::string& verdict) {
  return verdict == "regressed" ? "#cf222e" : verdict == "improved" ? "#1a7f37" : "#000";
}

std::string triangle(double x, double y, const std::string& fill) {
  return "<polygon class=\"throttled\" points=\"" + fixed(x) + "," + fixed(y - 5) + " " + fixed(x - 4.5) + "," +
         fixed(y + 3.5) + " " + fixed(x + 4.5) + "," + fixed(y + 3.5) + "\" fill=\"" + fill +
         "\" stroke=\"#1b1f24\" stroke-width=\"1\">";
}
std::string cross(double x, double y, const std::string& colour) {
  return "<path class=\"failed\" d=\"M" + fixed(x - 4) + " " + fixed(y - 4) + "l8 8m0 -8l-8 8\" stroke=\"" + colour +
         "\" stroke-width=\"2.5\">";
}
std::string ring(double x, double y, const std::string& verdict) {
  return "<circle class=\"verdict " + verdict + "\" cx=\"" + fixed(x) + "\" cy=\"" + fixed(y) +
         "\" r=\"7\" fill=\"none\" stroke=\"" + verdict_colour(verdict) + "\" stroke-width=\"2\"/>";
}


double legend_rows(const std::vector<LegendItem>& items, std::vector<std::pair<double, double>>* at) {
  double x = kLeft, y = 0;
  for (const LegendItem& item : items) {
    const double width = 30 + 7 * static_cast<double>(item.label.size());
    if (x + width > kWidth - kRight && x > kLeft) {
      x = kLeft;
      y += kLegendRow;
    }
    at->emplace_back(x, y);
    x += width + 10;
  }
  return items.empty() ? 0 : y + kLegendRow;
}


namespace {

std::string legend_swatch(const LegendItem& item, double x, double y) {
  if (item.symbol == "throttled") return triangle(x + 12, y, "#fff") + "</polygon>";
  if (item.symbol == "failed") return cross(x + 12, y, "#57606a") + "</path>";
  if (!item.symbol.empty()) return ring(x + 12, y, item.symbol);
  if (item.line)
    return "<line x1=\"" + fixed(x) + "\" y1=\"" + fixed(y) + "\" x2=\"" + fixed(x + 24) + "\" y2=\"" + fixed(y) +
           "\" stroke=\"" + item.colour + "\" stroke-width=\"2.5\"" + item.dash + "/>";
  return "<rect x=\"" + fixed(x + 4) + "\" y=\"" + fixed(y - 6) + "\" width=\"16\" height=\"12\" fill=\"" + item.colour +
         "\"" + (item.pale ? " fill-opacity=\"0.4\"" : "") + "/>";
}

}  // namespace

std::string render_legend(const std::vector<LegendItem>& items, double top) {
  std::vector<std::pair<double, double>> at;
  legend_rows(items, &at);
  std::string out = "<g class=\"legend\">";
  for (std::size_t i = 0; i < items.size(); ++i) {
    const LegendItem& item = items[i];
    const double x = at[i].first, y = top + at[i].second + 10;
    out += item.symbol.empty() ? "<g class=\"legend-item\" data-index=\"" + std::to_string(i) + "\">"
                               : std::string("<g class=\"legend-symbol\">");
    out += legend_swatch(item, x, y) + "<text x=\"" + fixed(x + 30) + "\" y=\"" + fixed(y + 4) + "\">" +
           xml_escape(item.label) + "</text></g>";
  }
  return out + "</g>";
}


}  // namespace svg
}  // namespace gpubench
