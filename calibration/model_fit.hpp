// Fitting the analytical model's named parameters (ModelParameters, docs/model.md) to observed cycle counts by
// least squares on relative errors: Levenberg–Marquardt with a forward-difference Jacobian, every parameter kept
// inside its documented range. Used by `maeri calibrate` on co-simulated runs; tests recover known parameters
// from synthetic observations.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "contracts/hardware.hpp"
#include "contracts/model_parameters.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"

namespace maeri::calibration {

// What `maeri calibrate` fits unless told otherwise: one representative of each group of parameters that move
// the cycles differently (the per-level latencies only ever appear summed with the collect latency).
std::vector<std::string> default_calibration_parameters();

struct FitSample {
  contracts::Layer layer;
  contracts::Mapping mapping;
  double observed_cycles = 0;  // > 0
  // The model's cycles with DRAM for this sample under a hardware's parameters; empty: mapper::evaluate's (the
  // fluid estimate). `maeri calibrate` gives the memory replay of the sample's program (timing/memory_replay.hpp).
  std::function<double(const contracts::Hardware&)> predict;
};

// The sample's predicted cycles with DRAM under `hardware` (FitSample::predict, else mapper::evaluate's).
double predicted_cycles(const FitSample& sample, const contracts::Hardware& hardware);

struct FitResult {
  contracts::ModelParameters parameters;
  int iterations = 0;
  double rms_relative_error_before = 0, rms_relative_error_after = 0;  // over the samples, as fractions
};

// Fits the parameters named in `names` (starting from hardware.model, the others held fixed) so that
// evaluate(layer, hardware, tile).cycles.total matches the observed cycles.
FitResult fit_model(const contracts::Hardware& hardware, const std::vector<FitSample>& samples,
                    const std::vector<std::string>& names);

// Mean absolute percentage error of evaluate(...).cycles.total against the observed cycles.
double cycle_mape_percent(const contracts::Hardware& hardware, const std::vector<FitSample>& samples);

struct SelectionStep {
  std::string change;  // "" = the file's values, "all" = every requested name fitted, "-name" = name dropped
  double cv_mape_percent = 0;
};

struct ModelSelection {
  std::vector<std::string> selected;  // the requested names worth fitting
  std::vector<SelectionStep> steps;   // cross-validated error of each candidate set, in the order tried
  FitResult fit;                      // the selected names fitted on every sample
  int folds = 0;                      // cross-validation folds (groups of layers, or of samples for one layer)
};

// Cross-validation leaves out one group of layers at a time; at most this many groups (layers dealt round-robin), so
// a real-size workload's dozens of layers cost a handful of fits per trial set, not one per layer.
inline constexpr int kMaxCrossValidationFolds = 5;

// Which parameters to fit, by leave-one-group-out cross-validation over the layers (docs/calibration.md): starting from all of
// `names` fitted, repeatedly drops the parameter whose removal raises the cross-validated cycle MAPE least, while
// that rise is below max(`min_gain_percent` percentage points, 5 % of the error); keeps the file's values when
// fitting gains less than that over them. Then fits the selection on every sample. A parameter that only explains
// the fitting layers' noise thus stays at its file value.
ModelSelection select_and_fit(const contracts::Hardware& hardware, const std::vector<FitSample>& samples,
                              const std::vector<std::string>& names, double min_gain_percent = 0.1);

}  // namespace maeri::calibration
