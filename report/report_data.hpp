// ReportData: everything the HTML report (report/html_report.hpp) shows, as plain data of its own, so that the
// report depends only on the contracts and the commands fill it from whatever their results are (`maeri map`: the
// model's columns only; `maeri run` / `verify --chain`: model and RTL side by side, and the verdicts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contracts/hardware.hpp"
#include "contracts/tile.hpp"

namespace maeri::report {

// One compared quantity of a layer (cycles, multiplies, DRAM bytes, energy, …). Either side may be missing: a
// `map` report has the model only, a counter the model does not predict has the RTL only.
struct MetricRow {
  std::string metric;
  std::optional<double> model, rtl;
};

// Where a layer's cycles go (docs/report.md, "Where the cycles go"); the four parts add up to its cycles.
struct CycleSplit {
  double compute = 0;        // the fabric busy with steps (distribution, multiplication, reduction, fill/drain)
  double memory_stall = 0;   // the fabric waiting for DRAM
  double configuration = 0;  // writing configuration words between phases and pieces
  double unit = 0;           // the post-processing unit's (a fabric layer's epilogue, an operator beside the fabric)
  double total() const { return compute + memory_stall + configuration + unit; }
};

// A layer that runs on the fabric: its shape, the mapping chosen for it and how it ran.
struct FabricLayer {
  std::string shape;          // "N=1 K=64 C=3 R×S=7×7 X×Y=224×224 stride 2" (any text the command uses)
  contracts::Mapping mapping;  // the fabric tile drawn on the fabric, and the SDM level printed beside it
  std::string role;           // its role in its fused group ("input in SDM, output in SDM, 4 stripes"), "" alone
  std::optional<std::int64_t> dram_bytes;             // bytes moved between DRAM and SDM (RTL's when it ran)
  std::optional<std::int64_t> compulsory_dram_bytes;  // inputs, weights and outputs once
};

// One operator of the network in graph order: a fabric layer, or an operator of the post-processing unit
// (pooling, residual add, softmax, …) that has cycles of its own.
struct Operator {
  std::string name;  // from the user's files: escaped wherever it is written
  std::string kind;  // "conv", "fc", "maxpool", "add", …
  std::vector<std::size_t> inputs;  // the operators whose tensors it reads (indices of earlier operators)
  std::optional<FabricLayer> fabric;  // present for a fabric layer
  std::vector<MetricRow> metrics;     // model against RTL (a fabric layer's, or the unit's for its operator)
  std::optional<CycleSplit> cycles;   // absent when nothing measured or estimated it
};

// A fused group: its members run interleaved with their shared tensors kept in the SDM.
struct FusedGroup {
  std::string name;
  std::vector<std::size_t> members;  // indices into ReportData::operators
};

// The verdict of one check of a run (bit-exact outputs, model within tolerance, …).
struct Verdict {
  std::string subject;  // what was checked ("outputs of conv1", "network")
  bool pass = false;
  std::string message;
};

struct ReportData {
  std::string title;    // what produced it ("maeri run", "maeri map")
  std::string network;  // the network's name
  contracts::Hardware hardware;
  std::vector<Operator> operators;
  std::vector<FusedGroup> groups;
  std::vector<Verdict> verdicts;
  std::vector<MetricRow> totals;  // the network's model-vs-RTL rows (may be empty)
};

}  // namespace maeri::report
