// The post-processing unit's kernels and pipeline (see post_processing_unit.hpp; semantics docs/quantization.md).
#include "sim/post_processing_unit.hpp"

#include "sim/post_processing_kernel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include "contracts/elementwise_pairs.hpp"
#include "util/input_file.hpp"

namespace maeri::sim {

using contracts::OperatorKind;
using contracts::WideInt;
using Shape = std::vector<std::int64_t>;

namespace {

using Kernel = PostProcessingUnit::Kernel;

// FabricLayer (epilogue), Requantize, Relu, Clip, ChannelAffine, TableFunction (a lookup in the activation table per
// element) and the element-wise pairs Add, Sub, Maximum, Minimum (both operands rescaled and combined) and Mul (a
// product per element, requantized), whose operands broadcast to the output (a broadcast element is read again
// with every output element that uses it; a constant operand is a parameter, not read): one block, one stage
// streaming every output element.
class ElementwiseKernel : public Kernel {
 public:
  using Kernel::Kernel;
  void check() {
    const contracts::QuantizedOperator& p = job_.parameters;
    if (contracts::is_elementwise_pair(job_.op.kind)) {
      check_operands();
    } else {
      require(job_.inputs.size() == 1, fmt::format("expected 1 input, found {}", job_.inputs.size()));
      require(job_.inputs[0].shape == job_.output_shape, "an input's shape differs from the output's");
    }
    switch (job_.op.kind) {
      case OperatorKind::FabricLayer: {
        require(job_.output_shape.size() >= 2, "a fabric layer's output needs a channel axis (1)");
        const std::size_t channels = std::size_t(job_.output_shape[1]);
        require(p.output.size() == channels, "expected one requantization per output channel");
        require(p.bias.empty() || p.bias.size() == channels, "expected one bias per output channel (or none)");
        channel_stride_ = elements(job_.output_shape) / job_.output_shape[0] / job_.output_shape[1];
        break;
      }
      case OperatorKind::Requantize: require(p.output.size() == 1, "expected one requantization"); break;
      case OperatorKind::Add:
      case OperatorKind::Sub:
      case OperatorKind::Maximum:
      case OperatorKind::Minimum: require(p.input_multipliers.size() == 2, "expected two input multipliers"); break;
      case OperatorKind::ChannelAffine: {
        require(job_.output_shape.size() >= 2, "a channel affine needs rank 2 or more (N, C, …)");
        const std::size_t channels = std::size_t(job_.output_shape[1]);
        require(p.channel_multipliers.size() == channels && p.channel_offsets.size() == channels,
                "expected one multiplier and one offset per channel");
        channel_stride_ = elements(job_.output_shape) / job_.output_shape[0] / job_.output_shape[1];
        break;
      }
      case OperatorKind::TableFunction: {
        const std::int64_t limit = contracts::data_limit(job_.data_width);
        require(std::int64_t(p.activation_table.size()) == 2 * limit + 1,
                "the activation table needs 2L + 1 entries (one per input integer)");
        for (std::int64_t value : job_.inputs[0].values)
          require(value >= -limit && value <= limit, "an input lies outside the data range the table covers");
        break;
      }
      default: break;
    }
  }
  std::size_t blocks() const override { return 1; }
  std::size_t stages() const override { return 1; }
  std::int64_t beats(std::size_t, std::size_t) const override { return beats_of(elements(job_.output_shape)); }
  void beat(std::size_t, std::size_t, std::int64_t beat) override {
    const contracts::QuantizedOperator& p = job_.parameters;
    const auto [first, last] = lanes_of(beat, elements(job_.output_shape));
    for (std::int64_t i = first; i < last; ++i) {
      const std::int64_t x = read(0, first_index_ ? (*first_index_)(i) : i);
      switch (job_.op.kind) {
        case OperatorKind::FabricLayer: {
          const std::size_t k = std::size_t((i / channel_stride_) % job_.output_shape[1]);
          const std::int64_t bias = p.bias.empty() ? 0 : p.bias[k];
          ++counts_.additions;
          const std::int64_t sum = contracts::wrap_signed(WideInt(x) + bias, job_.acc_width);
          write(i, saturate(round_shift(scale(sum, p.output[k].multiplier), p.output[k].shift)));
          break;
        }
        case OperatorKind::Requantize:
          write(i, saturate(round_shift(scale(x, p.output[0].multiplier), p.output[0].shift)));
          break;
        case OperatorKind::Relu:
          ++counts_.comparisons;
          write(i, std::max<std::int64_t>(x, 0));
          break;
        case OperatorKind::Clip:
          counts_.comparisons += 2;
          write(i, std::min(std::max(x, p.clip_min), p.clip_max));
          break;
        case OperatorKind::Add:
        case OperatorKind::Sub:
        case OperatorKind::Maximum:
        case OperatorKind::Minimum: write(i, rescaled_pair(x, operand(i))); break;
        case OperatorKind::ChannelAffine: {
          const std::size_t c = std::size_t((i / channel_stride_) % job_.output_shape[1]);
          ++counts_.additions;
          write(i, saturate(round_shift(scale(x, p.channel_multipliers[c]) + p.channel_offsets[c], p.channel_shift)));
          break;
        }
        case OperatorKind::TableFunction:
          ++counts_.lookups;
          write(i, contracts::activation_lookup(p.activation_table, x, job_.data_width));
          break;
        case OperatorKind::Mul: {
          const WideInt product = scale(x, operand(i));
          ++counts_.multiplications;  // by the requantization multiplier
          write(i, saturate(round_shift(product * p.product.multiplier, p.product.shift)));
          break;
        }
        default: fail("not an element-wise kind");
      }
    }
  }

