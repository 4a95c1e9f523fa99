// A hardware sweep over the ranks of a job and its outputs (see hardware_sweep.hpp).
#include "flow/hardware_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include <yaml-cpp/yaml.h>

#include "contracts/spec_loader.hpp"
#include "contracts/strict_yaml.hpp"
#include "importer/network_loader.hpp"
#include "mapper/model/report_json.hpp"
#include "util/atomic_file.hpp"
#include "util/file_names.hpp"
#include "util/progress_bar.hpp"
#include "util/svg_chart.hpp"

namespace maeri::flow {
namespace {

// Runtime and energy against one swept parameter: every valid point, and a line through the best per value.
void plot_against(const std::string& path, const std::string& field, std::size_t axis,
                  const std::vector<DesignPoint>& points, bool energy, const std::string& workload) {
  util::ChartSeries all{"all points", "#9aa5b1", {}, false, {}};
  std::map<double, double> best;
  for (const DesignPoint& p : points) {
    if (p.error) continue;
    const double x = *contracts::sweep_value_number(p.values[axis]);
    const double y = energy ? p.energy_pj / 1e6 : p.cycles;
    all.points.push_back({x, y});
    auto [it, inserted] = best.emplace(x, y);
    if (!inserted) it->second = std::min(it->second, y);
  }
  util::ChartSeries line{"best at each value", "#d62728", {best.begin(), best.end()}, true, {}};
  bool positive = true;
  for (const auto& [x, y] : best) positive = positive && x > 0;
  const util::ChartAxes axes{fmt::format("{}: {} vs {}", workload, energy ? "energy" : "runtime", field), field,
                             energy ? "energy (µJ)" : "cycles", positive, true};
  util::write_file_atomically(path, util::chart_svg(axes, {all, line}));
}

}  // namespace

bool PointRtlCheck::pass() const {
  if (!error.empty() || layers.empty()) return false;
  for (const LayerRtlCheck& layer : layers)
    if (!layer.pass || !layer.counts_exact) return false;
  return true;
}

std::string PointRtlCheck::status() const { return !error.empty() ? "ERROR" : pass() ? "PASS" : "FAIL"; }

nlohmann::json to_json(const PointRtlCheck& check) {
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerRtlCheck& l : check.layers)
    layers.push_back({{"layer", l.layer},
                      {"pass", l.pass},
                      {"outputs", l.outputs},
                      {"mismatches", l.mismatches},
                      {"counts_exact", l.counts_exact},
                      {"model_compute_cycles", l.model_compute_cycles ? nlohmann::json(*l.model_compute_cycles) : nullptr},
                      {"rtl_compute_cycles", l.rtl_compute_cycles ? nlohmann::json(*l.rtl_compute_cycles) : nullptr},
                      {"summary", l.summary}});
  nlohmann::json json = {{"status", check.status()}, {"layers", layers}};
  if (!check.error.empty()) json["error"] = check.error;
  return json;
}

PointRtlCheck point_rtl_check_from_json(const nlohmann::json& json) {
  PointRtlCheck check;
  check.error = json.value("error", std::string());
  for (const nlohmann::json& l : json.at("layers")) {
    LayerRtlCheck layer;
    layer.layer = l.at("layer").get<std::string>();
    layer.pass = l.at("pass").get<bool>();
    layer.outputs = l.at("outputs").get<std::int64_t>();
    layer.mismatches = l.at("mismatches").get<std::int64_t>();
    layer.counts_exact = l.at("counts_exact").get<bool>();
    if (!l.at("model_compute_cycles").is_null()) layer.model_compute_cycles = l.at("model_compute_cycles").get<double>();
    if (!l.at("rtl_compute_cycles").is_null()) layer.rtl_compute_cycles = l.at("rtl_compute_cycles").get<double>();
    layer.summary = l.at("summary").get<std::string>();
    check.layers.push_back(layer);
  }
  return check;
}

