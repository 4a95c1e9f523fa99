// PostProcessingUnit: the unit beside the fabric that runs the operators between MAC layers on integers — a fabric
// layer's epilogue (bias + requantization of the acc_width accumulators) and every other kind of
// contracts::OperatorKind — as plain C++ clocked by its owner (the SystemC shell sim/post_processing_system.hpp, or
// run_post_processing below). Semantics: docs/quantization.md, with the primitives of
// contracts/quantized_network.hpp; timing and counts: docs/cosim.md, "Post-processing unit" (the analytical
// model's closed form of them is mapper/model/post_processing_model.hpp).
//
// Timing: the operator is a sequence of blocks (the whole tensor for element-wise kinds, the whole output for pad,
// one input of a concat, one (n, c) plane of a pool, one row of a softmax) flowing through the kind's stages; each
// stage holds one block in its buffer and moves `lanes` elements per beat (one beat per clock). A block passes to the next stage on the clock
// after its last beat there, when that stage's buffer is free. The last result leaves `latency` cycles after the
// last beat. Reshape moves nothing (the SDM holds the same row-major elements) and takes no cycles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "contracts/hardware.hpp"
#include "contracts/network.hpp"
#include "contracts/post_processing_counts.hpp"
#include "contracts/quantized_network.hpp"

namespace maeri::sim {

// A tensor of integers, row-major.
struct IntegerTensor {
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> values;
};

// One operator for the unit: its kind and attributes (pool window, concat axis), its quantized parameters, its
// inputs and the shape it writes. A FabricLayer's one input is the layer's accumulators (its output shape, values
// within acc_width bits); an Add's two and a Concat's inputs are in the operator's order.
struct PostProcessingJob {
  contracts::Operator op;
  contracts::QuantizedOperator parameters;
  std::vector<IntegerTensor> inputs;
  std::vector<std::int64_t> output_shape;
  int data_width = 16, acc_width = 32;
};

// Operator `op` of `network` on `inputs` (the tensors named by its inputs, a FabricLayer's accumulators instead).
PostProcessingJob post_processing_job(const contracts::QuantizedNetwork& network, std::size_t op,
                                      std::vector<IntegerTensor> inputs);

class PostProcessingUnit {
 public:
  PostProcessingUnit();
  ~PostProcessingUnit();
  PostProcessingUnit(PostProcessingUnit&&) noexcept;
  PostProcessingUnit& operator=(PostProcessingUnit&&) noexcept;

  // Loads a job (between clocks, when not busy). Throws std::invalid_argument when the inputs or parameters do not
  // fit the kind (counts, shapes, ranks, an empty tensor, a window entirely in the padding, a softmax table without
  // a positive first entry) or `unit` has no lanes.
  void start(PostProcessingJob job, const contracts::PostProcessingSpec& unit);
  // One cycle: every stage moves one beat; then the pipeline drains.
  void clock();
  bool busy() const;
  // The output tensor (complete once not busy) and what the unit did so far.
  const IntegerTensor& output() const;
  const contracts::PostProcessingCounts& counts() const;

  class Kernel;  // one kind's stages (post_processing_unit.cpp)

 private:
  struct Slot {
    bool occupied = false, finished = false;
    std::size_t block = 0;
    std::int64_t beat = 0, beats = 0;
  };
  std::unique_ptr<Kernel> kernel_;
  std::vector<Slot> slots_;
  std::size_t next_block_ = 0, blocks_done_ = 0;
  std::int64_t drain_left_ = 0;
  bool busy_ = false, draining_ = false;
};

struct PostProcessingResult {
  IntegerTensor output;
  contracts::PostProcessingCounts counts;
};

// Starts the job on a unit and clocks it until it is done.
PostProcessingResult run_post_processing(PostProcessingJob job, const contracts::PostProcessingSpec& unit);

}  // namespace maeri::sim