 private:
  // An element-wise pair: a first tensor and a second tensor or constant (the parameters' constant, its shape),
  // each broadcast to the output's shape.
  void check_operands() {
    const contracts::QuantizedOperator& p = job_.parameters;
    const bool constant = job_.inputs.size() == 1;
    require(job_.inputs.size() == 1 || job_.inputs.size() == 2,
            fmt::format("expected 2 inputs (or 1 and a constant), found {}", job_.inputs.size()));
    const Shape& second = constant ? p.constant_shape : job_.inputs[1].shape;
    require(!constant || (!second.empty() && std::int64_t(p.constant.size()) == elements(second)),
            "the constant operand holds another number of values than its shape");
    const auto broadcast = contracts::broadcast_shape(job_.inputs[0].shape, second);
    require(broadcast && *broadcast == job_.output_shape, "the operands do not broadcast to the output's shape");
    require(!job_.op.constant_first || (constant && job_.op.kind == OperatorKind::Sub),
            "constant_first is for a sub of a tensor and a constant");
    if (job_.inputs[0].shape != job_.output_shape) first_index_.emplace(job_.inputs[0].shape, job_.output_shape);
    second_index_.emplace(second, job_.output_shape);
  }
  // The second operand of output element i: read from its stream, or the constant's integer (a parameter).
  std::int64_t operand(std::int64_t i) {
    const std::int64_t index = (*second_index_)(i);
    return job_.inputs.size() == 2 ? read(1, index) : job_.parameters.constant[std::size_t(index)];
  }
  // Add, sub, max, min: both operands rescaled, combined, rounded and saturated (contracts::rescaled_pair).
  std::int64_t rescaled_pair(std::int64_t a, std::int64_t b) {
    counts_.multiplications += 2;
    ++counts_.shifts;
    counts_.comparisons += 2;  // saturation
    if (job_.op.kind == OperatorKind::Maximum || job_.op.kind == OperatorKind::Minimum) ++counts_.comparisons;
    else ++counts_.additions;
    return contracts::rescaled_pair(job_.op.kind, a, b, job_.parameters, job_.op.constant_first, job_.data_width);
  }

