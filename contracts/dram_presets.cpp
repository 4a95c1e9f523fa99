// The DRAM timing presets (see dram_presets.hpp). Row sizes are the page the accelerator's channel sees (one rank
// or pseudo-channel); times are the speed bin's minimum values in nanoseconds.
#include "contracts/dram_presets.hpp"

namespace maeri::contracts {

const std::vector<DramDevice>& dram_presets() {
  static const std::vector<DramDevice> presets = {
      // JEDEC JESD79-4 (DDR4), speed bin DDR4-2400R (17-17-17): tRCD = tRP = 14.16 ns; 8 Gb x8 devices: 16 banks
      // (4 bank groups x 4), 1 KiB page per device, 8 KiB across a 64-bit rank; tREFI = 7.8 us; tRFC = 350 ns
      // (8 Gb); tWTR_L = 7.5 ns.
      {"ddr4-2400", 16, 8192, 28.32, 7800, 350, 7.5},
      // JEDEC JESD209-4 (LPDDR4), LPDDR4-3200, 8 Gb per channel: 8 banks, 2 KiB page per x16 channel; tRCD = 18 ns,
      // tRPpb = 18 ns; tREFI = 3.904 us; tRFCab = 280 ns; tWTR = 10 ns.
      {"lpddr4-3200", 8, 2048, 36, 3904, 280, 10},
      // JEDEC JESD235 (HBM2), pseudo-channel mode, 2 Gbps: 16 banks (4 bank groups x 4), 1 KiB page; tRCD = tRP = 14 ns,
      // tREFI = 3.9 us, tWTR_L = 8 ns (DRAMsim3's HBM configuration: tCK 2 ns, tRCD = tRP = 7, tREFI = 1950,
      // tWTR_L = 4 clocks); tRFC = 350 ns (8 Gb die).
      {"hbm2", 16, 1024, 28, 3900, 350, 8},
  };
  return presets;
}

std::string dram_preset_names() {
  std::string names;
  for (const DramDevice& preset : dram_presets()) names += (names.empty() ? "" : ", ") + preset.preset;
  return names;
}

}  // namespace maeri::contracts
