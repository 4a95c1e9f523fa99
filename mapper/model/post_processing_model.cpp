// The post-processing unit's closed-form cycles and counts (see post_processing_model.hpp; equations in
// docs/model.md, "Post-processing unit").
#include "mapper/model/post_processing_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "contracts/elementwise_pairs.hpp"
#include "mapper/model/post_processing_rows.hpp"
#include "util/integer_math.hpp"

namespace maeri::mapper {
namespace {

using contracts::OperatorKind;
using Shape = std::vector<std::int64_t>;

std::int64_t elements(const Shape& shape) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  return count;
}

void require(bool condition, const contracts::Operator& op, const char* problem) {
  if (!condition)
    throw std::invalid_argument(fmt::format("post-processing operator '{}' ({}): {}", op.name, contracts::operator_label(op),
                                            problem));
}

// Σ over output positions along one axis of the window elements inside the tensor: the window of output o covers
// input positions [o·stride − padding, o·stride − padding + size) clipped to [0, extent).
std::int64_t window_coverage(std::int64_t extent, std::int64_t outputs, std::int64_t size, std::int64_t stride,
                             std::int64_t padding) {
  std::int64_t covered = 0;
  for (std::int64_t o = 0; o < outputs; ++o) {
    const std::int64_t first = o * stride - padding;
    const std::int64_t inside = std::min(extent, first + size) - std::max<std::int64_t>(0, first);
    if (inside <= 0) throw std::invalid_argument("a pooling window lies entirely in the padding");
    covered += inside;
  }
  return covered;
}

// Blocks flowing through stages of fixed beats per block (one buffer per stage): the first block takes every
// stage's beats, each later one the slowest stage's.
std::int64_t pipelined_beats(std::int64_t blocks, const std::vector<std::int64_t>& stage_beats) {
  if (blocks == 0) return 0;
  std::int64_t sum = 0, slowest = 0;
  for (std::int64_t beats : stage_beats) sum += beats, slowest = std::max(slowest, beats);
  return sum + (blocks - 1) * slowest;
}

// ⌈count / P⌉: the beats of `count` elements through the unit's P lanes.
struct Lanes {
  std::int64_t lanes;
  std::int64_t operator()(std::int64_t count) const { return util::ceil_div(count, lanes); }
};

// The number of inputs each kind takes (concat: any, at least one).
void require_inputs(const contracts::Operator& op, const std::vector<Shape>& input_shapes) {
  if (contracts::is_elementwise_pair(op.kind))  // a second tensor, or a constant operand held as a parameter
    require(input_shapes.size() == 1 || input_shapes.size() == 2, op, "wrong number of inputs");
  else if (op.kind == OperatorKind::Concat)
    require(!input_shapes.empty(), op, "no inputs");
  else
    require(input_shapes.size() == 1, op, "wrong number of inputs");
}

// The kinds of one block through one stage of ⌈n/P⌉ beats (docs/model.md's rows "1 × (⌈n/P⌉)"): their counts.
void elementwise_counts(const contracts::Operator& op, std::int64_t n, const std::vector<Shape>& input_shapes,
                        contracts::PostProcessingCounts& c) {
  switch (op.kind) {
    case OperatorKind::FabricLayer:  // wrap(acc + bias) · multiplier, rounding shift, saturation
    case OperatorKind::Requantize:   // x · multiplier, rounding shift, saturation
      c.elements_read = c.elements_written = c.multiplications = c.shifts = n;
      c.comparisons = 2 * n;
      if (op.kind == OperatorKind::FabricLayer) c.additions = n;
      break;
    case OperatorKind::Relu:
    case OperatorKind::Clip:
      c.elements_read = c.elements_written = n;
      c.comparisons = op.kind == OperatorKind::Relu ? n : 2 * n;
      break;
    case OperatorKind::Add:  // a·m_a ± b·m_b, rounding shift, saturation; each stream read per output element
    case OperatorKind::Sub:
      c.elements_read = std::int64_t(input_shapes.size()) * n;
      c.elements_written = c.additions = c.shifts = n;
      c.multiplications = c.comparisons = 2 * n;
      break;
    case OperatorKind::Maximum:  // max / min of a·m_a and b·m_b, rounding shift, saturation
    case OperatorKind::Minimum:
      c.elements_read = std::int64_t(input_shapes.size()) * n;
      c.elements_written = c.shifts = n;
      c.multiplications = 2 * n;
      c.comparisons = 3 * n;
      break;
    case OperatorKind::ChannelAffine:  // x · m_c + b_c, rounding shift, saturation
      c.elements_read = c.elements_written = c.multiplications = c.additions = c.shifts = n;
      c.comparisons = 2 * n;
      break;
    case OperatorKind::Pad:  // the output streamed: the input's elements read, the border's zeros written with them
      c.elements_read = elements(input_shapes[0]);
      c.elements_written = n;
      break;
    case OperatorKind::TableFunction:  // one table lookup per element
      c.elements_read = c.elements_written = c.lookups = n;
      break;
    case OperatorKind::Mul:  // a · b (each stream read per output element), · multiplier, rounding shift, saturation
      c.elements_read = std::int64_t(input_shapes.size()) * n;
      c.elements_written = c.shifts = n;
      c.multiplications = c.comparisons = 2 * n;
      break;
    case OperatorKind::Transpose:
    case OperatorKind::Slice:
    case OperatorKind::Gather:  // data movement: each output element read from its source and written
      c.elements_read = c.elements_written = n;
      break;
    case OperatorKind::Lookup:  // per output element its index read, checked at both ends, its entry looked up
      c.elements_read = c.elements_written = c.lookups = n;
      c.comparisons = 2 * n;
      break;
    case OperatorKind::Concat:
    case OperatorKind::Reshape:
    case OperatorKind::MaxPool:
    case OperatorKind::AveragePool:
    case OperatorKind::GlobalAveragePool:
    case OperatorKind::Softmax:
    case OperatorKind::LayerNormalization:
    case OperatorKind::ReduceMean:
    case OperatorKind::ReduceSum:
    case OperatorKind::ReduceMax:
    case OperatorKind::Resize:
      throw std::logic_error("elementwise_counts: not an elementwise operator");
  }
}

// Concat: each input in turn, x · m_i, rounding shift, saturation. Returns the beats.
std::int64_t concat_counts(std::int64_t n, const std::vector<Shape>& input_shapes, Lanes beats,
                           contracts::PostProcessingCounts& c) {
  std::int64_t beat_count = 0;
  for (const Shape& shape : input_shapes) beat_count += beats(elements(shape));
  c.elements_read = c.elements_written = c.multiplications = c.shifts = n;
  c.comparisons = 2 * n;
  return beat_count;
}

// Max and average pooling: per plane, read it into the plane buffer, then compute and write its outputs. Returns
// the beats.
std::int64_t pooling_counts(const contracts::Operator& op, const Shape& in, const Shape& output_shape, Lanes beats,
                            contracts::PostProcessingCounts& c) {
  require(in.size() == 4 && output_shape.size() == 4, op, "pooling needs rank-4 tensors");
  const contracts::PoolWindow& w = op.pool;
  const std::int64_t planes = in[0] * in[1], out_x = output_shape[2], out_y = output_shape[3];
  const std::int64_t window_elements = window_coverage(in[2], out_x, w.size_x, w.stride_x, w.padding_x) *
                                       window_coverage(in[3], out_y, w.size_y, w.stride_y, w.padding_y);
  c.elements_read = planes * in[2] * in[3];
  c.elements_written = elements(output_shape);
  const std::int64_t steps = planes * (window_elements - out_x * out_y);  // window elements after the first
  if (op.kind == OperatorKind::MaxPool) {
    c.comparisons = steps;
  } else {
    c.additions = steps;
    c.divisions = c.elements_written;
  }
  return pipelined_beats(planes, {beats(in[2] * in[3]), beats(out_x * out_y)});
}

// Global average pooling: per plane, sum it, then divide and write. Returns the beats.
std::int64_t global_average_pool_counts(const contracts::Operator& op, const Shape& in, Lanes beats,
                                        contracts::PostProcessingCounts& c) {
  require(in.size() == 4, op, "global average pooling needs a rank-4 input");
  const std::int64_t planes = in[0] * in[1], plane = in[2] * in[3];
  c.elements_read = planes * plane;
  c.additions = planes * (plane - 1);
  c.divisions = c.elements_written = planes;
  return pipelined_beats(planes, {beats(plane), 1});
}

// Softmax along its axis: per row, read it and find the maximum; subtract, look up and sum; multiply, divide and
// write. Returns the beats.
std::int64_t softmax_counts(const contracts::Operator& op, const Shape& in, Lanes beats,
                            contracts::PostProcessingCounts& c) {
  require(op.axis >= 0 && op.axis < std::int64_t(in.size()), op, "softmax's axis is outside its input's rank");
  const contracts::AxisRows axis_rows = contracts::axis_rows(in, op.axis);
  const std::int64_t classes = axis_rows.extent, rows = axis_rows.rows();
  c.elements_read = c.elements_written = c.lookups = c.multiplications = c.divisions = rows * classes;
  c.comparisons = rows * (classes - 1);
  c.additions = rows * (2 * classes - 1);
  return pipelined_beats(rows, {beats(classes), beats(classes), beats(classes)});
}

// Resize: one stage streaming the taps of the outputs in row-major order, P taps per beat; a nearest resize reads
// and writes each output's one source, a linear one multiplies every tap by its weight, adds an output's taps and
// rounds, shifts and saturates the sum (contracts/resize.hpp). Returns the beats.
std::int64_t resize_counts(const contracts::Operator& op, const Shape& in, Lanes beats,
                           contracts::PostProcessingCounts& c) {
  const contracts::ResizeTaps taps = contracts::resize_taps(op.resize, in);
  const std::int64_t n = taps.outputs(), total = std::int64_t(taps.sources.size());
  c.elements_read = total;
  c.elements_written = n;
  if (op.resize.mode == contracts::ResizeMode::Linear) {
    c.multiplications = total;
    c.additions = total - n;
    c.shifts = n;
    c.comparisons = 2 * n;
  }
  return beats(total);
}

}  // namespace