HardwareSweep::HardwareSweep(const HardwareSweepOptions& options, bool root) : options_(options) {
  objective_ = *mapper::parse_objective(options.objective);
  if (!options.grid_path.empty()) grid_ = contracts::load_sweep_grid(options.grid_path);
  for (const std::string& setting : options.settings)
    contracts::add_axis(grid_, contracts::parse_sweep_setting(setting), "--set");
  const std::vector<contracts::SweepPoint> grid_points =
      contracts::expand_grid(grid_, options.grid_path.empty() ? "command line" : options.grid_path);
  const YAML::Node base = contracts::load_yaml_file(options.hardware_path);
  base_hardware_ = contracts::hardware_from_yaml(base, options.hardware_path);  // the spec read once
  network_ = importer::load_network(options.workload_path, options.model_inputs);
  if (root) {
    util::create_output_directory(options.out_dir);
    util::create_output_directory(options.out_dir + "/points");
  }
  points_.resize(grid_points.size());
  costs_.assign(points_.size(), 0);
  for (std::size_t i = 0; i < grid_points.size(); ++i) {
    DesignPoint& point = points_[i];
    point.index = i;
    point.label = grid_points[i].label;
    point.values = grid_points[i].values;
    // A valid point's file reproduces it with `maeri map`. Other ranks check the same text without writing it
    // (their folder may not be rank 0's).
    const std::string point_file = fmt::format("{}/points/{:04}.yaml", options.out_dir, i + 1);
    try {
      YAML::Emitter out;
      out << contracts::apply_point(base, grid_, grid_points[i]);
      const std::string text = std::string(out.c_str()) + "\n";
      if (root) {
        util::write_file_atomically(point_file, text);
        point.hardware = contracts::load_hardware(point_file);
      } else {
        point.hardware = contracts::hardware_from_yaml(YAML::Load(text), point_file);
      }
      // The search visits about num_ms·log²(num_ms) tiles per layer: the cost that balances points over ranks.
      const double num_ms = static_cast<double>(point.hardware.num_ms);
      costs_[i] = num_ms * std::log2(num_ms) * std::log2(num_ms);
    } catch (const util::InputError& error) {
      point.error = fmt::format("point {} ({}): {}", i + 1, point.label, error.what());
    }
  }
}

void HardwareSweep::evaluate(util::TaskRunner& runner, const PointRtlChecker& check) {
  const bool root = runner.root();
  const bool bars = options_.progress_bars && root;
  const std::vector<int> owner = util::assign_longest_first(costs_, runner.ranks());
  std::vector<int> my_tasks;
  std::vector<DesignPoint> mine;
  for (std::size_t i = 0; i < points_.size(); ++i)
    if (owner[i] == runner.rank()) {
      my_tasks.push_back(int(i));
      mine.push_back(points_[i]);
    }
  {
    util::ProgressBar progress("sweep", static_cast<std::int64_t>(mine.size()), bars, stderr);
    const PointMapping how{objective_, options_.exact_traffic_for, options_.two_level, options_.fusion,
                           options_.workload_path};
    evaluate_design_points(mine, network_, how,
                           [&](std::size_t done) { progress.set_done(static_cast<std::int64_t>(done)); });
  }
  verified_ = bool(check);
  checks_.assign(points_.size(), std::nullopt);
  if (verified_) {
    std::vector<int> to_check;
    for (std::size_t m = 0; m < mine.size(); ++m)
      if (!mine[m].error) to_check.push_back(int(m));
    util::ProgressBar progress("RTL checks", static_cast<std::int64_t>(to_check.size()), bars, stderr);
    runner.run_in_processes(
        to_check, [&](int m) { return to_json(check(mine[std::size_t(m)], network_)).dump(); },
        [&](int m, util::TaskOutcome&& outcome) {
          PointRtlCheck result;
          if (outcome.ok) result = point_rtl_check_from_json(nlohmann::json::parse(outcome.bytes));
          else result.error = outcome.error;
          checks_[mine[std::size_t(m)].index] = std::move(result);
          progress.advance(mine[std::size_t(m)].label);
        });
  }
  std::vector<util::TaskOutcome> outcomes;
  for (const DesignPoint& point : mine) {
    if (root) points_[point.index] = point;
    nlohmann::json sent = {{"results", design_point_results_to_json(point)}};
    if (checks_[point.index]) sent["rtl"] = to_json(*checks_[point.index]);
    outcomes.push_back({true, sent.dump(), "", 0});
  }
  runner.gather(my_tasks, outcomes, owner, [&](int task, util::TaskOutcome&& outcome) {
    DesignPoint& point = points_[std::size_t(task)];
    if (!outcome.ok) {
      point.error = fmt::format("point {} ({}): not evaluated: {}", task + 1, point.label, outcome.error);
      return;
    }
    const nlohmann::json received = nlohmann::json::parse(outcome.bytes);
    design_point_results_from_json(point, received.at("results"));
    if (received.contains("rtl")) checks_[std::size_t(task)] = point_rtl_check_from_json(received.at("rtl"));
  });
  if (root) find_front();
}

