// The post-processing unit's kernel interface, internal to sim/: one operator kind's datapath (its blocks, stages and
// beats) with the counting primitives every kind shares. post_processing_unit.cpp holds the pipeline that clocks a
// kernel and the kernels of the arithmetic kinds; each family of kinds may keep its kernels in a file of its own
// (post_processing_layout.cpp: the data-movement kinds; post_processing_rows.cpp: layer normalization) behind a
// factory declared here.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "contracts/tensor_layout.hpp"
#include "sim/post_processing_unit.hpp"
#include "util/input_file.hpp"

namespace maeri::sim {

inline std::int64_t elements(const std::vector<std::int64_t>& shape) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  return count;
}

// One kind's datapath: its blocks, its stages and what one beat of a stage does to a block. Every beat handles at
// most `lanes` elements and counts what it reads, writes and computes.
class PostProcessingUnit::Kernel {
 public:
  Kernel(PostProcessingJob job, std::int64_t lanes) : job_(std::move(job)), lanes_(lanes) {
    out_.shape = job_.output_shape;
    out_.values.assign(std::size_t(elements(out_.shape)), 0);
  }
  virtual ~Kernel() = default;
  virtual std::size_t blocks() const = 0;
  virtual std::size_t stages() const = 0;
  virtual std::int64_t beats(std::size_t stage, std::size_t block) const = 0;
  virtual void beat(std::size_t stage, std::size_t block, std::int64_t beat) = 0;

  IntegerTensor out_;
  contracts::PostProcessingCounts counts_;

 protected:
  [[noreturn]] void fail(const std::string& problem) const {
    throw std::invalid_argument(fmt::format("post-processing operator '{}' ({}): {}", util::shown_value(job_.op.name),
                                            contracts::operator_label(job_.op), problem));
  }
  void require(bool condition, const std::string& problem) const {
    if (!condition) fail(problem);
  }
  // A one-input operator whose output shape follows from its input and attributes (transpose, slice, gather, the
  // reductions): checks the job's output shape by the operator's shape rule and returns the operator reading
  // tensor 0, the form contracts/tensor_layout.hpp's index maps take.
  contracts::Operator checked_one_input_operator(const std::string& attributes) const {
    require(job_.inputs.size() == 1, "expected one input");
    contracts::Network network;  // the operator's shape rule, on its one input
    network.tensors.push_back({"input", job_.inputs[0].shape, false});
    contracts::Operator op = job_.op;
    op.inputs = {0};
    const contracts::InferredShape inferred = contracts::layout_output_shape(network, op, "the operator");
    if (inferred.violation) fail(*inferred.violation);
    require(inferred.shape == job_.output_shape,
            "the output's shape is not the one its input and " + attributes + " give");
    return op;
  }
  std::int64_t beats_of(std::int64_t count) const { return (count + lanes_ - 1) / lanes_; }
  // The elements [beat · lanes, …) of a stream of `count`.
  std::pair<std::int64_t, std::int64_t> lanes_of(std::int64_t beat, std::int64_t count) const {
    return {beat * lanes_, std::min(count, (beat + 1) * lanes_)};
  }
  std::int64_t saturate(contracts::WideInt value) {
    counts_.comparisons += 2;
    return contracts::saturate(value, job_.data_width);
  }
  contracts::WideInt scale(std::int64_t value, std::int64_t multiplier) {
    ++counts_.multiplications;
    return contracts::WideInt(value) * multiplier;
  }
  contracts::WideInt round_shift(contracts::WideInt value, int shift) {
    ++counts_.shifts;
    return contracts::round_shift(value, shift);
  }
  std::int64_t read(std::size_t input, std::int64_t index) {
    ++counts_.elements_read;
    return job_.inputs[input].values[std::size_t(index)];
  }
  void write(std::int64_t index, std::int64_t value) {
    ++counts_.elements_written;
    out_.values[std::size_t(index)] = value;
  }

  PostProcessingJob job_;
  std::int64_t lanes_;
};


// The kernel of a data-movement kind (Transpose, Slice, Gather), checked against the job; nullptr for other kinds
// (post_processing_layout.cpp).
std::unique_ptr<PostProcessingUnit::Kernel> layout_kernel(PostProcessingJob job, std::int64_t lanes);

// The kernel of layer normalization or a reduction, checked against the job; nullptr for other kinds
// (post_processing_rows.cpp).
std::unique_ptr<PostProcessingUnit::Kernel> row_kernel(PostProcessingJob job, std::int64_t lanes);

// The kernel of a resize, checked against the job (post_processing_resize.cpp).
std::unique_ptr<PostProcessingUnit::Kernel> resize_kernel(PostProcessingJob job, std::int64_t lanes);

// The kernel of a lookup, checked against the job and its indices (post_processing_lookup.cpp).
std::unique_ptr<PostProcessingUnit::Kernel> lookup_kernel(PostProcessingJob job, std::int64_t lanes);

}  // namespace maeri::sim