  std::int64_t channel_stride_ = 1;
  std::optional<contracts::BroadcastIndex> first_index_, second_index_;  // element-wise pairs
};

// Concat: each non-empty input is one block through one stage, its elements written to their place along the axis.
class ConcatKernel : public Kernel {
 public:
  using Kernel::Kernel;
  void check() {
    const Shape& out = job_.output_shape;
    const std::int64_t axis = job_.op.axis;
    require(!job_.inputs.empty(), "no inputs");
    require(axis >= 0 && axis < std::int64_t(out.size()), fmt::format("axis {} is outside the output's rank", axis));
    require(job_.parameters.input_multipliers.size() == job_.inputs.size(), "expected one multiplier per input");
    std::int64_t along = 0;
    for (std::size_t i = 0; i < job_.inputs.size(); ++i) {
      const Shape& shape = job_.inputs[i].shape;
      require(shape.size() == out.size(), "an input's rank differs from the output's");
      for (std::size_t d = 0; d < out.size(); ++d)
        if (std::int64_t(d) != axis) require(shape[d] == out[d], "an input's extent differs from the output's");
      along += shape[std::size_t(axis)];
      if (elements(shape) > 0) order_.push_back(i);
    }
    require(along == out[std::size_t(axis)], "the inputs' extents along the axis do not add up to the output's");
    // Elements from the axis on: one contiguous run per outer index, for the output and each input.
    const auto inner = [axis](const Shape& shape) {
      std::int64_t count = 1;
      for (std::size_t d = std::size_t(axis); d < shape.size(); ++d) count *= shape[d];
      return count;
    };
    out_inner_ = inner(out);
    std::int64_t offset = 0;
    for (const IntegerTensor& input : job_.inputs) {
      offsets_.push_back(offset);
      inner_.push_back(inner(input.shape));
      offset += inner_.back();
    }
  }
  std::size_t blocks() const override { return order_.size(); }
  std::size_t stages() const override { return 1; }
  std::int64_t beats(std::size_t, std::size_t block) const override {
    return beats_of(elements(job_.inputs[order_[block]].shape));
  }
  void beat(std::size_t, std::size_t block, std::int64_t beat) override {
    const std::size_t input = order_[block];
    const std::int64_t inner = inner_[input];
    const auto [first, last] = lanes_of(beat, elements(job_.inputs[input].shape));
    for (std::int64_t j = first; j < last; ++j) {
      const WideInt scaled = scale(read(input, j), job_.parameters.input_multipliers[input]);
      write((j / inner) * out_inner_ + offsets_[input] + j % inner,
            saturate(round_shift(scaled, job_.parameters.input_shift)));
    }
  }