contracts::PostProcessingCounts post_processing_counts(const contracts::Operator& op,
                                                       const std::vector<Shape>& input_shapes,
                                                       const Shape& output_shape,
                                                       const contracts::PostProcessingSpec& unit) {
  if (unit.lanes < 1) throw std::invalid_argument("the post-processing unit needs at least one lane");
  require_inputs(op, input_shapes);
  const Lanes beats{unit.lanes};
  contracts::PostProcessingCounts c;
  const std::int64_t n = elements(output_shape);
  std::int64_t beat_count = 0;
  switch (op.kind) {
    case OperatorKind::Reshape:  // the same row-major elements under another shape: nothing moves
      return c;
    case OperatorKind::Concat: beat_count = concat_counts(n, input_shapes, beats, c); break;
    case OperatorKind::MaxPool:
    case OperatorKind::AveragePool: beat_count = pooling_counts(op, input_shapes[0], output_shape, beats, c); break;
    case OperatorKind::GlobalAveragePool: beat_count = global_average_pool_counts(op, input_shapes[0], beats, c); break;
    case OperatorKind::Softmax: beat_count = softmax_counts(op, input_shapes[0], beats, c); break;
    case OperatorKind::LayerNormalization:
      beat_count = layer_normalization_counts(op, input_shapes[0], unit.lanes, c);
      break;
    case OperatorKind::ReduceMean:
    case OperatorKind::ReduceSum:
    case OperatorKind::ReduceMax:
      beat_count = reduction_counts(op, input_shapes[0], output_shape, unit.lanes, c);
      break;
    case OperatorKind::Resize: beat_count = resize_counts(op, input_shapes[0], beats, c); break;
    case OperatorKind::FabricLayer:
    case OperatorKind::Requantize:
    case OperatorKind::Relu:
    case OperatorKind::Clip:
    case OperatorKind::Add:
    case OperatorKind::ChannelAffine:
    case OperatorKind::Pad:
    case OperatorKind::TableFunction:
    case OperatorKind::Mul:
    case OperatorKind::Sub:
    case OperatorKind::Maximum:
    case OperatorKind::Minimum:
    case OperatorKind::Transpose:
    case OperatorKind::Slice:
    case OperatorKind::Gather:
    case OperatorKind::Lookup:
      elementwise_counts(op, n, input_shapes, c);
      beat_count = beats(n);
      break;
  }
  c.cycles = beat_count > 0 ? beat_count + unit.latency : 0;
  return c;
}

PostProcessingReport evaluate_post_processing(const contracts::Operator& op, const std::vector<Shape>& input_shapes,
                                              const Shape& output_shape, const contracts::Hardware& hardware) {
  PostProcessingReport report;
  report.counts = post_processing_counts(op, input_shapes, output_shape, hardware.post_processing);
  report.energy_pj = contracts::post_processing_energy_pj(report.counts, hardware.energy_pj);
  return report;
}

PostProcessingReport evaluate_post_processing(const contracts::Network& network, std::size_t op,
                                              const contracts::Hardware& hardware) {
  const contracts::Operator& o = network.operators.at(op);
  const Shape& output = network.tensors.at(o.outputs.at(0)).shape;
  std::vector<Shape> inputs;
  if (o.kind == OperatorKind::FabricLayer) {
    inputs.push_back(output);
  } else {
    for (std::size_t i = 0; i < contracts::activation_inputs(network, o); ++i)
      inputs.push_back(network.tensors.at(o.inputs.at(i)).shape);
  }
  return evaluate_post_processing(o, inputs, output, hardware);
}

}  // namespace maeri::mapper
