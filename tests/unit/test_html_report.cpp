// The HTML report (report/html_report.hpp) on a hand-built sample (unit/report_sample.hpp): every operator has its
// section, fused groups their boxes, the switches' VN colours follow codegen's placement, user names are escaped,
// and the page names no URL (it must open without a network).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "codegen/tile_placement.hpp"
#include "report/fabric_drawing.hpp"
#include "report/html_report.hpp"
#include "report/html_text.hpp"
#include "report/network_graph.hpp"
#include "tests/unit/report_sample.hpp"
#include "tests/unit/temp_file.hpp"

using namespace maeri;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t found = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++found;
  return found;
}

// The first fabric drawing of the page (conv1's).
std::string first_fabric(const std::string& page) {
  const std::size_t begin = page.find("<svg class=\"fabric\"");
  REQUIRE(begin != std::string::npos);
  return page.substr(begin, page.find("</svg>", begin) - begin);
}

contracts::FabricTile tile_of(std::array<std::int64_t, 7> size, std::int64_t groups = 1) {
  contracts::FabricTile tile;
  tile.size = size;
  tile.groups = groups;
  return tile;
}

}  // namespace

TEST_CASE("HTML report: a section per operator, a node per operator, a box per fused group") {
  const report::ReportData data = test::sample_report();
  const std::string page = report::report_html(data);
  CHECK(count(page, "<section class=\"layer\"") == 3);
  CHECK(count(page, "<section class=\"unit-op\"") == 2);
  for (std::size_t i = 0; i < data.operators.size(); ++i) {
    CHECK(count(page, "id=\"op-" + std::to_string(i) + "\"") == 1);
    CHECK(count(page, "href=\"#op-" + std::to_string(i) + "\"") >= 2);  // graph node and cycle bar
  }
  CHECK(count(page, "<g class=\"node fabric\">") == 3);
  CHECK(count(page, "<g class=\"node unit\">") == 2);
  CHECK(count(page, "<path class=\"edge\"") == 5);
  CHECK(count(page, "class=\"group-box\"") == 2);
  CHECK(count(page, "<svg class=\"fabric\"") == 3);
  CHECK(count(page, "<g class=\"bar\">") == 5 + 3);  // cycles of every operator, DRAM of every fabric layer
  CHECK(count(page, "verdict pass") == 1);
  CHECK(count(page, "verdict fail") == 1);
  // conv1 (1000 vs 1040), conv2's cycles exact, the multiplies exact, the totals both inexact.
  CHECK(count(page, "<tr class=\"inexact\">") == 2 + 2);
  CHECK(count(page, "member 1 of 2 of fused group <b>g0</b>: output in SDM") == 1);
}

TEST_CASE("HTML report: the switches are coloured by the VN the toolkit places on them") {
  const std::string fabric = first_fabric(report::report_html(test::sample_report()));
  // (3,3,1,2,1,1,1) on 64 switches: VN 0 on MS 0-8, VN 1 on MS 9-17, 46 idle.
  CHECK(count(fabric, "class=\"ms vn\" data-vn=\"0\"") == 9);
  CHECK(count(fabric, "class=\"ms vn\" data-vn=\"1\"") == 9);
  CHECK(count(fabric, "class=\"ms vn\"") == 18);
  CHECK(count(fabric, "class=\"ms idle\"") == 46);
  CHECK(count(fabric, "<title>MS 9: VN 1 (k=1 n=0 x'=0 y'=0)</title>") == 1);
  CHECK(count(fabric, "class=\"dn-switch\"") == 63);
  CHECK(count(fabric, "class=\"rn-adder") == 63);
  contracts::Hardware hardware;
  hardware.num_ms = 64;
  hardware.dn_bw = hardware.rn_bw = 16;
  CHECK(std::int64_t(count(fabric, "class=\"art-link\"")) == contracts::derive_structure(hardware).rn_forward_links);
  // The adders over MS 0-7 (its 4 pairs, 2 quads and the octet) reduce VN 0 alone; over 9-17 the pairs (10,11),
  // (12,13), (14,15), (16,17) and the quad 12-15 reduce VN 1 alone; the pair (8,9) holds both.
  CHECK(count(fabric, "class=\"rn-adder vn\"") == 7 + 5);
}

