// Fitting the analytical model's named parameters (ModelParameters, docs/model.md) to observed cycle counts by
// least squares on relative errors: Levenberg–Marquardt with a forward-difference Jacobian, every parameter kept
// inside its documented range. Used by `maeri calibrate` on co-simulated runs; tests recover known parameters
// from synthetic observations.
#pragma once

#include <string>
#include <vector>

#include "mapper/hardware.hpp"
#include "mapper/layer.hpp"
#include "mapper/tile.hpp"

namespace maeri::mapper {

struct ModelParameterInfo {
  const char* name;  // as in the hardware YAML's `model:` section
  double ModelParameters::*field;
  double min, max;
  const char* meaning;
};

const std::vector<ModelParameterInfo>& model_parameter_table();
// Throws std::invalid_argument naming the known parameters.
const ModelParameterInfo& model_parameter(const std::string& name);

struct FitSample {
  Layer layer;
  Tile tile;
  double observed_cycles = 0;  // > 0
};

struct FitResult {
  ModelParameters parameters;
  int iterations = 0;
  double rms_relative_error_before = 0, rms_relative_error_after = 0;  // over the samples, as fractions
};

// Fits the parameters named in `names` (starting from hardware.model, the others held fixed) so that
// evaluate(layer, hardware, tile).cycles.total matches the observed cycles.
FitResult fit_model(const Hardware& hardware, const std::vector<FitSample>& samples,
                    const std::vector<std::string>& names);

}  // namespace maeri::mapper
