// `maeri sweep`: a hardware grid (any field of the hardware spec, from a grid file and/or --set) × a workload. Each
// point's best mapping per layer and network totals with an area estimate, as a table, CSV, JSON, the point's
// hardware YAML, and SVG plots of runtime and energy against every swept parameter and of the runtime-energy
// Pareto front (docs/sweep.md).
#include <fmt/format.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/mpi_ranks.hpp"
#include "cli/process_pool.hpp"
#include "cli/sweep_verification.hpp"
#include "importer/network_loader.hpp"
#include "codegen/exact_traffic.hpp"
#include "mapper/search/design_sweep.hpp"
#include "mapper/model/report_json.hpp"
#include "util/svg_chart.hpp"
#include "util/atomic_file.hpp"
#include "util/file_names.hpp"
#include "util/progress_bar.hpp"
#include "contracts/spec_loader.hpp"
#include "contracts/strict_yaml.hpp"
#include "contracts/sweep_grid.hpp"

namespace maeri::cli {
namespace {

struct SweepOptions {
  std::string hardware;
  std::string workload;
  std::string grid;
  std::vector<std::string> settings;
  std::string objective = "edp";
  std::string out_dir = "sweep";
  bool skip_invalid = false;
  bool single_level = false;
  bool verify = false;
  std::string verify_memory = "both";
  int jobs = 1;
  double timeout = 0;
  std::uint64_t seed = 1;
  double rank_timeout = 0;
};

// Runtime and energy against one swept parameter: every valid point, and a line through the best per value.
void plot_against(const std::string& path, const std::string& field, std::size_t axis,
                  const std::vector<mapper::DesignPoint>& points, bool energy, const std::string& workload) {
  util::ChartSeries all{"all points", "#9aa5b1", {}, false, {}};
  std::map<double, double> best;
  for (const mapper::DesignPoint& p : points) {
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

int run_sweep(const SweepOptions& options) {
  const auto objective = mapper::parse_objective(options.objective);
  contracts::SweepGrid grid;
  if (!options.grid.empty()) grid = contracts::load_sweep_grid(options.grid);
  for (const std::string& setting : options.settings) contracts::add_axis(grid, contracts::parse_sweep_setting(setting), "--set");
  const std::vector<contracts::SweepPoint> grid_points =
      contracts::expand_grid(grid, options.grid.empty() ? "command line" : options.grid);
  const YAML::Node base = contracts::load_yaml_file(options.hardware);
  const contracts::Hardware base_hardware = contracts::load_hardware(options.hardware);  // the base itself must be valid
  const contracts::Network network = importer::load_network(options.workload);
  // Under mpirun every rank builds the same point list; each evaluates its share and rank 0 gathers the results
  // and writes every output (docs/sweep.md, "Many cores and machines").
  Ranks ranks;
  const bool root = ranks.rank() == 0;
  if (root) {
    util::create_output_directory(options.out_dir);
    util::create_output_directory(options.out_dir + "/points");
  }

  std::vector<mapper::DesignPoint> points(grid_points.size());
  std::vector<double> costs(points.size(), 0);
  for (std::size_t i = 0; i < grid_points.size(); ++i) {
    mapper::DesignPoint& point = points[i];
    point.index = i;
    point.label = grid_points[i].label;
    point.values = grid_points[i].values;
    // Each point's spec is written first and loaded back like any hardware file, so an invalid point's error
    // points at a line of a file the user can open (and a valid point's file reproduces it with `maeri map`).
    // Other ranks check the same text without writing it (their folder may not be rank 0's).
    const std::string point_file = fmt::format("{}/points/{:04}.yaml", options.out_dir, i + 1);
    try {
      YAML::Emitter out;
      out << contracts::apply_point(base, grid, grid_points[i]);
      const std::string text = std::string(out.c_str()) + "\n";
      if (root) {
        util::write_file_atomically(point_file, text);
        point.hardware = contracts::load_hardware(point_file);
      } else {
        point.hardware = contracts::hardware_from_yaml(YAML::Load(text), point_file);
      }
      // The search visits about num_ms·log²(num_ms) tiles per layer: the cost that balances points over ranks.
      const double num_ms = static_cast<double>(point.hardware.num_ms);
      costs[i] = num_ms * std::log2(num_ms) * std::log2(num_ms);
    } catch (const util::InputError& error) {
      point.error = fmt::format("point {} ({}): {}", i + 1, point.label, error.what());
    }
  }

  if (root)
    fmt::print("sweep of '{}' over {} points ({} fields) of '{}', objective {}, {} rank(s)\n", network.name,
               points.size(), grid.axes.size(), base_hardware.name, options.objective, ranks.size());
  const std::vector<int> owner = assign_longest_first(costs, ranks.size());
  std::vector<int> my_tasks;
  std::vector<mapper::DesignPoint> mine;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (owner[i] == ranks.rank()) {
      my_tasks.push_back(int(i));
      mine.push_back(points[i]);
    }
  {
    util::ProgressBar progress("sweep", static_cast<std::int64_t>(mine.size()), root && isatty(STDERR_FILENO), stderr);
    mapper::evaluate_design_points(
        mine, network, *objective,
        codegen::exact_traffic_for,  // ranked and reported with exact DN/RN traffic, as `maeri map` does
        [&](std::size_t done) { progress.set_done(static_cast<std::int64_t>(done)); }, !options.single_level);
  }
  // --verify: each of this rank's valid points co-simulated in a child process of its own (one fabric per process).
  std::vector<std::optional<PointRtlCheck>> checks(points.size());
  if (options.verify) {
    std::vector<int> to_check;
    for (std::size_t m = 0; m < mine.size(); ++m)
      if (!mine[m].error) to_check.push_back(int(m));
    util::ProgressBar progress("RTL checks", static_cast<std::int64_t>(to_check.size()),
                               root && isatty(STDERR_FILENO), stderr);
    run_in_processes(
        to_check, {options.jobs, options.timeout},
        [&](int m) {
          return to_json(check_point_on_rtl(mine[std::size_t(m)], network,
                                            memory_runs_named(options.verify_memory), options.seed))
              .dump();
        },
        [&](int m, TaskOutcome&& outcome) {
          PointRtlCheck check;
          if (outcome.ok) check = point_rtl_check_from_json(nlohmann::json::parse(outcome.bytes));
          else check.error = outcome.error;
          checks[mine[std::size_t(m)].index] = std::move(check);
          progress.advance(mine[std::size_t(m)].label);
        });
  }
  std::vector<TaskOutcome> outcomes;
  for (const mapper::DesignPoint& point : mine) {
    if (root) points[point.index] = point;
    nlohmann::json sent = {{"results", mapper::design_point_results_to_json(point)}};
    if (checks[point.index]) sent["rtl"] = to_json(*checks[point.index]);
    outcomes.push_back({true, sent.dump(), "", 0});
  }
  ranks.gather(my_tasks, outcomes, owner, options.rank_timeout, [&](int task, TaskOutcome&& outcome) {
    mapper::DesignPoint& point = points[std::size_t(task)];
    if (!outcome.ok) {
      point.error = fmt::format("point {} ({}): not evaluated: {}", task + 1, point.label, outcome.error);
      return;
    }
    const nlohmann::json received = nlohmann::json::parse(outcome.bytes);
    mapper::design_point_results_from_json(point, received.at("results"));
    if (received.contains("rtl")) checks[std::size_t(task)] = point_rtl_check_from_json(received.at("rtl"));
  });
  if (!root) return kExitOk;

  // Pareto front over (cycles, energy) of the valid points; relative area against the smallest.
  std::vector<std::size_t> valid;
  std::vector<std::pair<double, double>> coordinates;
  double smallest_area = 0;
  for (const mapper::DesignPoint& p : points) {
    if (p.error) continue;
    valid.push_back(p.index);
    coordinates.push_back({p.cycles, p.energy_pj});
    if (p.area_um2 && (smallest_area == 0 || *p.area_um2 < smallest_area)) smallest_area = *p.area_um2;
  }
  std::vector<bool> on_front(points.size(), false);
  for (const std::size_t i : mapper::pareto_front(coordinates)) on_front[valid[i]] = true;

  std::string csv = "point,label";
  for (const contracts::SweepAxis& axis : grid.axes) csv += "," + axis.field;
  csv += std::string(",status,cycles,energy_pj,edp,utilisation,dram_bytes,area_um2,relative_area,pareto") +
         (options.verify ? ",rtl" : "") + "\n";
  std::string layers_csv = std::string("point,layer,t_r,t_s,t_c,t_k,t_n,t_x,t_y,cycles,energy_pj") +
                           (options.verify ? ",rtl,outputs,mismatches,counts_exact,model_compute_cycles,"
                                             "rtl_compute_cycles" : "") + "\n";
  std::size_t rtl_failures = 0;
  nlohmann::json json_points = nlohmann::json::array();
  fmt::print("\n{:>5} {:<40} {:>14} {:>12} {:>7} {:>14} {:>9} {:>6}\n", "point", "grid values", "cycles", "energy µJ",
             "util", "DRAM bytes", "rel.area", "pareto");
  std::size_t invalid = 0;
  for (const mapper::DesignPoint& p : points) {
    std::string row = fmt::format("{},\"{}\"", p.index + 1, p.label);
    for (const std::string& value : p.values) row += "," + value;
    nlohmann::json entry = {{"point", p.index + 1}, {"label", p.label}, {"values", p.values}};
    if (p.error) {
      ++invalid;
      fmt::print("{:>5} {:<40} invalid: {}\n", p.index + 1, p.label, *p.error);
      csv += row + ",invalid,,,,,,,,\n";
      entry["error"] = *p.error;
      json_points.push_back(entry);
      continue;
    }
    const std::string area = p.area_um2 ? fmt::format("{:.0f}", *p.area_um2) : "";
    const std::string relative = p.area_um2 ? fmt::format("{:.4f}", *p.area_um2 / smallest_area) : "";
    fmt::print("{:>5} {:<40} {:>14.0f} {:>12.3f} {:>6.1f}% {:>14} {:>9} {:>6}\n", p.index + 1, p.label, p.cycles,
               p.energy_pj / 1e6, 100 * p.utilisation, p.dram_bytes, relative.empty() ? "-" : relative,
               on_front[p.index] ? "*" : "");
    const PointRtlCheck* check = checks[p.index] ? &*checks[p.index] : nullptr;
    csv += row + fmt::format(",ok,{},{},{},{},{},{},{},{}", p.cycles, p.energy_pj, p.edp(), p.utilisation,
                             p.dram_bytes, area, relative, on_front[p.index] ? 1 : 0) +
           (options.verify ? "," + (check ? check->status() : std::string("ERROR")) : "") + "\n";
    if (options.verify) {
      if (!check || !check->pass()) ++rtl_failures;
      if (check && !check->error.empty()) fmt::print("      RTL check of point {}: {}\n", p.index + 1, check->error);
      if (check)
        for (const LayerRtlCheck& layer : check->layers)
          if (!layer.pass || !layer.counts_exact)
            fmt::print("      RTL check of point {}, layer {}: {}{}\n", p.index + 1, layer.layer, layer.summary,
                       layer.counts_exact ? "" : "; activity counts differ from the model");
    }
    entry.update({{"hardware", p.hardware.name},
                  {"cycles", p.cycles},
                  {"energy_pj", p.energy_pj},
                  {"edp", p.edp()},
                  {"utilisation", p.utilisation},
                  {"dram_bytes", p.dram_bytes},
                  {"pareto", bool(on_front[p.index])}});
    if (p.area_um2) entry.update({{"area_um2", *p.area_um2}, {"relative_area", *p.area_um2 / smallest_area}});
    if (check) entry["rtl"] = to_json(*check);
    nlohmann::json layers = nlohmann::json::array();
    for (std::size_t l = 0; l < p.best.size(); ++l) {
      const contracts::CostReport& r = p.best[l];
      layers_csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{}", p.index + 1, network.layers[l].name,
                                r.mapping[0], r.mapping[1], r.mapping[2], r.mapping[3], r.mapping[4], r.mapping[5], r.mapping[6],
                                r.cycles.total, r.energy_pj.total);
      const LayerRtlCheck* rtl = check && l < check->layers.size() ? &check->layers[l] : nullptr;
      const auto number = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); };
      if (options.verify)
        layers_csv += rtl ? fmt::format(",{},{},{},{},{},{}", rtl->pass ? "PASS" : "FAIL", rtl->outputs,
                                        rtl->mismatches, rtl->counts_exact ? 1 : 0, number(rtl->model_compute_cycles),
                                        number(rtl->rtl_compute_cycles))
                          : ",ERROR,,,,,";
      layers_csv += "\n";
      layers.push_back({{"layer", network.layers[l].name}, {"best", mapper::to_json(r)}});
    }
    entry["layers"] = layers;
    json_points.push_back(entry);
  }