TEST_CASE("HTML report: the drawing's VN placement is codegen's") {
  for (const auto& [tile, num_ms] : std::vector<std::pair<contracts::FabricTile, int>>{
           {tile_of({3, 3, 1, 2, 1, 1, 1}), 64}, {tile_of({1, 3, 2, 2, 1, 2, 2}), 64},
           {tile_of({3, 3, 1, 1, 1, 1, 1}, 4), 64}, {tile_of({1, 1, 1, 1, 1, 1, 1}), 8},
           {tile_of({7, 7, 1, 2, 2, 1, 1}), 256}}) {
    codegen::PhaseShape shape;
    shape.t_r = int(tile[0]), shape.t_s = int(tile[1]), shape.t_c = int(tile[2]), shape.t_k = int(tile[3]);
    shape.t_n = int(tile[4]), shape.t_x = int(tile[5]), shape.t_y = int(tile[6]), shape.t_g = int(tile.groups);
    const codegen::TilePlacement placement = codegen::place_tile(num_ms, shape, false);
    CHECK(report::switch_vns(tile, num_ms) == codegen::vn_of_switch(placement.layout));
    for (std::size_t v = 0; v < placement.vn_offsets.size(); ++v) {
      const codegen::VnOffset& offset = placement.vn_offsets[v];
      std::string expected = "k=" + std::to_string(offset.k) + " n=" + std::to_string(offset.n) +
                             " x'=" + std::to_string(offset.x) + " y'=" + std::to_string(offset.y);
      if (tile.groups > 1) expected = "g=" + std::to_string(offset.g) + " " + expected;
      CHECK(report::vn_offsets_text(tile, int(v)) == expected);
    }
  }
  CHECK_THROWS_AS(report::switch_vns(tile_of({3, 3, 8, 1, 1, 1, 1}), 64), std::invalid_argument);
}

TEST_CASE("HTML report: user names are escaped and the page names no URL") {
  const std::string page = report::report_html(test::sample_report());
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("<b>bold</b>") == std::string::npos);
  CHECK(page.find("fc&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;") != std::string::npos);
  CHECK(page.find("g1 &lt;b&gt;bold&lt;/b&gt; &amp; &#39;quoted&#39;") != std::string::npos);
  CHECK(page.find("http") == std::string::npos);
  CHECK(page.find("src=") == std::string::npos);
  CHECK(page.find("@import") == std::string::npos);
  CHECK(count(page, "url(") == count(page, "url(#arrow)"));
}

TEST_CASE("HTML report: a large fabric is drawn as runs of switches and its upper tree levels") {
  report::ReportData data = test::sample_report();
  data.hardware.num_ms = 4096;
  const std::string page = report::report_html(data);
  const std::string fabric = first_fabric(page);
  CHECK(count(fabric, "class=\"ms-run vn\"") == 2);
  CHECK(count(fabric, "class=\"ms-run idle\"") == 1);
  CHECK(count(fabric, "class=\"dn-switch\"") == 127);  // levels with up to 64 switches
  CHECK(page.size() < 400000);
}

TEST_CASE("HTML report: data it cannot draw is refused, naming it") {
  report::ReportData data = test::sample_report();
  data.operators[1].inputs = {3};
  CHECK_THROWS_WITH(report::report_html(data), Catch::Contains("operator 1 (conv2) reads operator 3"));
  data = test::sample_report();
  data.groups[0].members.push_back(9);
  CHECK_THROWS_WITH(report::report_html(data), Catch::Contains("fused group g0 names operator 9"));
  CHECK(report::graph_depths(test::sample_report().operators) == std::vector<std::size_t>{0, 1, 2, 3, 4});
}

TEST_CASE("HTML report: written atomically, a map report has the model's column only") {
  report::ReportData data = test::sample_report();
  data.title = "maeri map";
  data.verdicts.clear();
  for (report::Operator& op : data.operators)
    for (report::MetricRow& row : op.metrics) row.rtl.reset();
  test::TempDir dir;
  report::write_report(dir / "map.html", data);
  std::ifstream in(dir / "map.html");
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == report::report_html(data));
  CHECK(count(text.str(), "<tr class=\"inexact\">") == 2);  // the network totals only
  CHECK(text.str().find("id=\"verdicts\"") == std::string::npos);
}

TEST_CASE("HTML report: numbers are written for people") {
  CHECK(report::number_text(0) == "0");
  CHECK(report::number_text(1234567) == "1,234,567");
  CHECK(report::number_text(-1000) == "-1,000");
  CHECK(report::number_text(0.125) == "0.125");
  CHECK(report::number_text(12.5) == "12.5");
  CHECK(report::number_text(1876.875) == "1,876.9");
  CHECK(report::number_text(3145966.3) == "3,145,966.3");
  CHECK(report::number_text(-0.0001) == "0");
  CHECK(report::short_label("résumé-layer", 3) == "rés\u2026");
  CHECK(report::short_label("abc", 3) == "abc");
}

TEST_CASE("HTML report: the tree levels left out are named") {
  report::ReportData data = test::sample_report();
  data.hardware.num_ms = 256;
  std::string fabric = first_fabric(report::report_html(data));
  CHECK(count(fabric, "… 1 DN level (128 switches) not drawn") == 1);
  CHECK(count(fabric, "… 1 RN level (128 adders) not drawn") == 1);
  data.hardware.num_ms = 4096;
  fabric = first_fabric(report::report_html(data));
  CHECK(count(fabric, "… 5 DN levels (128 to 2048 switches each) not drawn") == 1);
  CHECK(count(fabric, "… 5 RN levels (128 to 2048 adders each) not drawn") == 1);
}
