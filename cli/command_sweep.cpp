// `maeri sweep`: a hardware grid (any field of the hardware spec, from a grid file and/or --set) × a workload. Each
// point's decision as `maeri map` makes it (every layer's mapping in its role, the fused groups) and network totals with an area estimate, as a table, CSV, JSON, the point's
// hardware YAML, and SVG plots of runtime and energy against every swept parameter and of the runtime-energy
// Pareto front (docs/sweep.md).
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/model_input_options.hpp"
#include "codegen/exact_traffic.hpp"
#include "flow/hardware_sweep.hpp"
#include "testbench/sweep_verification.hpp"
#include "util/mpi_ranks.hpp"

namespace maeri::cli {
namespace {

struct SweepCommandLine {
  flow::HardwareSweepOptions sweep;
  bool skip_invalid = false;
  bool single_level = false;
  bool no_fusion = false;
  bool verify = false;
  std::string verify_memory = "both";
  int jobs = 1;
  double timeout = 0;
  std::uint64_t seed = 1;
  double rank_timeout = 0;
};

void print_point(const flow::HardwareSweep& sweep, const flow::DesignPoint& p) {
  if (p.error) {
    fmt::print("{:>5} {:<40} invalid: {}\n", p.index + 1, p.label, *p.error);
    return;
  }
  const std::string relative = sweep.relative_area_text(p);
  fmt::print("{:>5} {:<40} {:>14.0f} {:>12.3f} {:>6.1f}% {:>14} {:>6} {:>9} {:>6}\n", p.index + 1, p.label,
             p.cycles, p.energy_pj / 1e6, 100 * p.utilisation, p.dram_bytes, p.fused_groups(),
             relative.empty() ? "-" : relative,
             sweep.on_front(p.index) ? "*" : "");
  if (!sweep.verified() || !sweep.rtl_check(p.index)) return;
  const flow::PointRtlCheck& check = *sweep.rtl_check(p.index);
  if (!check.error.empty()) fmt::print("      RTL check of point {}: {}\n", p.index + 1, check.error);
  for (const flow::LayerRtlCheck& layer : check.layers)
    if (!layer.pass || !layer.counts_exact)
      fmt::print("      RTL check of point {}, layer {}: {}{}\n", p.index + 1, layer.layer, layer.summary,
                 layer.counts_exact ? "" : "; activity counts differ from the model");
}

int run_sweep(SweepCommandLine& line) {
  // Under mpirun every rank builds the same point list; each evaluates its share and rank 0 gathers the results
  // and writes every output (docs/sweep.md, "Many cores and machines").
  util::RankRunner runner({line.jobs, line.timeout}, line.rank_timeout);
  line.sweep.two_level = !line.single_level;
  line.sweep.fusion = !line.no_fusion;
  line.sweep.exact_traffic_for = codegen::exact_traffic_for;  // ranked and reported with exact traffic, as `map`
  line.sweep.progress_bars = isatty(STDERR_FILENO);
  flow::HardwareSweep sweep(line.sweep, runner.root());
  if (runner.root())
    fmt::print("sweep of '{}' over {} points ({} fields) of '{}', objective {}, {} rank(s)\n", sweep.network().name,
               sweep.points().size(), sweep.grid().axes.size(), sweep.base_hardware().name, line.sweep.objective,
               runner.ranks());
  flow::PointRtlChecker check;
  if (line.verify)
    check = [&](const flow::DesignPoint& point, const contracts::Network& network) {
      return testbench::check_point_on_rtl(point, network, testbench::memory_runs_named(line.verify_memory),
                                           line.seed, line.sweep.workload_path);
    };
  sweep.evaluate(runner, check);
  if (!runner.root()) return kExitOk;

  fmt::print("\n{:>5} {:<40} {:>14} {:>12} {:>7} {:>14} {:>6} {:>9} {:>6}\n", "point", "grid values", "cycles",
             "energy µJ", "util", "DRAM bytes", "fused", "rel.area", "pareto");
  for (const flow::DesignPoint& p : sweep.points()) print_point(sweep, p);
  const flow::HardwareSweepFiles files = sweep.write();
  for (const std::string& field : files.unplotted_fields)
    fmt::print("no plot against {}: its values are not all numbers\n", field);
  const std::string& dir = line.sweep.out_dir;
  fmt::print("\n{} points: {} evaluated, {} invalid; Pareto front: {} points\n", sweep.points().size(),
             sweep.valid_points(), sweep.invalid_points(), sweep.front_points());
  fmt::print("wrote {0}/sweep.csv, {0}/sweep_layers.csv, {0}/sweep.json, {0}/points/*.yaml", dir);
  for (const std::string& plot : files.plots) fmt::print(", {}", plot.substr(dir.size() + 1));
  fmt::print("\n");
  if (line.verify)
    fmt::print("RTL checks (map's decision at every point, bit-exact with exact activity counts): {} of {} points pass\n",
               sweep.valid_points() - sweep.rtl_failures(), sweep.valid_points());
  if (sweep.invalid_points() > 0 && !line.skip_invalid) {
    std::fprintf(stderr, "error: %zu of %zu points are invalid (listed above; --skip-invalid accepts that)\n",
                 sweep.invalid_points(), sweep.points().size());
    return runner.finish(kExitBadInput);
  }
  return runner.finish(sweep.rtl_failures() > 0 ? kExitCheckFailed : kExitOk);
}

}  // namespace

void add_sweep_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<SweepCommandLine>();
  CLI::App* command = app.add_subcommand(
      "sweep", "Design-space sweep: map's decision and totals of a workload at every point of a hardware grid");
  command
      ->add_option("--hardware", options->sweep.hardware_path,
                   "base hardware spec (YAML); the grid replaces its fields")
      ->required();
  command->add_option("--workload", options->sweep.workload_path, "workload spec (YAML) or ONNX model (.onnx)")
      ->required();
  add_model_input_options(command, options->sweep.model_inputs);
  command->add_option("--grid", options->sweep.grid_path, "grid file (kind: sweep, docs/sweep.md)");
  command->add_option("--set", options->sweep.settings,
                      "FIELD=V1,V2,... or FIELD=FROM:TO:xFACTOR or FIELD=FROM:TO:+STEP (repeatable; FIELD is a "
                      "hardware-spec field, e.g. dn_bw or sdm.capacity_kib)");
  command
      ->add_option("--objective", options->sweep.objective,
                   "runtime, energy or edp: what map's decision minimises at each point")
      ->check(CLI::IsMember({"runtime", "energy", "edp"}))
      ->capture_default_str();
  command->add_option("-o,--out-dir", options->sweep.out_dir, "output folder")->capture_default_str();
  command->add_flag("--single-level", options->single_level,
                    "search each layer's fabric tiles alone, as `maeri map --single-level` (default: the joint "
                    "space, as `maeri map`)");
  command->add_flag("--no-fusion", options->no_fusion,
                    "every layer alone at its own best, as `maeri map --no-fusion` (default: the fused groups map "
                    "decides)");
  command->add_flag("--skip-invalid", options->skip_invalid,
                    "exit 0 even when some points are invalid (they are still listed and written)");
  command->add_flag("--verify", options->verify,
                    "co-simulate map's decision at every valid point on its fabric (prebuilt or built on demand; "
                    "fused groups in a chained run), bit-exact with the model's activity counts; exit 3 if one "
                    "fails");
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