 private:
  std::vector<std::size_t> order_;
  std::vector<std::int64_t> inner_, offsets_;
  std::int64_t out_inner_ = 1;
};

// MaxPool, AveragePool: per (n, c) plane, stage 0 reads the plane into its buffer, stage 1 computes and writes the
// plane's outputs from it, `lanes` windows per beat.
class PoolKernel : public Kernel {
 public:
  using Kernel::Kernel;
  void check() {
    require(job_.inputs.size() == 1, "expected one input");
    const Shape& in = job_.inputs[0].shape;
    const Shape& out = job_.output_shape;
    require(in.size() == 4 && out.size() == 4, "pooling needs rank-4 tensors");
    const contracts::PoolWindow& w = job_.op.pool;
    require(w.size_x >= 1 && w.size_y >= 1 && w.stride_x >= 1 && w.stride_y >= 1, "a window needs a positive size "
                                                                                   "and stride");
    require(out[0] == in[0] && out[1] == in[1] && out[2] == w.output_x(in[2]) && out[3] == w.output_y(in[3]),
            "the output's shape is not the window's over the input");
    for (std::int64_t o = 0; o < out[2]; ++o)
      require(range(o, w.stride_x, w.padding_x, w.size_x, in[2]).first < range(o, w.stride_x, w.padding_x, w.size_x,
                                                                              in[2]).second,
              "a window lies entirely in the padding");
    for (std::int64_t o = 0; o < out[3]; ++o)
      require(range(o, w.stride_y, w.padding_y, w.size_y, in[3]).first < range(o, w.stride_y, w.padding_y, w.size_y,
                                                                              in[3]).second,
              "a window lies entirely in the padding");
  }
  std::size_t blocks() const override { return std::size_t(job_.output_shape[0] * job_.output_shape[1]); }
  std::size_t stages() const override { return 2; }
  std::int64_t beats(std::size_t stage, std::size_t) const override {
    const Shape& in = job_.inputs[0].shape;
    return stage == 0 ? beats_of(in[2] * in[3]) : beats_of(job_.output_shape[2] * job_.output_shape[3]);
  }
  void beat(std::size_t stage, std::size_t block, std::int64_t beat) override {
    const Shape& in = job_.inputs[0].shape;
    const std::int64_t plane = in[2] * in[3], out_plane = job_.output_shape[2] * job_.output_shape[3];
    std::vector<std::int64_t>& buffer = buffers_[block];
    if (stage == 0) {
      buffer.resize(std::size_t(plane));
      const auto [first, last] = lanes_of(beat, plane);
      for (std::int64_t i = first; i < last; ++i) buffer[std::size_t(i)] = read(0, std::int64_t(block) * plane + i);
      return;
    }
    const contracts::PoolWindow& w = job_.op.pool;
    const bool maximum = job_.op.kind == OperatorKind::MaxPool;
    const auto [first, last] = lanes_of(beat, out_plane);
    for (std::int64_t o = first; o < last; ++o) {
      const auto [x0, x1] = range(o / job_.output_shape[3], w.stride_x, w.padding_x, w.size_x, in[2]);
      const auto [y0, y1] = range(o % job_.output_shape[3], w.stride_y, w.padding_y, w.size_y, in[3]);
      WideInt result = buffer[std::size_t(x0 * in[3] + y0)];
      for (std::int64_t x = x0; x < x1; ++x)
        for (std::int64_t y = y0; y < y1; ++y) {
          if (x == x0 && y == y0) continue;
          const std::int64_t value = buffer[std::size_t(x * in[3] + y)];
          if (maximum) {
            ++counts_.comparisons;
            result = std::max<WideInt>(result, value);
          } else {
            ++counts_.additions;
            result += value;
          }
        }
      if (!maximum) {
        ++counts_.divisions;
        result = contracts::round_divide(result, (x1 - x0) * (y1 - y0));
      }
      write(std::int64_t(block) * out_plane + o, std::int64_t(result));
    }
    if (beat + 1 == beats(1, block)) buffers_.erase(block);
  }

 private:
  // The input positions [first, last) that the window of output `o` covers inside [0, extent).
  static std::pair<std::int64_t, std::int64_t> range(std::int64_t o, std::int64_t stride, std::int64_t padding,
                                                     std::int64_t size, std::int64_t extent) {
    const std::int64_t first = o * stride - padding;
    return {std::max<std::int64_t>(first, 0), std::min(first + size, extent)};
  }
  std::map<std::size_t, std::vector<std::int64_t>> buffers_;  // the plane in each stage's buffer
};

// GlobalAveragePool: per (n, c) plane, stage 0 sums the plane, stage 1 divides and writes.
class GlobalAverageKernel : public Kernel {
 public:
  using Kernel::Kernel;
  void check() {
    require(job_.inputs.size() == 1, "expected one input");
    const Shape& in = job_.inputs[0].shape;
    require(in.size() == 4, "global average pooling needs a rank-4 input");
    require(job_.output_shape == Shape{in[0], in[1], 1, 1}, "the output's shape is not (N, C, 1, 1)");
  }
  std::size_t blocks() const override { return std::size_t(job_.output_shape[0] * job_.output_shape[1]); }
  std::size_t stages() const override { return 2; }
  std::int64_t beats(std::size_t stage, std::size_t) const override { return stage == 0 ? beats_of(plane()) : 1; }
  void beat(std::size_t stage, std::size_t block, std::int64_t beat) override {
    if (stage == 1) {
      ++counts_.divisions;
      write(std::int64_t(block), contracts::round_divide(sums_[block], plane()));
      sums_.erase(block);
      return;
    }
    const auto [first, last] = lanes_of(beat, plane());
    for (std::int64_t i = first; i < last; ++i) {
      const std::int64_t value = read(0, std::int64_t(block) * plane() + i);
      if (i == 0) {
        sums_[block] = value;
      } else {
        ++counts_.additions;
        sums_[block] += value;
      }
    }
  }

