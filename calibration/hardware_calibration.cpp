// Calibrating a hardware spec: held-out layers, fit, errors, calibrated YAML and report (hardware_calibration.hpp).
#include "calibration/hardware_calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <yaml-cpp/yaml.h>

#include "calibration/scatter_svg.hpp"
#include "contracts/model_parameters.hpp"
#include "contracts/strict_yaml.hpp"
#include "mapper/model/cost_model.hpp"
#include "util/atomic_file.hpp"
#include "util/input_error.hpp"

namespace maeri::calibration {

std::set<std::string> holdout_layers(const contracts::Network& network, const std::vector<std::string>& names,
                                     const std::string& workload_path) {
  std::set<std::string> holdout(names.begin(), names.end());
  for (const std::string& name : holdout) {
    bool found = false;
    for (const auto& layer : network.layers) found = found || layer.name == name;
    if (!found) throw util::InputError({workload_path, 0, 0}, "layers", "has no layer '" + name + "' (--holdout)");
  }
  if (holdout.empty())  // default: every other layer, starting with the second
    for (size_t l = 1; l < network.layers.size(); l += 2) holdout.insert(network.layers[l].name);
  return holdout;
}

HardwareFit fit_hardware(const contracts::Hardware& hardware, const std::vector<FitSample>& samples,
                         const std::vector<std::string>& parameters, bool select, double min_gain) {
  HardwareFit fit{hardware, parameters, 0, std::nullopt};
  if (!select) {
    const FitResult result = fit_model(hardware, samples, parameters);
    fit.calibrated.model = result.parameters;
    fit.iterations = result.iterations;
    return fit;
  }
  fit.selection = select_and_fit(hardware, samples, parameters, min_gain);
  fit.calibrated.model = fit.selection->fit.parameters;
  fit.fitted = fit.selection->selected;
  fit.iterations = fit.selection->fit.iterations;
  return fit;
}

bool is_memory_parameter(const std::string& name) {
  return name.rfind("dram_", 0) == 0 || name == "memory_contention";
}

HardwareFit calibrate_hardware(const contracts::Hardware& hardware, const std::vector<CalibrationCase>& cases,
                               const std::vector<std::string>& parameters, bool select, double min_gain) {
  std::vector<std::string> compute_names, memory_names;
  for (const std::string& name : parameters) (is_memory_parameter(name) ? memory_names : compute_names).push_back(name);
  contracts::Hardware compute_fitted = hardware;
  std::vector<std::string> fitted;
  int iterations = 0;
  std::vector<FitSample> compute_samples;
  for (const CalibrationCase& c : cases)
    if (!c.holdout)
      compute_samples.push_back({c.layer, c.mapping, c.rtl_compute_cycles, [layer = c.layer, mapping = c.mapping](
                                                                                 const contracts::Hardware& trial) {
                                   return mapper::evaluate(layer, trial, mapping).cycles.compute();
                                 }});
  if (!compute_names.empty() && !compute_samples.empty() && cycle_mape_percent(hardware, compute_samples) > 0) {
    const FitResult result = fit_model(hardware, compute_samples, compute_names);
    compute_fitted.model = result.parameters;
    iterations += result.iterations;
    for (const std::string& name : compute_names) {
      double contracts::ModelParameters::*field = contracts::model_parameter(name).field;
      if (compute_fitted.model.*field != hardware.model.*field) fitted.push_back(name);
    }
  }
  // With a DRAM device the replay runs the device itself (timing/memory_replay.hpp), so the effective row and
  // turnaround penalties have nothing to stand for: the channel ignores them.
  if (hardware.dram_device)
    memory_names.erase(std::remove_if(memory_names.begin(), memory_names.end(),
                                      [](const std::string& name) {
                                        return name == "dram_row_miss" || name == "dram_turnaround";
                                      }),
                       memory_names.end());
  if (memory_names.empty()) return {compute_fitted, fitted, iterations, std::nullopt};
  const std::vector<FitSample> samples = fit_samples(cases);
  // Cycles with DRAM the file's values already give exactly leave nothing to fit (and no fit to wait for).
  if (cycle_mape_percent(compute_fitted, samples) == 0) return {compute_fitted, fitted, iterations, std::nullopt};
  // A row size is discrete (and a row-miss penalty means nothing without one): with dram_row_miss requested, each
  // power-of-two row from 512 B to 16 KiB (and the file's) is tried and the one whose fit explains the fitting
  // cases best is kept.
  std::vector<double> row_sizes = {compute_fitted.model.dram_row_bytes};
  if (std::find(memory_names.begin(), memory_names.end(), "dram_row_miss") != memory_names.end())
    for (double bytes = 512; bytes <= 16384; bytes *= 2)
      if (bytes != row_sizes.front()) row_sizes.push_back(bytes);
  std::optional<HardwareFit> best;
  double best_mape = 0;
  for (const double bytes : row_sizes) {
    contracts::Hardware trial = compute_fitted;
    trial.model.dram_row_bytes = bytes;
    HardwareFit fit = fit_hardware(trial, samples, memory_names, select, min_gain);
    const double mape = cycle_mape_percent(fit.calibrated, samples);
    if (!best || mape < best_mape - 1e-9) {
      best = std::move(fit);
      best_mape = mape;
    }
  }
  if (best->calibrated.model.dram_row_bytes != hardware.model.dram_row_bytes) fitted.push_back("dram_row_bytes");
  best->fitted.insert(best->fitted.begin(), fitted.begin(), fitted.end());
  best->iterations += iterations;
  return *best;
}

std::vector<CycleErrorRow> cycle_error_rows(const std::vector<CalibrationCase>& cases,
                                            const contracts::Hardware& before, const contracts::Hardware& after) {
  std::vector<CycleErrorRow> rows;
  for (const auto metric : {CycleMetric::Total, CycleMetric::Compute})
    for (const CaseSubset subset : {CaseSubset{false, false}, CaseSubset{true, false}, CaseSubset{true, true}}) {
      if (subset.memory_bound_only && metric == CycleMetric::Compute) continue;  // no memory in compute cycles
      CycleErrorRow row{metric, subset, cycle_error(cases, before, subset, metric),
                        cycle_error(cases, after, subset, metric)};
      if (row.before.cases > 0) rows.push_back(row);
    }
  return rows;
}

std::string calibrated_yaml(const std::string& hardware_path, const contracts::ModelParameters& parameters,
                            const contracts::CalibrationProvenance& provenance) {
  YAML::Node root = contracts::load_yaml_file(hardware_path);  // with the input limits, like load_hardware
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
                     hardware_path, provenance.date, out.c_str());
}

void write_calibration_report(const std::string& csv_path, const std::string& svg_path,
                              const std::vector<CalibrationCase>& cases, const contracts::Hardware& before,
                              const contracts::Hardware& after) {
  util::write_file_atomically(csv_path, calibration_csv(cases, before, after));
  std::vector<ScatterSeries> series = {{"before calibration", "#d62728", {}}, {"after calibration", "#1f77b4", {}}};
  for (const auto& c : cases) {
    series[0].points.push_back({c.rtl_total_cycles, c.model.cycles.total});
    series[1].points.push_back({c.rtl_total_cycles, c.predict_total ? c.predict_total(after)
                                                                    : mapper::evaluate(c.layer, after, c.mapping).cycles.total});
  }
  util::write_file_atomically(
      svg_path, scatter_svg(fmt::format("{}: model vs co-simulation, cycles with DRAM", before.name),
                            "co-simulated cycles", "model cycles", series));
}

}  // namespace maeri::calibration
