// Layer normalization's and the reductions' closed-form counts and beats (see post_processing_rows.hpp).
#include "mapper/model/post_processing_rows.hpp"

#include <algorithm>

#include "contracts/layer_normalization.hpp"
#include "util/integer_math.hpp"

namespace maeri::mapper {

std::int64_t layer_normalization_counts(const contracts::Operator& op, const std::vector<std::int64_t>& shape,
                                        std::int64_t lanes, contracts::PostProcessingCounts& c) {
  const contracts::NormalisedRows rows = contracts::normalised_rows(shape, op.axis);
  const std::int64_t r = rows.rows, n = rows.length, steps = contracts::kSquareRootSteps;
  c.elements_read = c.elements_written = r * n;
  // Per row: the sum (n − 1), n·x − S (n), Σ d² (n − 1), + e (1), the square root's subtractions, + b·2^R (n).
  c.additions = r * (4 * n - 1 + steps);
  c.multiplications = r * 4 * n;  // n·x, d², d·r, ·m
  c.divisions = r * 2;             // V / n, 2^61 / √t
  c.comparisons = r * (1 + steps + 2 * n);  // max(1, Q), the square root's steps, saturation
  c.shifts = r * n;
  const std::int64_t beats = util::ceil_div(n, lanes);
  return 3 * beats + (r - 1) * beats;
}

std::int64_t reduction_counts(const contracts::Operator& op, const std::vector<std::int64_t>& shape,
                              const std::vector<std::int64_t>& output_shape, std::int64_t lanes,
                              contracts::PostProcessingCounts& c) {
  std::int64_t elements = 1, outputs = 1;
  for (std::int64_t extent : shape) elements *= extent;
  for (std::int64_t extent : output_shape) outputs *= extent;
  const std::int64_t group = elements / outputs;
  c.elements_read = elements;
  c.elements_written = outputs;
  if (op.kind == contracts::OperatorKind::ReduceMax) {
    c.comparisons = outputs * (group - 1);
  } else {
    c.additions = outputs * (group - 1);
  }
  if (op.kind == contracts::OperatorKind::ReduceMean) c.divisions = outputs;
  if (op.kind == contracts::OperatorKind::ReduceSum) {
    c.multiplications = c.shifts = outputs;
    c.comparisons = 2 * outputs;
  }
  const std::int64_t beats = util::ceil_div(group, lanes);
  return beats + 1 + (outputs - 1) * std::max<std::int64_t>(beats, 1);
}

}  // namespace maeri::mapper
