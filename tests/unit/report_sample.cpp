// The sample report of report_sample.hpp.
#include "tests/unit/report_sample.hpp"

namespace maeri::test {
namespace {

report::Operator fabric_layer(const char* name, std::vector<std::size_t> inputs, contracts::FabricTile tile,
                              double model_cycles, double rtl_cycles) {
  report::FabricLayer fabric;
  fabric.shape = "N=1 K=4 C=4 R×S=3×3 X×Y=8×8 stride 1";
  fabric.mapping = contracts::single_level_mapping(tile);
  fabric.dram_bytes = 1500;
  fabric.compulsory_dram_bytes = 1200;
  report::Operator op;
  op.name = name;
  op.kind = "conv";
  op.inputs = std::move(inputs);
  op.fabric = fabric;
  op.metrics = {{"cycles", model_cycles, rtl_cycles}, {"multiplies", 2304, 2304}, {"DRAM bytes", 1200, {}}};
  op.cycles = report::CycleSplit{rtl_cycles * 0.6, rtl_cycles * 0.25, rtl_cycles * 0.1, rtl_cycles * 0.05};
  return op;
}

report::Operator unit_operator(const char* name, const char* kind, std::vector<std::size_t> inputs, double cycles) {
  report::Operator op;
  op.name = name;
  op.kind = kind;
  op.inputs = std::move(inputs);
  op.cycles = report::CycleSplit{0, 0, 0, cycles};
  op.metrics = {{"PPU cycles", cycles, cycles}};
  return op;
}

}  // namespace

report::ReportData sample_report() {
  report::ReportData data;
  data.title = "maeri run";
  data.network = "sample-net";
  data.hardware.name = "maeri-64";
  data.hardware.num_ms = 64;
  data.hardware.dn_bw = 16;
  data.hardware.rn_bw = 16;
  data.hardware.sdm_bytes = 65536;
  data.hardware.dram_bytes_per_cycle = 8;
  data.hardware.dram_latency_cycles = 100;
  data.hardware.clock_mhz = 500;
  contracts::FabricTile two_vns;  // (3,3,1,2,1,1,1): 2 VNs of 9 switches, 46 idle
  two_vns.size = {3, 3, 1, 2, 1, 1, 1};
  contracts::FabricTile wide;  // (3,3,4,1,1,1,1): 1 VN of 36
  wide.size = {3, 3, 4, 1, 1, 1, 1};
  contracts::FabricTile fc;  // (1,1,16,4,1,1,1): 4 VNs of 16, none idle
  fc.size = {1, 1, 16, 4, 1, 1, 1};
  data.operators.push_back(fabric_layer("conv1", {}, two_vns, 1000, 1040));
  data.operators.push_back(fabric_layer("conv2", {0}, wide, 800, 800));
  data.operators.push_back(unit_operator("pool", "maxpool", {1}, 120));
  data.operators.push_back(fabric_layer(kHostileLayerName, {2}, fc, 400, 380));
  data.operators.push_back(unit_operator("residual", "add", {2, 3}, 60));
  data.operators[0].fabric->role = "output in SDM";
  data.operators[1].fabric->role = "input in SDM";
  data.groups = {{"g0", {0, 1}}, {kHostileGroupName, {3, 4}}};
  data.verdicts = {{"outputs", true, "bit-exact: 5 of 5 operators"},
                   {"model", false, "cycles of conv1 4 % off (tolerance 2 %)"}};
  data.totals = {{"cycles", 2380, 2400}, {"energy (pJ)", 1e6, 1.02e6}};
  return data;
}

}  // namespace maeri::test
