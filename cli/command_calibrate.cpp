// `maeri calibrate`: co-simulates a spread of (layer, mapping) cases, fits the analytical model's named
// parameters to the measured cycles on the fitting layers, reports the error before and after on held-out
// layers and how the mapper's ranking moves, and writes a calibrated hardware YAML with its provenance, a CSV
// of every case and an SVG scatter plot (docs/calibration.md).
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <set>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "importer/network_loader.hpp"
#include "util/atomic_file.hpp"
#include "mapper/model/cost_model.hpp"
#include "calibration/model_fit.hpp"
#include "contracts/spec_loader.hpp"
#include "contracts/strict_yaml.hpp"
#include "mapper/mapspace/tile_space.hpp"
#include "calibration/calibration.hpp"
#include "calibration/scatter_svg.hpp"

namespace maeri::cli {
namespace {

struct CalibrateOptions {
  std::string hardware;
  std::string workload;
  std::string output;
  std::string out_dir;
  std::vector<std::string> holdout;
  std::vector<std::string> fit = calibration::default_calibration_parameters();
  int top = 3;
  int spread = 3;
  int rank_k = 10;
  double max_cycles = 200000;
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

std::string calibrated_yaml(const CalibrateOptions& options, const contracts::ModelParameters& parameters,
                            const contracts::CalibrationProvenance& provenance) {
  YAML::Node root = contracts::load_yaml_file(options.hardware);  // with the input limits, like load_hardware
  YAML::Node model;
  for (const auto& info : contracts::model_parameter_table()) model[info.name] = parameters.*(info.field);
  root["model"] = model;
  YAML::Node calibration;
  calibration["date"] = provenance.date;
  calibration["method"] = provenance.method;
  calibration["source"] = provenance.source;
  calibration["fitted"] = provenance.fitted;
  calibration["fit_cases"] = provenance.fit_cases;
  calibration["holdout_cases"] = provenance.holdout_cases;
  calibration["cycle_mape_before_percent"] = provenance.cycle_mape_before_percent;
  calibration["cycle_mape_after_percent"] = provenance.cycle_mape_after_percent;
  root["calibration"] = calibration;
  YAML::Emitter out;
  out << root;
  return fmt::format("# {} calibrated by `maeri calibrate` on {} (see the calibration section; docs/calibration.md).\n"
                     "# Schema: docs/hardware-spec.md.\n{}\n",
                     options.hardware, provenance.date, out.c_str());
}

int run_calibrate(const CalibrateOptions& options) {
  const contracts::Hardware hardware = contracts::load_hardware(options.hardware);
  const contracts::Network network = importer::load_network(options.workload);
  for (const std::string& name : options.fit) {
    try {
      contracts::model_parameter(name);
    } catch (const std::invalid_argument& error) {
      throw util::InputError({"--fit", 0, 0}, "", error.what());
    }
  }
  std::set<std::string> holdout(options.holdout.begin(), options.holdout.end());
  for (const std::string& name : holdout) {
    bool found = false;
    for (const auto& layer : network.layers) found = found || layer.name == name;
    if (!found) throw util::InputError({options.workload, 0, 0}, "layers", "has no layer '" + name + "' (--holdout)");
  }
  if (holdout.empty())  // default: every other layer, starting with the second
    for (size_t l = 1; l < network.layers.size(); l += 2) holdout.insert(network.layers[l].name);

  // The outputs are checked (and their folder made) now, so a bad path fails before minutes of co-simulation.
  const std::filesystem::path out_dir = !options.out_dir.empty() ? std::filesystem::path(options.out_dir)
                                        : std::filesystem::path(options.output).parent_path();
  if (!out_dir.empty()) util::create_output_directory(out_dir.string());
  const std::string csv_path = (out_dir / "calibration.csv").string();
  const std::string svg_path = (out_dir / "calibration.svg").string();
  for (const std::string& output : {options.output, csv_path, svg_path}) util::check_output_path(output);

  std::unique_ptr<sim::FabricSession> fabric;
  try {
    fabric = sim::open_fabric(codegen::image_hardware_of(hardware));
  } catch (const std::invalid_argument& error) {
    throw util::InputError({options.hardware, 0, 0}, "", error.what());
  }
  fmt::print("calibrating {} on {} ({}) with {}: fitting [{}]\n", options.hardware, hardware.name,
             fabric->model_name(), network.name, fmt::join(options.fit, ", "));

  calibration::CalibrationPlan plan;
  plan.top = options.top;
  plan.spread = options.spread;
  plan.max_cycles = options.max_cycles;
  plan.seed = options.seed;
  plan.holdout = holdout;
  for (const contracts::Layer& layer : network.layers)
    if (const auto reason = mapper::unmappable_reason(layer, hardware))
      throw util::InputError({options.workload, 0, 0}, "layers." + layer.name, *reason);
  bool all_exact = true;
  const std::vector<calibration::CalibrationCase> cases = calibration::co_simulate_cases(
      *fabric, network, hardware, plan, [&](const calibration::CalibrationCase& c, double seconds) {
        all_exact = all_exact && c.bit_exact;
        const double model = c.model.cycles.total;
        fmt::print("  [{}] {} {} ({}): co-sim {:.0f} cycles, model {:.0f} ({:+.2f}%), outputs {}  [{:.2f} s]\n",
                   c.holdout ? "holdout" : "fit    ", c.layer.name, contracts::to_compact_string(c.tile), c.origin,
                   c.rtl_total_cycles, model, 100 * (model - c.rtl_total_cycles) / c.rtl_total_cycles,
                   c.bit_exact ? "bit-exact" : "MISMATCH", seconds);
      });

  const std::vector<calibration::FitSample> samples = calibration::fit_samples(cases);
  if (samples.empty()) throw util::InputError({"--holdout", 0, 0}, "", "every case is held out: nothing to fit on");
  contracts::Hardware calibrated = hardware;
  std::vector<std::string> fitted = options.fit;
  int iterations = 0;
  if (options.no_select) {
    const calibration::FitResult fit = calibration::fit_model(hardware, samples, options.fit);
    calibrated.model = fit.parameters;
    iterations = fit.iterations;
  } else {
    const calibration::ModelSelection selection = calibration::select_and_fit(hardware, samples, options.fit, options.min_gain);
    calibrated.model = selection.fit.parameters;
    fitted = selection.selected;
    iterations = selection.fit.iterations;
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
                 options.min_gain);
    else
      fmt::print("  fitted: {}\n", fmt::join(fitted, ", "));
  }