  const std::string& dir = options.out_dir;
  util::write_file_atomically(dir + "/sweep.csv", csv);
  util::write_file_atomically(dir + "/sweep_layers.csv", layers_csv);
  nlohmann::json fields = nlohmann::json::array();
  for (const contracts::SweepAxis& axis : grid.axes) fields.push_back({{"field", axis.field}, {"values", axis.values}});
  const nlohmann::json document = {{"workload", network.name}, {"base_hardware", base_hardware.name},
                                   {"objective", options.objective}, {"grid", fields}, {"points", json_points}};
  util::write_file_atomically(dir + "/sweep.json",
                              document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  std::vector<std::string> plots;
  if (!valid.empty()) {
    for (std::size_t a = 0; a < grid.axes.size(); ++a) {
      bool numeric = true;
      for (const std::string& value : grid.axes[a].values) numeric = numeric && contracts::sweep_value_number(value).has_value();
      if (!numeric) {
        fmt::print("no plot against {}: its values are not all numbers\n", grid.axes[a].field);
        continue;
      }
      for (const bool energy : {false, true}) {
        plots.push_back(fmt::format("{}/{}_vs_{}.svg", dir, energy ? "energy" : "runtime", util::safe_file_stem(grid.axes[a].field)));
        plot_against(plots.back(), grid.axes[a].field, a, points, energy, network.name);
      }
    }
    util::ChartSeries all{"design points", "#9aa5b1", {}, false, {}};
    util::ChartSeries front{"Pareto front", "#d62728", {}, true, {}};
    for (const std::size_t i : mapper::pareto_front(coordinates)) {
      const mapper::DesignPoint& p = points[valid[i]];
      front.points.push_back({p.cycles, p.energy_pj / 1e6});
      front.point_labels.push_back(p.label);
    }
    for (const auto& [cycles, energy] : coordinates) all.points.push_back({cycles, energy / 1e6});
    plots.push_back(dir + "/pareto.svg");
    util::write_file_atomically(plots.back(),
                                util::chart_svg({network.name + ": runtime-energy Pareto front", "cycles",
                                                   "energy (µJ)", true, true},
                                                  {all, front}));
  }
  fmt::print("\n{} points: {} evaluated, {} invalid; Pareto front: {} points\n", points.size(), valid.size(), invalid,
             std::count(on_front.begin(), on_front.end(), true));
  fmt::print("wrote {0}/sweep.csv, {0}/sweep_layers.csv, {0}/sweep.json, {0}/points/*.yaml", dir);
  for (const std::string& plot : plots) fmt::print(", {}", plot.substr(dir.size() + 1));
  fmt::print("\n");
  if (options.verify)
    fmt::print("RTL checks (best mapping of every layer, bit-exact with exact activity counts): {} of {} points pass\n",
               valid.size() - rtl_failures, valid.size());
  if (invalid > 0 && !options.skip_invalid) {
    std::fprintf(stderr, "error: %zu of %zu points are invalid (listed above; --skip-invalid accepts that)\n", invalid,
                 points.size());
    return ranks.finish(kExitBadInput);
  }
  return ranks.finish(rtl_failures > 0 ? kExitCheckFailed : kExitOk);
}

}  // namespace

void add_sweep_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<SweepOptions>();
  CLI::App* command = app.add_subcommand(
      "sweep", "Design-space sweep: best mappings and totals of a workload at every point of a hardware grid");
  command->add_option("--hardware", options->hardware, "base hardware spec (YAML); the grid replaces its fields")
      ->required();
  command->add_option("--workload", options->workload, "workload spec (YAML) or ONNX model (.onnx)")->required();
  command->add_option("--grid", options->grid, "grid file (kind: sweep, docs/sweep.md)");
  command->add_option("--set", options->settings,
                      "FIELD=V1,V2,... or FIELD=FROM:TO:xFACTOR or FIELD=FROM:TO:+STEP (repeatable; FIELD is a "
                      "hardware-spec field, e.g. dn_bw or sdm.capacity_kib)");
  command->add_option("--objective", options->objective, "runtime, energy or edp: what each layer's best minimises")
      ->check(CLI::IsMember({"runtime", "energy", "edp"}))
      ->capture_default_str();
  command->add_option("-o,--out-dir", options->out_dir, "output folder")->capture_default_str();
  command->add_flag("--single-level", options->single_level,
                    "search each layer's fabric tiles alone, as `maeri map --single-level` (default: the joint "
                    "space, as `maeri map`)");
  command->add_flag("--skip-invalid", options->skip_invalid,
                    "exit 0 even when some points are invalid (they are still listed and written)");
  command->add_flag("--verify", options->verify,
                    "co-simulate the best mapping of every layer at every valid point on its fabric (prebuilt or "
                    "built on demand), bit-exact with the model's activity counts; exit 3 if one fails");
  command->add_option("--verify-memory", options->verify_memory,
                      "with --verify: ideal memory (compute cycles), the SDM/DRAM models, or both")
      ->check(CLI::IsMember({"ideal", "dram", "both"}))
      ->capture_default_str();
  command->add_option("--jobs,-j", options->jobs, "with --verify: points co-simulated at once (one process each)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  command->add_option("--timeout", options->timeout, "with --verify: seconds a point may take before it is killed")
      ->check(CLI::Range(0.0, 1e9));
  command->add_option("--seed", options->seed, "with --verify: seed of the random tensors (as maeri verify's)")
      ->capture_default_str();
  command->add_option("--rank-timeout", options->rank_timeout,
                      "under MPI: seconds rank 0 waits for the other ranks' points once its own are done")
      ->check(CLI::Range(0.0, 1e9));
  command->footer("Example: maeri sweep --hardware configs/hardware/maeri-256.yaml "
                  "--workload configs/workloads/mrna-table2.yaml --set num_ms=64:1024:x2 --set dn_bw=8,32,128 "
                  "--skip-invalid -o sweep");
  command->callback([options, &action] { action = [options] { return run_sweep(*options); }; });
}

}  // namespace maeri::cli
