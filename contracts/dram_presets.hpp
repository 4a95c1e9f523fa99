// DRAM timing presets for the co-simulated memory system (`dram.timing` in a hardware spec, docs/hardware-spec.md
// "DRAM timing"): public JEDEC timing parameters of one DDR4, LPDDR4 and HBM2 part each, with their sources in
// dram_presets.cpp.
#pragma once

#include <string>
#include <vector>

#include "contracts/hardware.hpp"

namespace maeri::contracts {

const std::vector<DramDevice>& dram_presets();
// The names, for error messages and --help ("ddr4-2400, lpddr4-3200, hbm2").
std::string dram_preset_names();

}  // namespace maeri::contracts
