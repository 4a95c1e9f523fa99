// Reading, expanding and applying `maeri sweep` grids (see sweep_grid.hpp; format in docs/sweep.md).
#include "contracts/sweep_grid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "util/input_error.hpp"
#include "contracts/strict_yaml.hpp"

namespace maeri::contracts {
namespace {

// Fields that name the spec rather than describe the hardware: a sweep point gets its own name.
const std::set<std::string> kUnsweptFields = {"kind", "name"};

bool is_integer_text(const std::string& text) {
  if (text.empty()) return false;
  std::size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return false;
  for (; i < text.size(); ++i)
    if (text[i] < '0' || text[i] > '9') return false;
  return true;
}

std::string format_value(double value, bool integers) {
  return integers ? fmt::format("{}", static_cast<long long>(std::llround(value))) : fmt::format("{:.10g}", value);
}

// Values of a range; `problem` receives the reason when the range is malformed. Integer bounds and steps give
// integer values; the end is inclusive (with a relative tolerance for real steps).
std::vector<std::string> range_values(const std::string& from_text, const std::string& to_text,
                                      const std::string& by_text, bool geometric, std::string& problem) {
  const auto from = sweep_value_number(from_text), to = sweep_value_number(to_text), by = sweep_value_number(by_text);
  if (!from || !to || !by) {
    problem = "range bounds and step must be numbers";
    return {};
  }
  if (*to < *from) {
    problem = fmt::format("range end {} is below its start {}", to_text, from_text);
    return {};
  }
  if (geometric && (*by <= 1 || *from <= 0)) {
    problem = "a geometric range needs start > 0 and factor > 1";
    return {};
  }
  if (!geometric && *by <= 0) {
    problem = "an arithmetic range needs step > 0";
    return {};
  }
  const bool integers = is_integer_text(from_text) && is_integer_text(by_text);
  std::vector<std::string> values;
  const double tolerance = 1e-9 * std::max(std::abs(*to), 1.0);
  for (double value = *from; value <= *to + tolerance; value = geometric ? value * *by : value + *by) {
    if (values.size() == kMaxSweepAxisValues) {
      problem = fmt::format("range has more than {} values (kMaxSweepAxisValues)", kMaxSweepAxisValues);
      return {};
    }
    values.push_back(format_value(value, integers));
  }
  return values;
}

}  // namespace

std::optional<double> sweep_value_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::size_t used = 0;
  try {
    const double value = std::stod(text, &used);
    if (used != text.size() || !std::isfinite(value)) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void add_axis(SweepGrid& grid, SweepAxis axis, const std::string& origin) {
  const std::string top = axis.field.substr(0, axis.field.find('.'));
  if (axis.field.empty() || axis.field.front() == '.' || axis.field.back() == '.' ||
      axis.field.find("..") != std::string::npos)
    throw util::InputError({origin, 0, 0}, "grid", "'" + axis.field + "' is not a field path (e.g. dn_bw, sdm.capacity_kib)");
  if (kUnsweptFields.count(top))
    throw util::InputError({origin, 0, 0}, axis.field, "names the spec, not the hardware: it cannot be swept");
  for (const SweepAxis& existing : grid.axes)
    if (existing.field == axis.field) throw util::InputError({origin, 0, 0}, axis.field, "is swept twice");
  if (axis.values.empty()) throw util::InputError({origin, 0, 0}, axis.field, "has no values");
  if (axis.values.size() > kMaxSweepAxisValues)
    throw util::InputError({origin, 0, 0}, axis.field,
                    fmt::format("has {} values, more than {} (kMaxSweepAxisValues)", axis.values.size(),
                                kMaxSweepAxisValues));
  grid.axes.push_back(std::move(axis));
}

SweepAxis parse_sweep_setting(const std::string& text) {
  const auto fail = [&](const std::string& problem) -> SweepAxis {
    throw util::InputError({"command line", 0, 0}, "--set", "'" + text + "': " + problem);
  };
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
    return fail("expected FIELD=V1,V2,... or FIELD=FROM:TO:xFACTOR or FIELD=FROM:TO:+STEP");
  SweepAxis axis{text.substr(0, equals), {}};
  const std::string values = text.substr(equals + 1);
  if (values.find(':') != std::string::npos) {
    const std::size_t first = values.find(':'), second = values.find(':', first + 1);
    if (second == std::string::npos || values.find(':', second + 1) != std::string::npos || second + 2 > values.size())
      return fail("a range is FROM:TO:xFACTOR or FROM:TO:+STEP");
    const char kind = values[second + 1];
    if (kind != 'x' && kind != '+') return fail("a range's step starts with x (geometric) or + (arithmetic)");
    std::string problem;
    axis.values = range_values(values.substr(0, first), values.substr(first + 1, second - first - 1),
                               values.substr(second + 2), kind == 'x', problem);
    if (!problem.empty()) return fail(problem);
    return axis;
  }
  std::size_t start = 0;
  while (start <= values.size()) {
    const std::size_t comma = std::min(values.find(',', start), values.size());
    const std::string value = values.substr(start, comma - start);
    if (value.empty()) return fail("empty value in the list");
    axis.values.push_back(value);
    start = comma + 1;
  }
  return axis;
}

SweepGrid load_sweep_grid(const std::string& path) {
  const YAML::Node document = load_yaml_file(path);
  StrictMap root(document, path, "");
  if (root.choice("kind", {"sweep"}) != "sweep") root.fail("kind", "expected 'sweep'");
  const YAML::Node grid_node = document["grid"];
  if (!grid_node || !grid_node.IsMap() || grid_node.size() == 0)
    root.fail("grid", "expected a non-empty map from hardware fields to lists or ranges of values");
  root.map("grid");  // marks the key as known; its entries are read below
  root.finish();

  SweepGrid grid;
  for (const auto& entry : grid_node) {
    const std::string field = entry.first.as<std::string>();
    const YAML::Node& value = entry.second;
    const util::SourceLocation where = location_of(path, value);
    SweepAxis axis{field, {}};
    if (value.IsSequence()) {
      if (value.size() > kMaxSweepAxisValues)
        throw util::InputError(where, "grid." + field,
                        fmt::format("more than {} values (kMaxSweepAxisValues)", kMaxSweepAxisValues));
      for (const YAML::Node& element : value) {
        if (!element.IsScalar())
          throw util::InputError(location_of(path, element), "grid." + field,
                          "expected scalar values, found " + describe_node(element));
        axis.values.push_back(element.Scalar());
      }
    } else if (value.IsMap()) {
      StrictMap range(value, path, "grid." + field);
      const bool geometric = range.has("times");
      if (geometric == range.has("step")) range.fail_here("a range has either `times` (geometric) or `step` (arithmetic)");
      const std::string by_key = geometric ? "times" : "step";
      std::string problem;
      axis.values = range_values(value["from"] ? value["from"].Scalar() : "", value["to"] ? value["to"].Scalar() : "",
                                 value[by_key].Scalar(), geometric, problem);
      range.number("from", -1e300, 1e300);
      range.number("to", -1e300, 1e300);
      range.number(by_key, -1e300, 1e300);
      range.finish();
      if (!problem.empty()) range.fail_here(problem);
    } else {
      throw util::InputError(where, "grid." + field,
                      "expected a list of values or a range {from, to, times|step}, found " + describe_node(value));
    }
    add_axis(grid, std::move(axis), path);
  }
  return grid;
}

std::vector<SweepPoint> expand_grid(const SweepGrid& grid, const std::string& origin) {
  if (grid.axes.empty())
    throw util::InputError({origin, 0, 0}, "grid", "empty grid: give --grid FILE or at least one --set FIELD=VALUES");
  std::size_t total = 1;
  for (const SweepAxis& axis : grid.axes) {
    if (total > kMaxSweepPoints / axis.values.size())
      throw util::InputError({origin, 0, 0}, "grid", fmt::format("more than {} points (kMaxSweepPoints)", kMaxSweepPoints));
    total *= axis.values.size();
  }
  std::vector<SweepPoint> points(total);
  for (std::size_t index = 0; index < total; ++index) {
    SweepPoint& point = points[index];
    point.index = index;
    point.values.resize(grid.axes.size());
    std::size_t rest = index;
    for (std::size_t a = grid.axes.size(); a-- > 0;) {  // last axis varies fastest
      point.values[a] = grid.axes[a].values[rest % grid.axes[a].values.size()];
      rest /= grid.axes[a].values.size();
    }
    for (std::size_t a = 0; a < grid.axes.size(); ++a)
      point.label += (a ? " " : "") + grid.axes[a].field + "=" + point.values[a];
  }
  return points;
}

YAML::Node apply_point(const YAML::Node& base, const SweepGrid& grid, const SweepPoint& point) {
  YAML::Node document = YAML::Clone(base);
  for (std::size_t a = 0; a < grid.axes.size(); ++a) {
    // Walk (creating maps as needed) to the parent of the last path component. yaml-cpp's operator[] on a
    // non-const node returns a reference-like node, so assignments write through to `document`.
    std::vector<std::string> parts;
    std::size_t start = 0;
    const std::string& field = grid.axes[a].field;
    while (true) {
      const std::size_t dot = field.find('.', start);
      parts.push_back(field.substr(start, dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    std::vector<YAML::Node> chain{document};
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      YAML::Node next = chain.back()[parts[i]];
      if (next && !next.IsMap())
        throw util::InputError({"point " + std::to_string(point.index + 1) + " (" + point.label + ")", 0, 0}, field,
                        "'" + parts[i] + "' is not a map in the base hardware spec, so it has no field '" +
                            parts[i + 1] + "'");
      if (!next) chain.back()[parts[i]] = YAML::Node(YAML::NodeType::Map);
      chain.push_back(chain.back()[parts[i]]);
    }
    chain.back()[parts.back()] = point.values[a];
  }
  const std::string base_name = base["name"] && base["name"].IsScalar() ? base["name"].Scalar() : "hardware";
  document["name"] = base_name + "[" + point.label + "]";
  return document;
}

}  // namespace maeri::contracts