 private:
  std::int64_t plane() const { return job_.inputs[0].shape[2] * job_.inputs[0].shape[3]; }
  std::map<std::size_t, WideInt> sums_;
};

// Softmax along its axis: per row (the elements along the axis at one position of the others, contracts::axis_rows),
// stage 0 reads the row and finds its maximum, stage 1 looks up each e = exp_table[max − x] and sums them, stage 2
// writes round_divide(e · L, Σ e).
class SoftmaxKernel : public Kernel {
 public:
  using Kernel::Kernel;
  void check() {
    require(job_.inputs.size() == 1, "expected one input");
    const Shape& in = job_.inputs[0].shape;
    require(job_.op.axis >= 0 && job_.op.axis < std::int64_t(in.size()),
            fmt::format("axis {} is outside the input's rank {}", job_.op.axis, in.size()));
    require(job_.output_shape == in, "the output's shape differs from the input's");
    const std::vector<std::int64_t>& table = job_.parameters.exp_table;
    require(!table.empty() && table[0] > 0, "the exponential table needs a positive first entry");
    rows_of_ = contracts::axis_rows(in, job_.op.axis);
    classes_ = rows_of_.extent;
  }
  std::size_t blocks() const override { return std::size_t(rows_of_.rows()); }
  std::size_t stages() const override { return 3; }
  std::int64_t beats(std::size_t, std::size_t) const override { return beats_of(classes_); }
  void beat(std::size_t stage, std::size_t block, std::int64_t beat) override {
    Row& row = rows_[block];
    const auto index = [&](std::int64_t c) { return rows_of_.index(std::int64_t(block), c); };
    const auto [first, last] = lanes_of(beat, classes_);
    const std::vector<std::int64_t>& table = job_.parameters.exp_table;
    for (std::int64_t c = first; c < last; ++c) {
      if (stage == 0) {
        const std::int64_t value = read(0, index(c));
        row.values.push_back(value);
        if (c == 0) {
          row.maximum = value;
        } else {
          ++counts_.comparisons;
          row.maximum = std::max(row.maximum, value);
        }
      } else if (stage == 1) {
        ++counts_.additions;
        const std::int64_t distance = row.maximum - row.values[std::size_t(c)];
        ++counts_.lookups;
        const std::int64_t e = distance < std::int64_t(table.size()) ? table[std::size_t(distance)] : 0;
        row.values[std::size_t(c)] = e;
        if (c > 0) ++counts_.additions;
        row.sum += e;
      } else {
        const WideInt scaled = scale(row.values[std::size_t(c)], contracts::data_limit(job_.data_width));
        ++counts_.divisions;
        write(index(c), contracts::round_divide(scaled, std::int64_t(row.sum)));
      }
    }
    if (stage == 2 && beat + 1 == beats(2, block)) rows_.erase(block);
  }