// Pareto front over (cycles, energy) of the valid points; relative area against the smallest.
void HardwareSweep::find_front() {
  for (const DesignPoint& p : points_) {
    if (p.error) continue;
    valid_.push_back(p.index);
    coordinates_.push_back({p.cycles, p.energy_pj});
    if (p.area_um2 && (smallest_area_ == 0 || *p.area_um2 < smallest_area_)) smallest_area_ = *p.area_um2;
  }
  on_front_.assign(points_.size(), false);
  for (const std::size_t i : pareto_front(coordinates_)) on_front_[valid_[i]] = true;
}

std::string HardwareSweep::relative_area_text(const DesignPoint& point) const {
  return point.area_um2 ? fmt::format("{:.4f}", *point.area_um2 / smallest_area_) : "";
}

std::size_t HardwareSweep::front_points() const {
  return std::size_t(std::count(on_front_.begin(), on_front_.end(), true));
}

std::size_t HardwareSweep::rtl_failures() const {
  if (!verified_) return 0;
  std::size_t failures = 0;
  for (const std::size_t i : valid_)
    if (!checks_[i] || !checks_[i]->pass()) ++failures;
  return failures;
}

std::string HardwareSweep::points_csv() const {
  std::string csv = "point,label";
  for (const contracts::SweepAxis& axis : grid_.axes) csv += "," + axis.field;
  csv += std::string(",status,cycles,energy_pj,edp,utilisation,dram_bytes,area_um2,relative_area,pareto") +
         (verified_ ? ",rtl" : "") + "\n";
  for (const DesignPoint& p : points_) {
    std::string row = fmt::format("{},\"{}\"", p.index + 1, p.label);
    for (const std::string& value : p.values) row += "," + value;
    if (p.error) {
      csv += row + ",invalid,,,,,,,,\n";
      continue;
    }
    const std::string area = p.area_um2 ? fmt::format("{:.0f}", *p.area_um2) : "";
    const PointRtlCheck* check = checks_[p.index] ? &*checks_[p.index] : nullptr;
    csv += row + fmt::format(",ok,{},{},{},{},{},{},{},{}", p.cycles, p.energy_pj, p.edp(), p.utilisation,
                             p.dram_bytes, area, relative_area_text(p), on_front_[p.index] ? 1 : 0) +
           (verified_ ? "," + (check ? check->status() : std::string("ERROR")) : "") + "\n";
  }
  return csv;
}

std::string HardwareSweep::layers_csv() const {
  // A T_G column when the network has a grouped layer (as map's CSV): tables of ungrouped networks keep their form.
  const bool group_tile = std::any_of(network_.layers.begin(), network_.layers.end(),
                                      [](const contracts::Layer& layer) { return layer.groups > 1; });
  std::string csv = std::string("point,layer,t_r,t_s,t_c,t_k,t_n,t_x,t_y") + (group_tile ? ",t_g" : "") +
                    ",cycles,energy_pj,group" +
                    (verified_ ? ",rtl,outputs,mismatches,counts_exact,model_compute_cycles,"
                                 "rtl_compute_cycles" : "") + "\n";
  const auto number = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); };
  for (const DesignPoint& p : points_) {
    if (p.error) continue;
    const PointRtlCheck* check = checks_[p.index] ? &*checks_[p.index] : nullptr;
    for (std::size_t l = 0; l < p.chosen.size(); ++l) {
      const contracts::CostReport& r = p.chosen[l];
      csv += fmt::format("{},{},{},{},{},{},{},{},{}", p.index + 1, network_.layers[l].name, r.mapping[0],
                         r.mapping[1], r.mapping[2], r.mapping[3], r.mapping[4], r.mapping[5], r.mapping[6]);
      if (group_tile) csv += fmt::format(",{}", r.mapping.groups_per_step());
      csv += fmt::format(",{},{},{}", r.cycles.total, r.energy_pj.total, p.groups[l]);
      const LayerRtlCheck* rtl = check && l < check->layers.size() ? &check->layers[l] : nullptr;
      if (verified_)
        csv += rtl ? fmt::format(",{},{},{},{},{},{}", rtl->pass ? "PASS" : "FAIL", rtl->outputs, rtl->mismatches,
                                 rtl->counts_exact ? 1 : 0, number(rtl->model_compute_cycles),
                                 number(rtl->rtl_compute_cycles))
                   : ",ERROR,,,,,";
      csv += "\n";
    }
  }
  return csv;
}

