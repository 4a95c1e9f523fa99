// The mappings a calibration co-simulates (`maeri calibrate`, docs/calibration.md): cases that span good and poor
// mappings of a layer, decided here like every plan's mappings and co-simulated by calibration/.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"

namespace maeri::flow {

// The best `top` mappings by the model's runtime ("top N"), then `spread` more ("spread") drawn uniformly (seeded)
// from the rest of the pruned space whose model compute cycles stay within max_cycles (co-simulation time), best
// first.
std::vector<std::pair<contracts::Mapping, std::string>> calibration_mappings(const contracts::Layer& layer,
                                                                             const contracts::Hardware& hardware,
                                                                             int top, int spread, std::uint64_t seed,
                                                                             double max_cycles);

}  // namespace maeri::flow
