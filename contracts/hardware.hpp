// The Hardware contract: one MAERI instance (sizes, bandwidths, widths, memories, clock) and the energy
// per action from which the cost model and the RTL counters both derive energy; plus the structure
// (tree levels, switch counts) that follows from those sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contracts/config_bus.hpp"

namespace maeri::contracts {

// Energy of one action in picojoules. The YAML states the source of every value.
struct EnergyTable {
  double multiply = 0;    // one DATA_W x DATA_W multiplication in a multiplier switch
  double add = 0;         // one ACC_W addition in a reduction (adder) switch
  double dn_hop = 0;      // one element crossing one distribution-network switch
  double mn_hop = 0;      // one element latched into a multiplier switch from the DN
  double rn_hop = 0;      // one partial sum crossing one reduction-network switch (incl. forwarding links)
  double mn_forward = 0;  // one element forwarded to the neighbouring multiplier switch
  double sdm_read = 0;    // one element read from the prefetch buffer (SDM)
  double sdm_write = 0;   // one element written to the prefetch buffer (SDM)
  double dram_byte = 0;   // one byte moved between DRAM and the SDM
  // The post-processing unit's operations (docs/hardware-spec.md, "Post-processing unit"): optional in the YAML,
  // whose defaults are these 45 nm values (sources in the doc); the unit's element reads and writes cost sdm_read
  // and sdm_write.
  double ppu_add = 0.1;       // one addition or subtraction (bias, window sum, residual, softmax sum)
  double ppu_multiply = 3.1;  // one product with a 31-bit requantization multiplier (or softmax's e · L)
  double ppu_shift = 0.1;     // one rounding right shift of a product
  double ppu_compare = 0.05;  // one comparison of two data-width values (max, ReLU, one side of a clamp)
  double ppu_divide = 1.6;    // one rounded division (average pools, softmax)
  double ppu_lookup = 2.5;    // one read of softmax's exponential table
};

// Area of one switch or of the SDM per KiB in µm², for relative area estimates of design points (`maeri sweep`).
// Optional in the YAML, which states the source of every value; absent means no area is reported.
struct AreaTable {
  double multiplier_switch = 0;    // multiplier, operand/weight registers, forwarding mux
  double adder_switch = 0;         // ART adder switch (3-input adders, outputs, forwarding)
  double distribution_switch = 0;  // DN switch per lane of its input link (1:2 demux, registers)
  double sdm_per_kib = 0;          // prefetch-buffer SRAM per KiB, periphery included
};

// Named parameters of the analytical model that calibration (`maeri calibrate`) tunes against the RTL.
// Defaults are the nominal values of the design (docs/model.md says where each one enters).
struct ModelParameters {
  double dn_level_latency = 1;        // cycles per distribution-network level
  double mn_latency = 1;              // cycles through a multiplier switch
  double rn_level_latency = 1;        // cycles per reduction-network level
  double collect_latency = 2;         // cycles from the aligned RN emit slots onto the output lanes (rtl.md)
  double step_overhead = 0;           // extra cycles per control step (controller turnaround)
  double phase_overhead = 0;          // extra cycles per weight phase
  double config_words_per_cycle = 1;  // config-port words (of config_bw bits) written per cycle
  double dram_efficiency = 1;         // fraction of the DRAM's peak bandwidth the SDM's transfers achieve
  double memory_contention = 0;       // 0: compute and DRAM time overlap perfectly (max), 1: they add up
  // The replay's effective DRAM penalties for memory the spec does not describe (docs/model.md, "Memory timing";
  // fitted by `maeri calibrate`; a dram.timing device replaces them): cycles the channel loses when a transfer
  // enters a new row of dram_row_bytes bytes (0: no rows) and when it switches between reading and writing.
  double dram_row_bytes = 0;
  double dram_row_miss = 0;
  double dram_turnaround = 0;
};

// Where a calibrated hardware file's model parameters came from (written by `maeri calibrate`).
struct CalibrationProvenance {
  std::string date, method, source, fitted;
  std::int64_t fit_cases = 0, holdout_cases = 0;
  double cycle_mape_before_percent = 0, cycle_mape_after_percent = 0;  // on the held-out cases
};

// Largest num_ms any spec, mapping file or configuration image may name (the mapper's limit; the prebuilt RTL
// fabrics are a subset, sim/fabric_session.hpp).
inline constexpr std::int64_t kMaxMultiplierSwitches = 65536;

// Ranges of the hardware spec's widths (docs/hardware-spec.md): products of two DATA_W values and ACC_W sums
// are computed in 64-bit integers.
inline constexpr int kMinDataWidth = 2;
inline constexpr int kMaxDataWidth = 32;
inline constexpr int kMaxAccWidth = 64;

// What the co-simulated DRAM does beyond moving bytes_per_cycle after latency_cycles (docs/hardware-spec.md,
// "DRAM timing"): banks with one open row each, row misses, refresh and read/write turnaround, in device terms
// (nanoseconds, converted at clock_mhz). The analytical model does not see it; `maeri calibrate` fits the model's
// effective DRAM parameters to a system that has it.
struct DramDevice {
  std::string preset = "custom";    // the preset it came from (contracts/dram_presets.hpp)
  std::int64_t banks = 16;
  std::int64_t row_bytes = 2048;     // one bank's open row (page) as the channel sees it
  double row_miss_ns = 0;            // precharge + activate (tRP + tRCD) before a closed row's data moves
  double refresh_interval_ns = 0;    // tREFI (0: no refresh)
  double refresh_ns = 0;             // tRFC: the channel moves nothing, every row is closed after
  double turnaround_ns = 0;          // a switch between reading and writing (tWTR / tRTW)
};

// The post-processing unit beside the fabric (docs/hardware-spec.md, "Post-processing unit"): `lanes` elements
// enter it per cycle, and its last result leaves `latency` cycles after its last beat. A spec without the section
// gets lanes = rn_bw (the unit keeps up with the fabric's output) and kDefaultPostProcessingLatency.
inline constexpr std::int64_t kDefaultPostProcessingLatency = 4;
struct PostProcessingSpec {
  std::int64_t lanes = 16;
  std::int64_t latency = kDefaultPostProcessingLatency;
};

struct Hardware {
  std::string name;
  std::int64_t num_ms = 0;  // multiplier switches (power of two)
  std::int64_t dn_bw = 0;   // elements per cycle entering the distribution network
  std::int64_t rn_bw = 0;   // elements per cycle leaving the reduction network
  std::int64_t config_bw = kDefaultConfigBusBits;  // configuration bits written per cycle (contracts/config_bus.hpp)
  int data_width = 16;      // bits of inputs and weights
  int acc_width = 32;       // bits of partial sums and outputs (wrap-around)
  std::int64_t sdm_bytes = 0;
  double dram_bytes_per_cycle = 0;
  std::int64_t dram_latency_cycles = 0;
  std::optional<DramDevice> dram_device;  // co-simulation and replay; none: a plain bandwidth + latency channel
  double clock_mhz = 0;
  PostProcessingSpec post_processing;
  EnergyTable energy_pj;
  std::optional<AreaTable> area_um2;
  ModelParameters model;
  std::optional<CalibrationProvenance> calibration;
};

// Structure implied by the sizes (see docs/hardware-spec.md, "Derived structure").
struct HardwareStructure {
  int tree_levels = 0;                  // log2(num_ms): levels of the DN and of the RN
  std::int64_t dn_switches = 0;         // binary fat tree: num_ms - 1 distribution switches
  std::vector<std::int64_t> dn_link_width;  // per level (0 = root): elements/cycle into one switch
  std::int64_t rn_adders = 0;           // num_ms - 1 adder switches
  std::int64_t rn_forward_links = 0;    // ART links between neighbouring adders with different parents
  std::int64_t ms_forward_links = 0;    // num_ms - 1 neighbour links in the MN
};

HardwareStructure derive_structure(const Hardware& hardware);

// Estimated area in µm²: multiplier and adder switch counts times their areas, DN switch lanes (each switch as wide
// as its input link, derive_structure()) times the per-lane area, plus the SDM; nullopt when the spec has no area
// table (docs/hardware-spec.md, "Area").
std::optional<double> estimated_area_um2(const Hardware& hardware);

// The DN's conversion level: the first level whose children have fewer leaves than dn_bw lanes
// (log2(num_ms) if none). At and above it an element enters each switch over its destinations once; below it
// every destination has its own lane (docs/rtl.md, COUNT_DN_TRAVERSALS). Used by codegen's exact DN count and by
// the mapper's lower bound of it.
int dn_conversion_level(std::int64_t num_ms, std::int64_t dn_bw);

// Cycles from a fire to its results on the output lanes under the model's parameters (docs/model.md, "Cycles"):
// L DN levels, the multiplier switch, L RN levels and the collector; 2L + 3 at the nominal values.
double pipeline_latency(const Hardware& hardware);


}  // namespace maeri::contracts