nlohmann::json HardwareSweep::document() const {
  nlohmann::json json_points = nlohmann::json::array();
  for (const DesignPoint& p : points_) {
    nlohmann::json entry = {{"point", p.index + 1}, {"label", p.label}, {"values", p.values}};
    if (p.error) {
      entry["error"] = *p.error;
      json_points.push_back(entry);
      continue;
    }
    entry.update({{"hardware", p.hardware.name},
                  {"cycles", p.cycles},
                  {"energy_pj", p.energy_pj},
                  {"edp", p.edp()},
                  {"utilisation", p.utilisation},
                  {"dram_bytes", p.dram_bytes},
                  {"pareto", bool(on_front_[p.index])}});
    if (p.area_um2) entry.update({{"area_um2", *p.area_um2}, {"relative_area", *p.area_um2 / smallest_area_}});
    if (checks_[p.index]) entry["rtl"] = to_json(*checks_[p.index]);
    nlohmann::json layers = nlohmann::json::array();
    for (std::size_t l = 0; l < p.chosen.size(); ++l) {
      nlohmann::json layer = {{"layer", network_.layers[l].name}, {"chosen", mapper::to_json(p.chosen[l])}};
      if (!p.groups[l].empty()) layer["group"] = p.groups[l];
      layers.push_back(layer);
    }
    entry["layers"] = layers;
    json_points.push_back(entry);
  }
  nlohmann::json fields = nlohmann::json::array();
  for (const contracts::SweepAxis& axis : grid_.axes) fields.push_back({{"field", axis.field}, {"values", axis.values}});
  return {{"workload", network_.name}, {"base_hardware", base_hardware_.name},
          {"objective", options_.objective}, {"grid", fields}, {"points", json_points}};
}

HardwareSweepFiles HardwareSweep::write_plots() const {
  HardwareSweepFiles files;
  if (valid_.empty()) return files;
  const std::string& dir = options_.out_dir;
  for (std::size_t a = 0; a < grid_.axes.size(); ++a) {
    bool numeric = true;
    for (const std::string& value : grid_.axes[a].values)
      numeric = numeric && contracts::sweep_value_number(value).has_value();
    if (!numeric) {
      files.unplotted_fields.push_back(grid_.axes[a].field);
      continue;
    }
    for (const bool energy : {false, true}) {
      files.plots.push_back(fmt::format("{}/{}_vs_{}.svg", dir, energy ? "energy" : "runtime",
                                        util::safe_file_stem(grid_.axes[a].field)));
      plot_against(files.plots.back(), grid_.axes[a].field, a, points_, energy, network_.name);
    }
  }
  util::ChartSeries all{"design points", "#9aa5b1", {}, false, {}};
  util::ChartSeries front{"Pareto front", "#d62728", {}, true, {}};
  for (const std::size_t i : pareto_front(coordinates_)) {
    const DesignPoint& p = points_[valid_[i]];
    front.points.push_back({p.cycles, p.energy_pj / 1e6});
    front.point_labels.push_back(p.label);
  }
  for (const auto& [cycles, energy] : coordinates_) all.points.push_back({cycles, energy / 1e6});
  files.plots.push_back(dir + "/pareto.svg");
  util::write_file_atomically(
      files.plots.back(),
      util::chart_svg({network_.name + ": runtime-energy Pareto front", "cycles", "energy (µJ)", true, true},
                      {all, front}));
  return files;
}

HardwareSweepFiles HardwareSweep::write() const {
  const std::string& dir = options_.out_dir;
  util::write_file_atomically(dir + "/sweep.csv", points_csv());
  util::write_file_atomically(dir + "/sweep_layers.csv", layers_csv());
  util::write_file_atomically(dir + "/sweep.json",
                              document().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  return write_plots();
}

}  // namespace maeri::flow
