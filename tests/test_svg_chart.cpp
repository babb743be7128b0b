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
  EXPECT_EQ(log_ticks(1000, 16384, AxisFormat::kNumber), (std::vector<double>{1000, 2000, 5000, 10000, 20000}))
      << "1, 2, 5 within two decades, up to the first at or above the data";
  EXPECT_TRUE(log_ticks(0, 10, AxisFormat::kNumber).empty());
}

TEST(SvgChart, TicksCoverTheData) {
  const auto gib4 = log_ticks(1048576, 4294967296.0, AxisFormat::kBytes);
  EXPECT_EQ(gib4.front(), 1048576);
  EXPECT_EQ(gib4.back(), 4294967296.0) << "up to 4 GiB where the data reaches 4 GiB";
  EXPECT_LE(gib4.size(), 8u);
  const auto gib1 = log_ticks(4096, 1073741824, AxisFormat::kBytes);
  EXPECT_LE(gib1.front(), 4096);
  EXPECT_GE(gib1.back(), 1073741824);
  EXPECT_LE(gib1.size(), 8u);
  const auto odd = log_ticks(3000, 70000, AxisFormat::kBytes);
  EXPECT_LE(odd.front(), 3000);
  EXPECT_GE(odd.back(), 70000);
  EXPECT_GE(log_ticks(5, 5, AxisFormat::kNumber).size(), 2u);
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
  c.series = {{"engine:ce", {{4096, 30, "a"}, {16384, 40, "b", "regressed"}}, 0, false},
              {"engine:ce (base)", {{4096, 31, "a"}, {16384, 41, "b"}}, 0, true}};
  c.y_markers = {{"peak 63.02 GB/s", 63.02}};
  c.x_markers = {{"L2 60 MiB", 62914560}};
  return c;
}

