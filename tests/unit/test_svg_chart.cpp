// util/svg_chart and util/process_clock: axes refuse values they cannot place (1e308 used to loop until memory ran
// out, ±1e308 gave -nan coordinates) and end for values a few ulps apart; titles wider than the chart wrap onto two
// lines or shrink instead of being cut at both edges; the wall time counts from the process's start.
#include <catch2/catch.hpp>

#include <chrono>
#include <regex>
#include <stdexcept>
#include <thread>

#include "util/process_clock.hpp"
#include "util/svg_chart.hpp"

using namespace maeri;

namespace {

util::ChartSeries points(std::vector<std::pair<double, double>> xy) { return {"s", "black", std::move(xy), true, {}}; }

// The title lines of a chart (the centred texts at the top) and their font sizes.
std::vector<std::pair<std::string, int>> title_lines(const std::string& svg) {
  std::vector<std::pair<std::string, int>> lines;
  const std::regex title(R"re(<text x="360" y="\d+" text-anchor="middle" font-size="(\d+)">([^<]*)</text>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), title); it != std::sregex_iterator(); ++it)
    lines.emplace_back((*it)[2], std::stoi((*it)[1]));
  return lines;
}

}  // namespace

TEST_CASE("svg chart: values an axis cannot place are refused, never looped on", "[util][chart]") {
  CHECK(util::plottable_value(1e300, false));
  CHECK(util::plottable_value(-1e300, false));
  CHECK_FALSE(util::plottable_value(1e308, false));
  CHECK_FALSE(util::plottable_value(std::numeric_limits<double>::infinity(), false));
  CHECK_FALSE(util::plottable_value(std::nan(""), false));
  CHECK(util::plottable_value(-5, true));  // skipped on a logarithmic axis, not an error
  CHECK_FALSE(util::plottable_value(5e-324, true));
  CHECK(util::plottable_value(5e-324, false));
  CHECK_THROWS_AS(util::chart_svg({}, {points({{64, 1e308}, {128, 1.7976931348623157e308}})}), std::invalid_argument);
  CHECK_THROWS_AS(util::chart_svg({}, {points({{64, 1e308}, {128, -1e308}})}), std::invalid_argument);
  CHECK_THROWS_AS(util::bar_chart_svg({}, {"a"}, {{"s", "black", {1e308}}}), std::invalid_argument);
  // The widest range there is, and two values one ulp apart, give finite coordinates.
  for (const auto& [low, high] : {std::pair{-1e300, 1e300}, std::pair{1.0, 1.0000000000000002}}) {
    const std::string svg = util::chart_svg({}, {points({{0, low}, {1, high}})});
    CHECK(svg.find("nan") == std::string::npos);
    CHECK(svg.find("inf") == std::string::npos);
  }
}

TEST_CASE("svg chart: a title too wide for the chart wraps onto two lines, then shrinks", "[util][chart]") {
  const auto fits = [](const std::pair<std::string, int>& line) {
    return double(line.first.size()) * 0.6 * line.second <= 700;
  };
  SECTION("a short title: one line at 15 px, as always") {
    const auto lines = title_lines(util::chart_svg({"cycles against num_ms", "x", "y"}, {points({{1, 1}})}));
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] == std::pair<std::string, int>{"cycles against num_ms", 15});
  }
  SECTION("explore's title: two lines, every word kept") {
    const std::string title =
        "tiny on maeri-256: best found / optimum (edp; 20 runs: median, points = quartiles; geometric mean over the "
        "layers of each run's ratio)";
    const auto lines = title_lines(util::chart_svg({title, "x", "y"}, {points({{1, 1}})}));
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].first + " " + lines[1].first == title);
    CHECK(lines[0].second == lines[1].second);
    CHECK(lines[0].second < 15);
    CHECK(fits(lines[0]));
    CHECK(fits(lines[1]));
  }
  SECTION("a title longer than two lines at 9 px ends in an ellipsis") {
    const auto lines = title_lines(util::bar_chart_svg({std::string(1000, 'w'), "x", "y"}, {"a"}, {{"s", "black", {1}}}));
    REQUIRE(lines.size() == 2);
    CHECK(lines[1].second == 9);
    CHECK(lines[1].first.substr(lines[1].first.size() - 3) == "…");
    CHECK(fits(lines[0]));
  }
}

TEST_CASE("process clock: the wall time counts from the process's start, not from the first call", "[util]") {
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double first = util::seconds_since_process_start();
  CHECK(first >= 0.2);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(util::seconds_since_process_start() - first >= 0.04);
}