  fmt::print("\nfit: Levenberg-Marquardt on relative cycle errors, {} cases, {} iterations\n", samples.size(),
             iterations);
  for (const std::string& name : options.fit) {
    const auto& info = contracts::model_parameter(name);
    fmt::print("  {:<24} {:>10.4f} -> {:>10.4f}   ({})\n", name, hardware.model.*(info.field),
               calibrated.model.*(info.field), info.meaning);
  }
  fmt::print("\n  {:<20} {:<8} {:>6} {:>12} {:>12} {:>12} {:>12}\n", "metric", "cases", "count", "MAPE before",
             "max before", "MAPE after", "max after");
  double holdout_before = 0, holdout_after = 0;
  for (const auto metric : {calibration::CycleMetric::Total, calibration::CycleMetric::Compute})
    for (const bool held : {false, true}) {
      const auto before = calibration::cycle_error(cases, hardware, held, metric);
      const auto after = calibration::cycle_error(cases, calibrated, held, metric);
      if (before.cases == 0) continue;
      if (held && metric == calibration::CycleMetric::Total) holdout_before = before.mape_percent, holdout_after = after.mape_percent;
      fmt::print("  {:<20} {:<8} {:>6} {:>11.2f}% {:>11.2f}% {:>11.2f}% {:>11.2f}%\n",
                 metric == calibration::CycleMetric::Total ? "cycles (with DRAM)" : "cycles (compute)",
                 held ? "held-out" : "fit", before.cases, before.mape_percent, before.max_percent, after.mape_percent,
                 after.max_percent);
    }
  int count_values = 0;
  double count_max = 0;
  for (const auto& c : cases) count_values += c.count_metrics, count_max = std::max(count_max, c.count_max_error_percent);
  fmt::print("  activity counts: {} values over {} cases (RTL counters, SDM, DRAM), largest error {:.2f}% (no "
             "fitting)\n",
             count_values, cases.size(), count_max);

  fmt::print("\nhow calibration moves the mapper's choice (runtime objective, best {}):\n", options.rank_k);
  for (const auto& layer : network.layers) {
    const auto change = calibration::rank_change(layer, hardware, calibrated, options.rank_k);
    fmt::print("  {:<16} top-{} overlap {:>5.1f}%   Spearman rank correlation {:.3f}\n", layer.name, change.k,
               100 * change.top_k_overlap, change.spearman);
  }

  contracts::CalibrationProvenance provenance;
  provenance.date = today();
  provenance.method = options.no_select
                          ? "Levenberg-Marquardt least squares on relative cycle errors vs SystemC/Verilator co-simulation"
                          : "backward elimination by leave-one-layer-out cross-validation, then Levenberg-Marquardt "
                            "least squares on relative cycle errors vs SystemC/Verilator co-simulation";
  provenance.source = fmt::format("{} ({}) on {} ({}), seed {}, {} top + {} spread mappings per layer, held out: {}",
                                  options.workload, network.name, options.hardware, fabric->model_name(),
                                  options.seed, options.top, options.spread, fmt::join(holdout, ","));
  provenance.fitted = fitted.empty() ? "none" : fmt::format("{}", fmt::join(fitted, ","));
  provenance.fit_cases = std::int64_t(samples.size());
  provenance.holdout_cases = std::int64_t(cases.size() - samples.size());
  provenance.cycle_mape_before_percent = holdout_before;
  provenance.cycle_mape_after_percent = holdout_after;

  util::write_file_atomically(options.output, calibrated_yaml(options, calibrated.model, provenance));
  util::write_file_atomically(csv_path, calibration::calibration_csv(cases, hardware, calibrated));
  std::vector<calibration::ScatterSeries> series = {{"before calibration", "#d62728", {}},
                                                  {"after calibration", "#1f77b4", {}}};
  for (const auto& c : cases) {
    series[0].points.push_back({c.rtl_total_cycles, c.model.cycles.total});
    series[1].points.push_back({c.rtl_total_cycles, mapper::evaluate(c.layer, calibrated, c.tile).cycles.total});
  }
  util::write_file_atomically(
      svg_path, calibration::scatter_svg(fmt::format("{}: model vs co-simulation, cycles with DRAM", hardware.name),
                                       "co-simulated cycles", "model cycles", series));
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
