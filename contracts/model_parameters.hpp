// The table of the analytical model's named parameters (ModelParameters in contracts/hardware.hpp): the name each has in
// the hardware YAML's `model:` section, its valid range and meaning. One home for the names and ranges, used by the
// hardware loader (reading `model:`), by calibration (which parameters can be fitted, within which bounds) and by
// `maeri calibrate` (writing the calibrated file).
#pragma once

#include <string>
#include <vector>

#include "contracts/hardware.hpp"

namespace maeri::contracts {

struct ModelParameterInfo {
  const char* name;  // as in the hardware YAML's `model:` section
  double ModelParameters::*field;
  double min, max;
  const char* meaning;
};

const std::vector<ModelParameterInfo>& model_parameter_table();
// Throws std::invalid_argument naming the known parameters.
const ModelParameterInfo& model_parameter(const std::string& name);

}  // namespace maeri::contracts
