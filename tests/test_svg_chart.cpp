// The SVG charts (harness/report/svg_chart.h): ticks, labels, escaping, what a chart draws.
#include <gtest/gtest.h>

#include "harness/report/svg_chart.h"

namespace gpubench {
namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(SvgChart, LinearTicksTakeNiceSteps) {
  EXPECT_EQ(linear_ticks(0, 104, 6), (std::vector<double>{0, 20, 40, 60, 80, 100, 120}));
  EXPECT_EQ(linear_ticks(0, 0.9, 4), (std::vector<double>{0, 0.25, 0.5, 0.75, 1.0}));
  EXPECT_EQ(linear_ticks(0, 0, 4).front(), 0);
}

TEST(SvgChart, LogTicksArePowersOfTwoForBytesAndOfTenElse) {
  EXPECT_EQ(log_ticks(4096, 65536, AxisFormat::kBytes), (std::vector<double>{4096, 8192, 16384, 32768, 65536}));
  const auto wide = log_ticks(4096, 4294967296.0, AxisFormat::kBytes);
  EXPECT_EQ(wide.front(), 4096);
  EXPECT_EQ(wide[1], 65536) << "every fourth power over a wide range";
  EXPECT_EQ(log_ticks(1, 1000, AxisFormat::kNumber), (std::vector<double>{1, 10, 100, 1000}));
  EXPECT_EQ(log_ticks(1000, 16384, AxisFormat::kNumber).size(), 9u) << "1, 2, 5 within two decades";
  EXPECT_TRUE(log_ticks(0, 10, AxisFormat::kNumber).empty());
}

TEST(SvgChart, TickText) {
  EXPECT_EQ(tick_text(4096, AxisFormat::kBytes), "4 KiB");
  EXPECT_EQ(tick_text(1073741824, AxisFormat::kBytes), "1 GiB");
  EXPECT_EQ(tick_text(62914560, AxisFormat::kBytes), "60 MiB");
  EXPECT_EQ(tick_text(512, AxisFormat::kBytes), "512 B");
  EXPECT_EQ(tick_text(2.5, AxisFormat::kNumber), "2.5");
  EXPECT_EQ(tick_text(1000, AxisFormat::kNumber), "1000");
  EXPECT_EQ(tick_text(10000, AxisFormat::kNumber), "10000");
  EXPECT_EQ(tick_text(2e6, AxisFormat::kNumber), "2e+06");
  EXPECT_EQ(tick_text(0, AxisFormat::kNumber), "0");
}

TEST(SvgChart, EscapesTextForXml) {
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(xml_escape(std::string("x\x1b[31m")), "x\\x1b[31m");  // visible, as on a terminal
  EXPECT_EQ(xml_escape("a\u202eb<"), "a\\u202eb&lt;");
}

Chart line_chart() {
  Chart c;
  c.id = "transfer-h2d";
  c.title = "Host to device <bandwidth>";
  c.x_label = "transfer size";
  c.y_label = "bandwidth (GB/s)";
  c.x_format = AxisFormat::kBytes;
  c.series = {{"engine:ce", {{4096, 2, "a", false}, {1048576, 40, "b", true}}, 0, false},
              {"engine:ce (base)", {{4096, 2.1, "a", false}, {1048576, 41, "b", false}}, 0, true}};
  c.y_markers = {{"peak 63.02 GB/s", 63.02}};
  c.x_markers = {{"L2 60 MiB", 62914560}};
  return c;
}

TEST(SvgChart, LineChartHasAxesLabelsLegendMarkersAndPoints) {
  const std::string svg = render_svg(line_chart());
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"chart-transfer-h2d\" class=\"chart\"", 0), 0u);
  EXPECT_NE(svg.find("Host to device &lt;bandwidth&gt;"), std::string::npos);
  EXPECT_NE(svg.find(">transfer size</text>"), std::string::npos);
  EXPECT_NE(svg.find(">bandwidth (GB/s)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">4 KiB</text>"), std::string::npos);
  EXPECT_NE(svg.find(">1 MiB</text>"), std::string::npos);
  EXPECT_NE(svg.find(">peak 63.02 GB/s</text>"), std::string::npos);
  EXPECT_EQ(svg.find("L2 60 MiB"), std::string::npos) << "a marker outside the x range is not drawn";
  EXPECT_EQ(count(svg, "class=\"series\""), 2);
  EXPECT_EQ(count(svg, "class=\"legend-item\""), 2);
  EXPECT_EQ(count(svg, "<circle"), 4);
  EXPECT_EQ(count(svg, "class=\"flagged\""), 1);
  EXPECT_EQ(count(svg, "stroke-dasharray=\"6 4\""), 2) << "the base run's line and its legend entry";
  EXPECT_LT(svg.find("data-index=\"1\" data-series=\"engine:ce (base)\""),
            svg.find("data-index=\"0\" data-series=\"engine:ce\"")) << "the base run is drawn underneath";
}

// The y attribute of the <text> element whose content is `label`.
double label_y(const std::string& svg, const std::string& label) {
  const auto end = svg.find(">" + label + "</text>");
  const auto at = svg.rfind(" y=\"", end);
  return std::stod(svg.substr(at + 4));
}

TEST(SvgChart, PastTenColoursCurvesAreDotted) {
  Chart c = line_chart();
  c.series[1].base_run = false;
  c.series[1].colour = 10;
  const std::string svg = render_svg(c);
  EXPECT_EQ(count(svg, "stroke=\"#1f77b4\" stroke-width=\"2\" stroke-dasharray=\"2 3\""), 1);
  EXPECT_EQ(count(svg, "stroke-dasharray=\"2 3\""), 2) << "its line and its legend entry";
}

TEST(SvgChart, CloseMarkerLabelsDoNotOverlap) {
  Chart c = line_chart();
  c.y_markers = {{"staged peak 63.02 GB/s", 63.02}, {"staged peak 60 GB/s", 60}};
  const std::string svg = render_svg(c);
  EXPECT_GE(label_y(svg, "staged peak 60 GB/s") - label_y(svg, "staged peak 63.02 GB/s"), 13);
}

TEST(SvgChart, BarChartDrawsABarPerFigureAndCategoryNotes) {
  Chart c;
  c.id = "gemm-precision";
  c.kind = ChartKind::kBar;
  c.title = "GEMM";
  c.x_label = "precision";
  c.y_label = "TFLOP/s";
  c.categories = {"bf16", "fp8"};
  c.category_notes = {"", "no figure: not ok"};
  c.series = {{"measured", {{0, 850, "gemm/matmul/type:bf16", false}}, 0, false},
              {"datasheet peak", {{0, 989.4, "datasheet peak, bf16", false}}, kReferenceColour, false}};
  const std::string svg = render_svg(c);
  EXPECT_EQ(count(svg, "<rect x="), 4) << "two bars and two legend swatches";
  EXPECT_NE(svg.find(">fp8</text>"), std::string::npos);
  EXPECT_NE(svg.find(">no figure: not ok</text>"), std::string::npos);
  EXPECT_NE(svg.find("<title>gemm/matmul/type:bf16: 850 TFLOP/s</title>"), std::string::npos);
}

}  // namespace
}  // namespace gpubench
