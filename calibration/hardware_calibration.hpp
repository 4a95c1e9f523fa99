// Calibrating a hardware spec (`maeri calibrate`; docs/calibration.md): the held-out layers, the model's parameters
// fitted to co-simulated cases (with cross-validated selection, or all of the requested ones), the cycle errors
// before and after, the provenance, and the outputs: the calibrated hardware YAML, the CSV of every case and the
// scatter plot of model against co-simulated cycles.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "calibration/calibration.hpp"
#include "calibration/model_fit.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"

namespace maeri::calibration {

// The named layers (each must exist: util::InputError at `workload_path` otherwise), or by default every other layer
// starting with the second.
std::set<std::string> holdout_layers(const contracts::Network& network, const std::vector<std::string>& names,
                                     const std::string& workload_path);

struct HardwareFit {
  contracts::Hardware calibrated;
  std::vector<std::string> fitted;           // the parameters fitted (after selection)
  int iterations = 0;
  std::optional<ModelSelection> selection;   // when selected by cross-validation
};

// Fits `parameters` to the samples: all of them (`select` false), or those backward elimination keeps when fitting
// gains at least `min_gain` percentage points of cross-validated error.
HardwareFit fit_hardware(const contracts::Hardware& hardware, const std::vector<FitSample>& samples,
                         const std::vector<std::string>& parameters, bool select, double min_gain);

// Whether a model parameter only shapes the cycles with DRAM (dram_*, memory_contention), not the compute cycles.
bool is_memory_parameter(const std::string& name);

// What `maeri calibrate` fits, in two stages, because the compute cycles need no DRAM parameter and a DRAM
// parameter must not bend them: the requested compute-side names are fitted (all of them) to the fitting cases'
// ideal-memory cycles, only when the file's values miss those; then the memory names are fitted (fit_hardware) to
// the cycles with the SDM/DRAM models, the compute-side values held, over the row sizes 512 B…16 KiB when
// dram_row_miss is requested (the size whose fit explains the fitting cases best). `fitted` lists every name fitted.
HardwareFit calibrate_hardware(const contracts::Hardware& hardware, const std::vector<CalibrationCase>& cases,
                               const std::vector<std::string>& parameters, bool select, double min_gain);

// One row of the error table: a metric on the fitting or held-out cases, before and after calibration.
struct CycleErrorRow {
  CycleMetric metric = CycleMetric::Total;
  CaseSubset subset;
  CycleError before, after;
};
// The rows with cases, total cycles first: fitting and held-out cases, then the held-out memory-bound ones
// (is_memory_bound: where a DRAM device and its model matter most).
std::vector<CycleErrorRow> cycle_error_rows(const std::vector<CalibrationCase>& cases,
                                            const contracts::Hardware& before, const contracts::Hardware& after);

// The hardware file at `hardware_path` with the fitted model parameters and the calibration's provenance.
std::string calibrated_yaml(const std::string& hardware_path, const contracts::ModelParameters& parameters,
                            const contracts::CalibrationProvenance& provenance);

// The CSV of every case and the scatter plot of model against co-simulated cycles, before and after.
void write_calibration_report(const std::string& csv_path, const std::string& svg_path,
                              const std::vector<CalibrationCase>& cases, const contracts::Hardware& before,
                              const contracts::Hardware& after);

}  // namespace maeri::calibration