TEST(SvgChart, LineChartHasAxesLabelsLegendMarkersAndPoints) {
  const std::string svg = render_svg(line_chart());
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"chart-transfer-h2d\" class=\"chart\"", 0), 0u);
  EXPECT_NE(svg.find("Host to device &lt;bandwidth&gt;"), std::string::npos);
  EXPECT_NE(svg.find(">transfer size, log scale</text>"), std::string::npos);
  EXPECT_NE(svg.find(">bandwidth (GB/s)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">4 KiB</text>"), std::string::npos);
  EXPECT_NE(svg.find(">16 KiB</text>"), std::string::npos);
  EXPECT_NE(svg.find(">peak 63.02 GB/s</text>"), std::string::npos);
  EXPECT_EQ(svg.find("L2 60 MiB"), std::string::npos) << "a marker outside the x range is not drawn";
  EXPECT_EQ(count(svg, "class=\"series\""), 2);
  EXPECT_EQ(count(svg, "class=\"legend-item\""), 2);
  EXPECT_EQ(count(svg, "<circle cx"), 4);
  EXPECT_EQ(count(svg, "class=\"verdict regressed\""), 2) << "the ringed point and its legend entry";
  EXPECT_NE(svg.find(">regressed</text>"), std::string::npos);
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
  c.series = {{"measured", {{0, 850, "gemm/matmul/type:bf16"}}, 0, false},
              {"datasheet peak", {{0, 989.4, "datasheet peak, bf16"}}, kReferenceColour, false}};
  const std::string svg = render_svg(c);
  EXPECT_EQ(count(svg, "<rect x="), 4) << "two bars and two legend swatches";
  EXPECT_NE(svg.find(">fp8</text>"), std::string::npos);
  EXPECT_NE(svg.find(">no figure: not ok</text>"), std::string::npos);
  EXPECT_NE(svg.find("<title>gemm/matmul/type:bf16: 850 TFLOP/s</title>"), std::string::npos);
}

// The plotted polylines of the series with that label.
int lines_of(const std::string& svg, const std::string& label) {
  const auto from = svg.find("data-series=\"" + label + "\"");
  return count(svg.substr(from, svg.find("</g>", from) - from), "<polyline");
}

Chart sweep(std::vector<ChartPoint> a, std::vector<ChartPoint> b) {
  Chart c;
  c.id = "sweep";
  c.x_format = AxisFormat::kBytes;
  c.series = {{"a", std::move(a), 0, false}, {"b", std::move(b), 1, false}};
  return c;
}

TEST(SvgChart, NoLineAcrossAGapACliffOrAMarkedSize) {
  const double M = 1048576;
  // a lacks 8 MiB, which b measured: a's line stops at 4 MiB and starts again at 8 MiB's far side.
  Chart gap = sweep({{1 * M, 100}, {2 * M, 110}, {4 * M, 120}, {16 * M, 125}, {32 * M, 126}},
                    {{1 * M, 50}, {8 * M, 60}});
  EXPECT_EQ(lines_of(render_svg(gap), "a"), 2);
  // Tripled between two sizes: a regime nobody measured between them.
  Chart cliff = sweep({{1 * M, 100}, {2 * M, 300}, {4 * M, 310}}, {});
  EXPECT_EQ(lines_of(render_svg(cliff), "a"), 1);
  // The L2's size between two points: no line across it, whatever the figures.
  Chart l2 = sweep({{32 * M, 100}, {64 * M, 110}, {128 * M, 112}}, {});
  l2.x_markers = {{"L2 50 MiB", 50 * M}};
  EXPECT_EQ(lines_of(render_svg(l2), "a"), 1);
  // 4 MiB to 1 GiB: nothing measured in 256x, not a sweep's step.
  Chart hole = sweep({{4 * M, 100}, {1024 * M, 110}}, {});
  EXPECT_EQ(lines_of(render_svg(hole), "a"), 0);
  Chart joined = sweep({{1 * M, 100}, {2 * M, 110}, {4 * M, 120}}, {});
  EXPECT_EQ(lines_of(render_svg(joined), "a"), 1);
}

TEST(SvgChart, LogAxesWhereTheValuesSpanDecades) {
  Chart c;
  c.id = "launch";
  c.x_label = "N";
  c.y_label = "time (us)";
  c.series = {{"a", {{1, 2.5}, {10, 0.3}, {1000, 0.004}}, 0, false}};
  std::string svg = render_svg(c);
  EXPECT_NE(svg.find(">N, log scale</text>"), std::string::npos);
  EXPECT_NE(svg.find(">0.001</text>"), std::string::npos) << "log y ticks";
  c.series = {{"a", {{1, 2.5}, {8, 2.0}}, 0, false}};
  svg = render_svg(c);
  EXPECT_NE(svg.find(">N</text>"), std::string::npos) << "8x is under a decade and a half";
  EXPECT_NE(svg.find(">0</text>"), std::string::npos) << "a linear y axis from zero";
  c.series = {{"a", {{1, 200000}, {8, 800000}}, 0, false}};
  EXPECT_NE(render_svg(c).find(">800k</text>"), std::string::npos) << "y ticks fit beside the plot";
}

TEST(SvgChart, ThrottledAndFailedPointsAreMarkedWithALegend) {
  Chart c = sweep({{4096, 10}, {8192, 12, "t", "", PointMark::kThrottled}, {16384, 0, "f", "", PointMark::kFailed}}, {});
  const std::string svg = render_svg(c);
  EXPECT_EQ(count(svg, "class=\"throttled\""), 2) << "the point and its legend entry";
  EXPECT_EQ(count(svg, "class=\"failed\""), 2);
  EXPECT_NE(svg.find(">throttled</text>"), std::string::npos);
  EXPECT_NE(svg.find(">failed: no figure</text>"), std::string::npos);
  EXPECT_NE(svg.find("<title>f: no figure (not ok)</title>"), std::string::npos);
  EXPECT_EQ(lines_of(svg, "a"), 1) << "the failed size is not joined";
}

}  // namespace
}  // namespace gpubench
