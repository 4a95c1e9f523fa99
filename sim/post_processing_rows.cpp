// The post-processing unit's row-wise kernels. Layer normalization: per row (the elements from `axis` on,
// contracts::normalised_rows), stage 0 reads the row and sums it; stage 1 centres each element (d = n·x − S) and sums
// the squares, and after its last beat forms the row's denominator Q and reciprocal root r (an integer square root
// of kSquareRootSteps steps and one division); stage 2 writes saturate(round_shift(d · r · m + b · 2^R, R + G)).
// The reductions (ReduceMean, ReduceSum, ReduceMax): per output element, read and combine its group, then write.
// Semantics docs/quantization.md; timing and counts docs/cosim.md, "Post-processing unit".
#include <map>

#include "contracts/layer_normalization.hpp"
#include "sim/post_processing_kernel.hpp"

namespace maeri::sim {

namespace {

class LayerNormalizationKernel : public PostProcessingUnit::Kernel {
 public:
  using Kernel::Kernel;
  void check() {
    require(job_.inputs.size() == 1, "expected one input (its scale and shift are parameters)");
    const std::vector<std::int64_t>& in = job_.inputs[0].shape;
    require(job_.op.axis >= 0 && job_.op.axis < std::int64_t(in.size()),
            fmt::format("axis {} is outside the input's rank {}", job_.op.axis, in.size()));
    require(job_.output_shape == in, "the output's shape differs from the input's");
    rows_ = contracts::normalised_rows(in, job_.op.axis);
    const contracts::QuantizedOperator& p = job_.parameters;
    require(std::int64_t(p.channel_multipliers.size()) == rows_.length &&
                std::int64_t(p.channel_offsets.size()) == rows_.length,
            "expected one multiplier and one offset per element of a row");
    require(p.channel_shift >= 0 && p.channel_shift <= contracts::kLayerNormMaxShift,
            "the shift is outside [0, kLayerNormMaxShift]");
  }
  std::size_t blocks() const override { return std::size_t(rows_.rows); }
  std::size_t stages() const override { return 3; }
  std::int64_t beats(std::size_t, std::size_t) const override { return beats_of(rows_.length); }
  void beat(std::size_t stage, std::size_t block, std::int64_t beat) override {
    Row& row = rows_in_flight_[block];
    const std::int64_t n = rows_.length, first_element = std::int64_t(block) * n;
    const auto [first, last] = lanes_of(beat, n);
    const contracts::QuantizedOperator& p = job_.parameters;
    for (std::int64_t i = first; i < last; ++i) {
      if (stage == 0) {
        row.values.push_back(read(0, first_element + i));
        if (i > 0) ++counts_.additions;
        row.sum += row.values.back();
      } else if (stage == 1) {
        counts_.multiplications += 2;  // n·x and d²
        counts_.additions += i > 0 ? 2 : 1;
        std::int64_t& value = row.values[std::size_t(i)];
        value = n * value - row.sum;
        row.squares += contracts::WideInt(value) * value;
      } else {
        counts_.multiplications += 2;  // d·r and ·m
        ++counts_.additions;           // + b·2^R
        const contracts::WideInt sum = contracts::layer_norm_sum(row.values[std::size_t(i)], row.root,
                                                                 p.channel_multipliers[std::size_t(i)],
                                                                 p.channel_offsets[std::size_t(i)]);
        write(first_element + i, saturate(round_shift(sum, row.root.shift + p.channel_shift)));
      }
    }
    if (stage == 1 && beat + 1 == beats(1, block)) {
      counts_.divisions += 2;                                  // V / n and 2^61 / √t
      counts_.additions += 1 + contracts::kSquareRootSteps;    // + e, the square root's subtractions
      counts_.comparisons += 1 + contracts::kSquareRootSteps;  // max(1, Q), the square root's comparisons
      row.root = contracts::reciprocal_root(contracts::normalisation_denominator(row.squares, n, p.epsilon));
    }
    if (stage == 2 && beat + 1 == beats(2, block)) rows_in_flight_.erase(block);
  }

 private:
  struct Row {
    std::vector<std::int64_t> values;  // the inputs, then their centred values d
    std::int64_t sum = 0;
    contracts::WideInt squares = 0;
    contracts::ReciprocalRoot root;
  };
  contracts::NormalisedRows rows_;
  std::map<std::size_t, Row> rows_in_flight_;  // the row in each stage's buffer
};

// ReduceMean, ReduceSum, ReduceMax: per output element (its group, contracts::reduction_groups), stage 0 reads the
// group and sums it (the maximum: compares), stage 1 takes one beat to divide (mean), requantize (sum) or pass
// (max) and write.
class ReductionKernel : public PostProcessingUnit::Kernel {
 public:
  using Kernel::Kernel;
  void check() {
    checked_one_input_operator("axes");
    require(job_.op.kind != contracts::OperatorKind::ReduceSum || job_.parameters.output.size() == 1,
            "expected one requantization");
    groups_ = contracts::reduction_groups(job_.inputs[0].shape, job_.op.reduce_axes);
  }
  std::size_t blocks() const override { return std::size_t(elements(job_.output_shape)); }
  std::size_t stages() const override { return 2; }
  std::int64_t beats(std::size_t stage, std::size_t) const override { return stage == 0 ? beats_of(groups_.size) : 1; }
  void beat(std::size_t stage, std::size_t block, std::int64_t beat) override {
    const bool maximum = job_.op.kind == contracts::OperatorKind::ReduceMax;
    if (stage == 1) {
      const contracts::WideInt value = partial_[block];
      partial_.erase(block);
      if (job_.op.kind == contracts::OperatorKind::ReduceMean) {
        ++counts_.divisions;
        write(std::int64_t(block), contracts::round_divide(value, groups_.size));
      } else if (job_.op.kind == contracts::OperatorKind::ReduceSum) {
        const contracts::Requantization r = job_.parameters.output[0];
        ++counts_.multiplications;
        write(std::int64_t(block), saturate(round_shift(value * r.multiplier, r.shift)));
      } else {
        write(std::int64_t(block), std::int64_t(value));
      }
      return;
    }
    const auto [first, last] = lanes_of(beat, groups_.size);
    for (std::int64_t i = first; i < last; ++i) {
      const std::int64_t value = read(0, groups_.sources[std::size_t(std::int64_t(block) * groups_.size + i)]);
      if (i == 0) {
        partial_[block] = value;
      } else if (maximum) {
        ++counts_.comparisons;
        partial_[block] = std::max<contracts::WideInt>(partial_[block], value);
      } else {
        ++counts_.additions;
        partial_[block] += value;
      }
    }
  }

 private:
  contracts::ReductionGroups groups_;
  std::map<std::size_t, contracts::WideInt> partial_;  // each group's sum or maximum so far
};

}  // namespace

std::unique_ptr<PostProcessingUnit::Kernel> row_kernel(PostProcessingJob job, std::int64_t lanes) {
  if (contracts::is_reduction(job.op)) {
    auto kernel = std::make_unique<ReductionKernel>(std::move(job), lanes);
    kernel->check();
    return kernel;
  }
  if (job.op.kind != contracts::OperatorKind::LayerNormalization) return nullptr;
  auto kernel = std::make_unique<LayerNormalizationKernel>(std::move(job), lanes);
  kernel->check();
  return kernel;
}

}  // namespace maeri::sim
