// `maeri calibrate`: co-simulates a spread of (layer, mapping) cases, fits the analytical model's named
// parameters to the measured cycles on the fitting layers, reports the error before and after on held-out
// layers and how the mapper's ranking moves, and writes a calibrated hardware YAML with its provenance, a CSV
// of every case and an SVG scatter plot (docs/calibration.md). Options and console report around
// calibration/hardware_calibration.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <set>

#include "codegen/planned_image.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/model_input_options.hpp"
#include "importer/network_loader.hpp"
#include "util/atomic_file.hpp"
#include "util/progress_bar.hpp"
#include "mapper/model/cost_model.hpp"
#include "calibration/model_fit.hpp"
#include "contracts/spec_loader.hpp"
#include "contracts/dram_timing.hpp"
#include "mapper/mapspace/tile_space.hpp"
#include "calibration/calibration.hpp"
#include "calibration/hardware_calibration.hpp"

namespace maeri::cli {
namespace {

struct CalibrateOptions {
  std::string hardware;
  std::string workload;
  importer::ModelInputShapes model_inputs;  // --input-shape, --batch
  std::string output;
  std::string out_dir;
  std::vector<std::string> holdout;
  std::vector<std::string> fit = calibration::default_calibration_parameters();
  int top = 3;
  int spread = 3;
  int rank_k = 10;
  double max_cycles = 200000;
  double budget_cycles = 0;
  std::uint64_t seed = 1;
  bool no_select = false;
  double min_gain = 0.1;
};

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

void print_selection(const calibration::ModelSelection& selection, const std::vector<std::string>& fitted,
                     double min_gain) {
  fmt::print("\nparameter selection: backward elimination, leave-one-out cross-validation over {} folds\n",
             selection.folds);
  for (const calibration::SelectionStep& step : selection.steps)
    fmt::print("  {:<40} cross-validated cycle MAPE {:.3f}%\n",
               step.change.empty()   ? std::string("file values")
               : step.change == "all" ? "fit all of them"
                                      : "leave " + step.change.substr(1) + " at its file value",
               step.cv_mape_percent);
  if (fitted.empty())
    fmt::print("  fitting gains less than max({} percentage points, 5 %) of cross-validated error: keeping the "
               "file's values\n",
               min_gain);
  else
    fmt::print("  fitted: {}\n", fmt::join(fitted, ", "));
}

// The fitted values, the cycle errors before and after, the activity counts' errors; returns the held-out cycle
// MAPE before and after (the provenance's).
std::pair<double, double> print_fit(const CalibrateOptions& options, const calibration::HardwareFit& fit,
                                    std::size_t samples, const std::vector<calibration::CalibrationCase>& cases,
                                    const contracts::Hardware& hardware) {
  const std::vector<calibration::CycleErrorRow> rows = calibration::cycle_error_rows(cases, hardware, fit.calibrated);
  const bool exact = std::all_of(rows.begin(), rows.end(), [](const calibration::CycleErrorRow& row) {
    return row.subset.holdout || row.before.max_percent == 0;
  });
  if (fit.iterations == 0 && exact)
    fmt::print("\nfit: none needed — the file's values give the {} fitting cases' cycles exactly\n", samples);
  else
    fmt::print("\nfit: Levenberg-Marquardt on relative cycle errors, {} cases, {} iterations\n", samples,
               fit.iterations);
  for (const std::string& name : options.fit) {
    const auto& info = contracts::model_parameter(name);
    fmt::print("  {:<24} {:>10.4f} -> {:>10.4f}   ({})\n", name, hardware.model.*(info.field),
               fit.calibrated.model.*(info.field), info.meaning);
  }
  fmt::print("\n  {:<20} {:<22} {:>6} {:>12} {:>12} {:>12} {:>12}\n", "metric", "cases", "count", "MAPE before",
             "max before", "MAPE after", "max after");
  double holdout_before = 0, holdout_after = 0;
  for (const calibration::CycleErrorRow& row : rows) {
    const bool total = row.metric == calibration::CycleMetric::Total;
    if (row.subset.holdout && !row.subset.memory_bound_only && total)
      holdout_before = row.before.mape_percent, holdout_after = row.after.mape_percent;
    fmt::print("  {:<20} {:<22} {:>6} {:>11.2f}% {:>11.2f}% {:>11.2f}% {:>11.2f}%\n",
               total ? "cycles (with DRAM)" : "cycles (compute)",
               !row.subset.holdout ? "fit" : row.subset.memory_bound_only ? "held-out, memory-bound" : "held-out",
               row.before.cases, row.before.mape_percent, row.before.max_percent, row.after.mape_percent,
               row.after.max_percent);
  }
  int count_values = 0;
  double count_max = 0;
  for (const auto& c : cases) count_values += c.count_metrics, count_max = std::max(count_max, c.count_max_error_percent);
  fmt::print("  activity counts: {} values over {} cases (RTL counters, SDM, DRAM), largest error {:.2f}% (no "
             "fitting)\n",
             count_values, cases.size(), count_max);
  return {holdout_before, holdout_after};
}

void print_rank_changes(const contracts::Network& network, const contracts::Hardware& before,
                        const contracts::Hardware& after, int rank_k) {
  fmt::print("\nhow calibration moves the mapper's choice (runtime objective, best {}):\n", rank_k);
  for (const auto& layer : network.layers) {
    const auto change = calibration::rank_change(layer, before, after, rank_k);
    fmt::print("  {:<16} top-{} overlap {:>5.1f}%   Spearman rank correlation {:.3f}\n", layer.name, change.k,
               100 * change.top_k_overlap, change.spearman);
  }
}

std::unique_ptr<sim::FabricSession> open_fabric_of(const contracts::Hardware& hardware, const std::string& path) {
  try {
    return sim::open_fabric(codegen::image_hardware_of(hardware), contracts::watchdog_cycles(hardware));
  } catch (const std::invalid_argument& error) {
    throw util::InputError({path, 0, 0}, "", error.what());
  }
}

// The co-simulated cases of every layer, each printed as it completes; `all_exact` is cleared by a mismatch.
std::vector<calibration::CalibrationCase> co_simulate(sim::FabricSession& fabric, const contracts::Network& network,
                                                      const contracts::Hardware& hardware,
                                                      const CalibrateOptions& options,
                                                      const std::set<std::string>& holdout, bool& all_exact) {
  calibration::CalibrationPlan plan;
  plan.top = options.top;
  plan.spread = options.spread;
  plan.max_cycles = options.max_cycles;
  plan.budget_cycles = options.budget_cycles;
  plan.seed = options.seed;
  plan.holdout = holdout;
  for (const contracts::Layer& layer : network.layers) {
    if (const auto reason = mapper::unmappable_reason(layer, hardware))
      throw util::InputError({options.workload, 0, 0}, "layers." + layer.name, *reason);
    codegen::require_layer_within_limits(layer, options.workload);  // co-simulated from its image's program
  }
  const std::vector<calibration::PlannedCase> planned = calibration::planned_cases(network, hardware, plan);
  if (planned.empty())
    throw util::InputError({"--budget-cycles", 0, 0}, "",
                           fmt::format("no calibration case fits within {} co-simulated cycles (each case runs twice, "
                                       "with ideal memory and with the SDM/DRAM models, as long as the model "
                                       "predicts): raise the budget",
                                       options.budget_cycles));
  if (options.budget_cycles > 0)
    fmt::print("budget of {} co-simulated cycles: {} cases, taken in rounds over the {} layers\n",
               options.budget_cycles, planned.size(), network.layers.size());
  // On a terminal, cases done of those planned, elapsed and an estimate of the rest (quiet otherwise).
  util::ProgressBar progress("calibration", std::int64_t(planned.size()));
  return calibration::co_simulate_cases(
      fabric, network, hardware, planned, [&](const calibration::CalibrationCase& c, double seconds, std::size_t done) {
        all_exact = all_exact && c.bit_exact;
        const double model = c.model.cycles.total;
        progress.clear();
        fmt::print("  [{}] {} {} ({}): co-sim {:.0f} cycles, model {:.0f} ({:+.2f}%), outputs {}  [{:.2f} s]\n",
                   c.holdout ? "holdout" : "fit    ", c.layer.name, contracts::to_compact_string(c.mapping.tile), c.origin,
                   c.rtl_total_cycles, model, 100 * (model - c.rtl_total_cycles) / c.rtl_total_cycles,
                   c.bit_exact ? "bit-exact" : "MISMATCH", seconds);
        std::fflush(stdout);
        progress.set_done(std::int64_t(done), c.layer.name);
      });
}

int run_calibrate(const CalibrateOptions& options) {
  const contracts::Hardware hardware = contracts::load_hardware(options.hardware);
  const contracts::Network network = importer::load_network(options.workload, options.model_inputs);
  for (const std::string& name : options.fit) {
    try {
      contracts::model_parameter(name);
    } catch (const std::invalid_argument& error) {
      throw util::InputError({"--fit", 0, 0}, "", error.what());
    }
  }
  const std::set<std::string> holdout = calibration::holdout_layers(network, options.holdout, options.workload);

  // The outputs are checked (and their folder made) now, so a bad path fails before minutes of co-simulation.
  const std::filesystem::path out_dir = !options.out_dir.empty() ? std::filesystem::path(options.out_dir)
                                        : std::filesystem::path(options.output).parent_path();
  if (!out_dir.empty()) util::create_output_directory(out_dir.string());
  const std::string csv_path = (out_dir / "calibration.csv").string();
  const std::string svg_path = (out_dir / "calibration.svg").string();
  for (const std::string& output : {options.output, csv_path, svg_path}) util::check_output_path(output);

  const std::unique_ptr<sim::FabricSession> fabric = open_fabric_of(hardware, options.hardware);
  fmt::print("calibrating {} on {} ({}) with {}: fitting [{}]\n", options.hardware, hardware.name,
             fabric->model_name(), network.name, fmt::join(options.fit, ", "));
  bool all_exact = true;
  const auto cases = co_simulate(*fabric, network, hardware, options, holdout, all_exact);

  const std::vector<calibration::FitSample> samples = calibration::fit_samples(cases);
  if (samples.empty()) throw util::InputError({"--holdout", 0, 0}, "", "every case is held out: nothing to fit on");
  const calibration::HardwareFit fit =
      calibration::calibrate_hardware(hardware, cases, options.fit, !options.no_select, options.min_gain);
  if (fit.selection) print_selection(*fit.selection, fit.fitted, options.min_gain);
  const auto [holdout_before, holdout_after] = print_fit(options, fit, samples.size(), cases, hardware);
  print_rank_changes(network, hardware, fit.calibrated, options.rank_k);

  contracts::CalibrationProvenance provenance;
  provenance.date = today();
  provenance.method = options.no_select
                          ? "Levenberg-Marquardt least squares on relative cycle errors vs SystemC/Verilator co-simulation"
                          : "backward elimination by leave-one-layer-out cross-validation, then Levenberg-Marquardt "
                            "least squares on relative cycle errors vs SystemC/Verilator co-simulation";
  provenance.source = fmt::format("{} ({}) on {} ({}), seed {}, {} top + {} spread mappings per layer{}, held out: {}",
                                  options.workload, network.name, options.hardware, fabric->model_name(),
                                  options.seed, options.top, options.spread,
                                  options.budget_cycles > 0
                                      ? fmt::format(" within {} co-simulated cycles", options.budget_cycles)
                                      : "",
                                  fmt::join(holdout, ","));
  provenance.fitted = fit.fitted.empty() ? "none" : fmt::format("{}", fmt::join(fit.fitted, ","));
  provenance.fit_cases = std::int64_t(samples.size());
  provenance.holdout_cases = std::int64_t(cases.size() - samples.size());
  provenance.cycle_mape_before_percent = holdout_before;
  provenance.cycle_mape_after_percent = holdout_after;

  util::write_file_atomically(options.output,
                              calibration::calibrated_yaml(options.hardware, fit.calibrated.model, provenance));
  calibration::write_calibration_report(csv_path, svg_path, cases, hardware, fit.calibrated);
  fmt::print("\nwrote {} (calibrated hardware), {} and {}\n", options.output, csv_path, svg_path);
  fmt::print("held-out cycle MAPE: {:.2f}% before, {:.2f}% after\n", holdout_before, holdout_after);
  return all_exact ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_calibrate_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<CalibrateOptions>();
  CLI::App* command = app.add_subcommand(
      "calibrate", "Co-simulate a spread of mappings, fit the model's parameters, report held-out error, write a "
                   "calibrated hardware YAML");
  // Input files are checked by their loaders (exit 2 with the OS's reason), not by CLI11 (exit 1).
  command->add_option("--hardware", options->hardware, "hardware spec (YAML)")->required();
  command->add_option("--workload", options->workload, "workload spec (YAML) or ONNX model (.onnx)")->required();
  add_model_input_options(command, options->model_inputs);
  command->add_option("-o,--output", options->output, "calibrated hardware YAML to write")->required();
  command->add_option("--out-dir", options->out_dir, "folder for calibration.csv and calibration.svg (default: -o's)");
  command->add_option("--holdout,--split", options->holdout, "layers not used for fitting (default: every other layer)")
      ->delimiter(',');
  command->add_option("--fit", options->fit, "model parameters to fit (docs/calibration.md)")
      ->delimiter(',')
      ->capture_default_str();
  command->add_option("--top", options->top, "best mappings per layer")->check(CLI::Range(0, 50))->capture_default_str();
  command->add_option("--spread", options->spread, "further mappings per layer, drawn from the rest of the space")
      ->check(CLI::Range(0, 50))
      ->capture_default_str();
  command->add_option("--max-cycles", options->max_cycles, "skip spread mappings the model expects to take longer")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--budget-cycles", options->budget_cycles,
                      "co-simulated cycles all cases may take, as the model predicts them; cases are taken in rounds "
                      "over the layers (default 0: no budget)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command->add_option("--rank-k", options->rank_k, "size of the top-k sets compared")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  command->add_flag("--no-select", options->no_select,
                    "fit every --fit parameter, without the cross-validated forward selection");
  command->add_option("--min-gain", options->min_gain,
                      "percentage points of cross-validated cycle MAPE a parameter must gain to be fitted")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command->add_option("--seed", options->seed, "seed of the spread sample and the tensors")->capture_default_str();
  command->footer("Example: maeri calibrate --hardware configs/hardware/maeri-64.yaml "
                  "--workload configs/workloads/tiny.yaml -o calibration/maeri-64.calibrated.yaml");
  command->callback([options, &action] { action = [options] { return run_calibrate(*options); }; });
}

}  // namespace maeri::cli
