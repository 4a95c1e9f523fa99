// `maeri show --hardware H`: the structure that follows from a hardware spec (tree levels, switch
// and link counts, widths, peak throughput, energy table).
#include <fmt/format.h>

#include <string>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "contracts/spec_loader.hpp"

namespace maeri::cli {
namespace {

int run_show(const std::string& hardware_path) {
  const contracts::Hardware hardware = contracts::load_hardware(hardware_path);
  const contracts::HardwareStructure structure = contracts::derive_structure(hardware);
  const auto& energy = hardware.energy_pj;

  fmt::print("hardware '{}' ({})\n", hardware.name, hardware_path);
  fmt::print("  multiplier switches    {}\n", hardware.num_ms);
  fmt::print("  data / accumulator     {} / {} bits (two's complement, wrap-around)\n", hardware.data_width,
             hardware.acc_width);
  fmt::print("  clock                  {} MHz; peak {} MACs/cycle = {:.1f} GMAC/s\n", hardware.clock_mhz,
             hardware.num_ms, static_cast<double>(hardware.num_ms) * hardware.clock_mhz / 1000.0);
  fmt::print("  SDM (prefetch buffer)  {} KiB = {} elements\n", hardware.sdm_bytes / 1024,
             hardware.sdm_bytes * 8 / hardware.data_width);
  fmt::print("  DRAM                   {} bytes/cycle, latency {} cycles\n", hardware.dram_bytes_per_cycle,
             hardware.dram_latency_cycles);
  fmt::print("distribution network (fat tree with multicast)\n");
  fmt::print("  root bandwidth         {} elements/cycle\n", hardware.dn_bw);
  fmt::print("  levels                 {}\n", structure.tree_levels);
  fmt::print("  switches               {}\n", structure.dn_switches);
  fmt::print("  link width per level   {}\n", fmt::join(structure.dn_link_width, " "));
  fmt::print("multiplier network\n");
  fmt::print("  neighbour links        {}\n", structure.ms_forward_links);
  fmt::print("reduction network (augmented reduction tree)\n");
  fmt::print("  output bandwidth       {} elements/cycle\n", hardware.rn_bw);
  fmt::print("  configuration bus      {} bits/cycle: {} configuration bits, a full reconfiguration in {} cycles\n",
             hardware.config_bw, contracts::configuration_bits(hardware.num_ms),
             contracts::configuration_words(hardware.num_ms, hardware.config_bw));
  fmt::print("  levels                 {}\n", structure.tree_levels);
  fmt::print("  adder switches         {}\n", structure.rn_adders);
  fmt::print("  forwarding links       {}\n", structure.rn_forward_links);
  fmt::print("energy per action (pJ)\n");
  fmt::print("  multiply {}  add {}  dn_hop {}  mn_hop {}  rn_hop {}  mn_forward {}\n", energy.multiply,
             energy.add, energy.dn_hop, energy.mn_hop, energy.rn_hop, energy.mn_forward);
  fmt::print("  sdm_read {}  sdm_write {}  dram_byte {}\n", energy.sdm_read, energy.sdm_write,
             energy.dram_byte);
  return kExitOk;
}

}  // namespace

void add_show_command(CLI::App& app, Action& action) {
  auto hardware = std::make_shared<std::string>();
  CLI::App* command =
      app.add_subcommand("show", "Print the structure derived from a hardware spec (levels, switches, links)");
  command->add_option("--hardware", *hardware, "hardware YAML (kind: hardware)")->required();
  command->footer("Example: maeri show --hardware configs/hardware/maeri-64.yaml");
  command->callback([hardware, &action] { action = [hardware] { return run_show(*hardware); }; });
}

}  // namespace maeri::cli
