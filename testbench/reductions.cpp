// The references of the reductions (see reductions.hpp).
#include "testbench/reductions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "contracts/tensor_layout.hpp"

namespace maeri::testbench {

using contracts::OperatorKind;
using contracts::WideInt;

std::vector<std::int64_t> integer_reduction(const contracts::Operator& op, const contracts::QuantizedOperator& q,
                                            const std::vector<std::int64_t>& shape,
                                            const std::vector<std::int64_t>& x, int data_width) {
  if (op.kind == OperatorKind::ReduceSum && q.output.size() != 1)
    throw std::invalid_argument(fmt::format("operator '{}' (reduce sum): {} requantizations, needs 1", op.name,
                                            q.output.size()));
  const contracts::ReductionGroups groups = contracts::reduction_groups(shape, op.reduce_axes);
  std::vector<std::int64_t> out;
  for (std::size_t first = 0; first < groups.sources.size(); first += std::size_t(groups.size)) {
    WideInt sum = 0;
    std::int64_t largest = x[std::size_t(groups.sources[first])];
    for (std::int64_t i = 0; i < groups.size; ++i) {
      const std::int64_t value = x[std::size_t(groups.sources[first + std::size_t(i)])];
      sum += value;
      largest = std::max(largest, value);
    }
    out.push_back(op.kind == OperatorKind::ReduceMax ? largest
                  : op.kind == OperatorKind::ReduceMean
                      ? contracts::round_divide(sum, groups.size)
                      : contracts::saturate(contracts::round_shift(sum * q.output[0].multiplier, q.output[0].shift),
                                            data_width));
  }
  return out;
}

std::vector<double> real_reduction(const contracts::Operator& op, const std::vector<std::int64_t>& shape,
                                   const std::vector<double>& x) {
  const contracts::ReductionGroups groups = contracts::reduction_groups(shape, op.reduce_axes);
  std::vector<double> out;
  for (std::size_t first = 0; first < groups.sources.size(); first += std::size_t(groups.size)) {
    double sum = 0, largest = x[std::size_t(groups.sources[first])];
    for (std::int64_t i = 0; i < groups.size; ++i) {
      const double value = x[std::size_t(groups.sources[first + std::size_t(i)])];
      sum += value;
      largest = std::max(largest, value);
    }
    out.push_back(op.kind == OperatorKind::ReduceMax    ? largest
                  : op.kind == OperatorKind::ReduceMean ? sum / double(groups.size)
                                                        : sum);
  }
  return out;
}

}  // namespace maeri::testbench