 private:
  struct Row {
    std::vector<std::int64_t> values;  // the inputs, then their exponentials
    std::int64_t maximum = 0;
    WideInt sum = 0;
  };
  contracts::AxisRows rows_of_;
  std::int64_t classes_ = 1;
  std::map<std::size_t, Row> rows_;  // the row in each stage's buffer
};

// Reshape: the same row-major elements under the output's shape; no block, nothing moves.
class ReshapeKernel : public Kernel {
 public:
  using Kernel::Kernel;
  void check() {
    require(job_.inputs.size() == 1, "expected one input");
    require(elements(job_.inputs[0].shape) == elements(job_.output_shape),
            "the output's shape holds another number of elements");
    out_.values = job_.inputs[0].values;
  }
  std::size_t blocks() const override { return 0; }
  std::size_t stages() const override { return 1; }
  std::int64_t beats(std::size_t, std::size_t) const override { return 0; }
  void beat(std::size_t, std::size_t, std::int64_t) override {}
};

// Pad: one block, one stage streaming the output in row-major order: an element inside the border is read from the
// input, one on it is the integer 0 (the quantization is symmetric), `lanes` outputs per beat.
class PadKernel : public Kernel {
 public:
  using Kernel::Kernel;
  void check() {
    require(job_.inputs.size() == 1, "expected one input");
    const Shape& in = job_.inputs[0].shape;
    const contracts::PadBorder& border = job_.op.pad;
    require(in.size() == 4, "padding needs a rank-4 input");
    require(border.x_begin >= 0 && border.x_end >= 0 && border.y_begin >= 0 && border.y_end >= 0,
            "a border side is negative");
    require(job_.output_shape == Shape{in[0], in[1], border.output_x(in[2]), border.output_y(in[3])},
            "the output's shape is not the input's with the border");
  }
  std::size_t blocks() const override { return 1; }
  std::size_t stages() const override { return 1; }
  std::int64_t beats(std::size_t, std::size_t) const override { return beats_of(elements(job_.output_shape)); }
  void beat(std::size_t, std::size_t, std::int64_t beat) override {
    const Shape& in = job_.inputs[0].shape;
    const Shape& out = job_.output_shape;
    const contracts::PadBorder& border = job_.op.pad;
    const auto [first, last] = lanes_of(beat, elements(out));
    for (std::int64_t o = first; o < last; ++o) {
      const std::int64_t plane = o / (out[2] * out[3]);
      const std::int64_t row = o / out[3] % out[2] - border.x_begin, column = o % out[3] - border.y_begin;
      const bool inside = row >= 0 && row < in[2] && column >= 0 && column < in[3];
      write(o, inside ? read(0, (plane * in[2] + row) * in[3] + column) : 0);
    }
  }
};

template <typename K>
std::unique_ptr<Kernel> checked(PostProcessingJob job, std::int64_t lanes) {
  auto kernel = std::make_unique<K>(std::move(job), lanes);
  kernel->check();
  return kernel;
}

std::unique_ptr<Kernel> kernel_for(PostProcessingJob job, std::int64_t lanes) {
  for (const IntegerTensor& input : job.inputs)
    if (std::int64_t(input.values.size()) != elements(input.shape))
      throw std::invalid_argument(fmt::format("post-processing operator '{}': an input holds {} values for its shape's "
                                              "{}", util::shown_value(job.op.name), input.values.size(),
                                              elements(input.shape)));
  if (job.op.kind != OperatorKind::Concat)
    for (const IntegerTensor& input : job.inputs)
      if (input.values.empty())
        throw std::invalid_argument(fmt::format("post-processing operator '{}': an input is empty",
                                                util::shown_value(job.op.name)));
  switch (job.op.kind) {
    case OperatorKind::FabricLayer:
    case OperatorKind::Requantize:
    case OperatorKind::Relu:
    case OperatorKind::Clip:
    case OperatorKind::Add: return checked<ElementwiseKernel>(std::move(job), lanes);
    case OperatorKind::Concat: return checked<ConcatKernel>(std::move(job), lanes);
    case OperatorKind::MaxPool:
    case OperatorKind::AveragePool: return checked<PoolKernel>(std::move(job), lanes);
    case OperatorKind::GlobalAveragePool: return checked<GlobalAverageKernel>(std::move(job), lanes);
    case OperatorKind::Softmax: return checked<SoftmaxKernel>(std::move(job), lanes);
    case OperatorKind::Reshape: return checked<ReshapeKernel>(std::move(job), lanes);
    case OperatorKind::ChannelAffine: return checked<ElementwiseKernel>(std::move(job), lanes);
    case OperatorKind::Pad: return checked<PadKernel>(std::move(job), lanes);
    case OperatorKind::TableFunction:
    case OperatorKind::Mul:
    case OperatorKind::Sub:
    case OperatorKind::Maximum:
    case OperatorKind::Minimum: return checked<ElementwiseKernel>(std::move(job), lanes);
    case OperatorKind::Transpose:
    case OperatorKind::Slice:
    case OperatorKind::Gather: return layout_kernel(std::move(job), lanes);
    case OperatorKind::LayerNormalization:
    case OperatorKind::ReduceMean:
    case OperatorKind::ReduceSum:
    case OperatorKind::ReduceMax: return row_kernel(std::move(job), lanes);
    case OperatorKind::Resize: return resize_kernel(std::move(job), lanes);
    case OperatorKind::Lookup: return lookup_kernel(std::move(job), lanes);
  }
  throw std::invalid_argument("post-processing: unknown operator kind");
}

}  // namespace

PostProcessingJob post_processing_job(const contracts::QuantizedNetwork& network, std::size_t op,
                                      std::vector<IntegerTensor> inputs) {
  PostProcessingJob job;
  job.op = network.network.operators.at(op);
  job.parameters = network.operators.at(op);
  job.inputs = std::move(inputs);
  // A fabric layer's epilogue works on the layer's (N, K, X', Y'): a matrix product's output tensor holds the same
  // elements in the same order under the shape of its operands ([..., M, N], contracts/matrix_product.hpp).
  job.output_shape = job.op.kind == contracts::OperatorKind::FabricLayer
                         ? contracts::output_shape(network.network.layers.at(job.op.layer))
                         : network.network.tensors.at(job.op.outputs.at(0)).shape;
  job.data_width = network.data_width;
  job.acc_width = network.acc_width;
  return job;
}

PostProcessingUnit::PostProcessingUnit() = default;
PostProcessingUnit::~PostProcessingUnit() = default;
PostProcessingUnit::PostProcessingUnit(PostProcessingUnit&&) noexcept = default;
PostProcessingUnit& PostProcessingUnit::operator=(PostProcessingUnit&&) noexcept = default;

void PostProcessingUnit::start(PostProcessingJob job, const contracts::PostProcessingSpec& unit) {
  if (busy_) throw std::logic_error("PostProcessingUnit::start while busy");
  if (unit.lanes < 1) throw std::invalid_argument("the post-processing unit needs at least one lane");
  kernel_ = kernel_for(std::move(job), unit.lanes);
  slots_.assign(kernel_->stages(), Slot{});
  next_block_ = blocks_done_ = 0;
  drain_left_ = unit.latency;
  draining_ = false;
  busy_ = kernel_->blocks() > 0;
}

void PostProcessingUnit::clock() {
  if (!busy_) return;
  ++kernel_->counts_.cycles;
  if (draining_) {
    busy_ = --drain_left_ > 0;
    return;
  }
  // Later stages first, so that a block moves on the clock after its last beat and a freed buffer is refilled in
  // the same clock.
  for (std::size_t s = slots_.size(); s-- > 0;) {
    Slot& slot = slots_[s];
    if (!slot.occupied) {
      std::size_t block = 0;
      if (s == 0 && next_block_ < kernel_->blocks()) {
        block = next_block_++;
      } else if (s > 0 && slots_[s - 1].occupied && slots_[s - 1].finished) {
        block = slots_[s - 1].block;
        slots_[s - 1] = Slot{};
      } else {
        continue;
      }
      slot = Slot{true, false, block, 0, kernel_->beats(s, block)};
    }
    if (slot.finished) continue;  // waiting for the next stage's buffer
    kernel_->beat(s, slot.block, slot.beat);
    if (++slot.beat == slot.beats) {
      slot.finished = true;
      if (s + 1 == slots_.size()) {
        slot = Slot{};
        ++blocks_done_;
      }
    }
  }
  if (blocks_done_ == kernel_->blocks()) {
    draining_ = true;
    busy_ = drain_left_ > 0;
  }
}

bool PostProcessingUnit::busy() const { return busy_; }

const IntegerTensor& PostProcessingUnit::output() const {
  if (!kernel_) throw std::logic_error("PostProcessingUnit::output before start");
  return kernel_->out_;
}

const contracts::PostProcessingCounts& PostProcessingUnit::counts() const {
  if (!kernel_) throw std::logic_error("PostProcessingUnit::counts before start");
  return kernel_->counts_;
}

PostProcessingResult run_post_processing(PostProcessingJob job, const contracts::PostProcessingSpec& unit) {
  PostProcessingUnit processor;
  processor.start(std::move(job), unit);
  while (processor.busy()) processor.clock();
  return {processor.output(), processor.counts()};
}

}  // namespace maeri::sim
