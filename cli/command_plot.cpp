// `maeri plot`: an SVG chart from any CSV table (the files map, sweep, verify and calibrate write, or the
// reproduction script's): y columns against a numeric x column as points and lines, or grouped bars over the
// x column's values as categories (--bars). Rows can be filtered (--where COLUMN=VALUE, repeatable).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/command_line_error.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "util/svg_chart.hpp"
#include "util/atomic_file.hpp"
#include "util/csv_table.hpp"
#include "util/input_error.hpp"
#include "util/input_file.hpp"

namespace maeri::cli {
namespace {

struct PlotOptions {
  std::string csv;
  std::string x;
  std::vector<std::string> y;
  std::vector<std::string> where;
  bool bars = false, lines = false, log_x = false, log_y = false;
  std::string title, x_label, y_label;
  std::string output;
};

struct RowFilter {
  std::size_t column;
  std::string value;
};

std::vector<RowFilter> parse_filters(const PlotOptions& options, const util::CsvTable& table) {
  std::vector<RowFilter> filters;
  for (const std::string& where : options.where) {
    const std::size_t equals = where.find('=');
    if (equals == std::string::npos || equals == 0)
      throw command_line_error("--where", "expected COLUMN=VALUE, found '" + util::shown_value(where) + "'");
    filters.push_back({table.column(where.substr(0, equals)), where.substr(equals + 1)});
  }
  return filters;
}

// The number in a cell, on an axis that is logarithmic or not; a value the chart cannot place
// (util::plottable_value) is an error naming its row, not a chart that never finishes.
double number_at(const util::CsvTable& table, std::size_t row, std::size_t column, bool log_axis) {
  const auto value = util::csv_number(table.rows[row][column]);
  if (!value)
    throw util::InputError({table.path, table.row_lines[row], 0}, table.columns[column],
                          "expected a number, found '" + util::shown_value(table.rows[row][column]) + "'");
  if (!util::plottable_value(*value, log_axis))
    throw util::InputError({table.path, table.row_lines[row], 0}, table.columns[column],
                           fmt::format("{} cannot be plotted: expected a magnitude of at most {:g}{}", *value,
                                       util::kMaxChartMagnitude,
                                       log_axis ? fmt::format(" and, on the logarithmic axis, positive values of at "
                                                              "least {:g}",
                                                              1 / util::kMaxChartMagnitude)
                                                : ""));
  return *value;
}

int run_plot(const PlotOptions& options) {
  util::check_output_path(options.output);
  const util::CsvTable table = util::load_csv_table(options.csv);
  const std::size_t x = table.column(options.x);
  std::vector<std::size_t> ys;
  for (const std::string& name : options.y) ys.push_back(table.column(name));
  const std::vector<RowFilter> filters = parse_filters(options, table);
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    bool keep = true;
    for (const RowFilter& f : filters) keep = keep && table.rows[r][f.column] == f.value;
    if (keep) rows.push_back(r);
  }
  if (rows.empty())
    throw util::InputError({options.csv, 0, 0}, "", "no rows to plot" + std::string(filters.empty() ? "" : " (after --where)"));

  std::string y_label = options.y_label;
  if (y_label.empty())
    for (const std::string& name : options.y) y_label += (y_label.empty() ? "" : ", ") + name;
  const util::ChartAxes axes{options.title, options.x_label.empty() ? options.x : options.x_label, y_label,
                               options.log_x, options.log_y};
  std::string svg;
  if (options.bars) {
    std::vector<std::string> categories;
    for (const std::size_t r : rows) categories.push_back(table.rows[r][x]);
    std::vector<util::BarSeries> series;
    for (std::size_t i = 0; i < ys.size(); ++i) {
      series.push_back({options.y[i], util::series_colour(i), {}});
      for (const std::size_t r : rows) series.back().values.push_back(number_at(table, r, ys[i], false));
    }
    svg = util::bar_chart_svg(axes, categories, series);
  } else {
    std::vector<util::ChartSeries> series;
    for (std::size_t i = 0; i < ys.size(); ++i) {
      series.push_back({options.y[i], util::series_colour(i), {}, options.lines, {}});
      for (const std::size_t r : rows)
        series.back().points.push_back(
            {number_at(table, r, x, options.log_x), number_at(table, r, ys[i], options.log_y)});
    }
    svg = util::chart_svg(axes, series);
  }
  util::write_file_atomically(options.output, svg);
  fmt::print("plot: {} rows of {} -> {}\n", rows.size(), options.csv, options.output);
  return kExitOk;
}

}  // namespace

void add_plot_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<PlotOptions>();
  CLI::App* command = app.add_subcommand("plot", "SVG chart of columns of a CSV table (points/lines, or grouped bars)");
  command->add_option("--csv", options->csv, "the CSV table (first row: column names)")->required();
  command->add_option("--x", options->x, "the x column (numbers; with --bars, the category names)")->required();
  command->add_option("--y", options->y, "y column(s), one series each (comma-separated or repeated)")
      ->required()
      ->delimiter(',');
  command->add_option("--where", options->where, "keep only rows whose COLUMN equals VALUE (COLUMN=VALUE, repeatable)");
  auto* bars = command->add_flag("--bars", options->bars, "grouped bars over the x column's values");
  command->add_flag("--lines", options->lines, "join each series' points in row order")->excludes(bars);
  command->add_flag("--log-x", options->log_x, "logarithmic x axis")->excludes(bars);
  command->add_flag("--log-y", options->log_y, "logarithmic y axis")->excludes(bars);
  command->add_option("--title", options->title, "chart title");
  command->add_option("--x-label", options->x_label, "x axis label (default: the column name)");
  command->add_option("--y-label", options->y_label, "y axis label (default: the column names)");
  command->add_option("-o,--output", options->output, "the SVG file to write")->required();
  command->callback([options, &action] { action = [options] { return run_plot(*options); }; });
}

}  // namespace maeri::cli
