// The recurrent family of the float evaluation (onnx_node_evaluation.hpp): LSTM (gates i, o, f, c), GRU (z, r, h;
// linear_before_reset either way) and RNN as ONNX's docs/Operators.md writes their equations, with the default
// activations (sigmoid, tanh), peepholes, `clip`, initial states and both layouts. Besides Y, Y_h and Y_c it gives,
// per direction and step in processing order, x_t and h_{t−1}: the inputs of the importer's unrolled layers
// (importer/onnx_recurrent.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "importer/onnx_node_evaluation_steps.hpp"

namespace maeri::importer::evaluation {
namespace {

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

struct RecurrentShape {
  std::int64_t gates = 1, steps = 0, batch = 0, features = 0, hidden = 0, directions = 1;
  bool batch_first = false;
};

// Σ_k a[k]·m[row·columns + k]: one row of W or R (columns wide) against a vector.
double dot(const std::vector<double>& m, std::int64_t row, std::int64_t columns, const double* a) {
  double sum = 0;
  for (std::int64_t k = 0; k < columns; ++k) sum += m[std::size_t(row * columns + k)] * a[k];
  return sum;
}

void check_activations(const Step& step) {
  const auto* given = step.attribute("activations");
  if (!given) return;
  for (int i = 0; i < given->strings_size(); ++i) {
    const std::string& name = given->strings(i);
    const std::string expected = i % (step.node.op_type == "RNN" ? 1 : step.node.op_type == "GRU" ? 2 : 3) == 0
                                     ? (step.node.op_type == "RNN" ? "Tanh" : "Sigmoid")
                                     : "Tanh";
    if (name != expected) step.fail(fmt::format("activation '{}' (only the defaults are evaluated)", name));
  }
}

// One step of one direction for one batch row: the new h (and c for an LSTM) from x, h, c.
void cell(const Step& step, const RecurrentShape& s, std::int64_t d, const double* x, std::vector<double>& h,
          std::vector<double>& c) {
  const std::vector<double>& w = step.input(1).values;
  const std::vector<double>& r = step.input(2).values;
  const RealArray* b = step.optional_input(3);
  const RealArray* p = step.optional_input(7);
  const double clip = step.real("clip", INFINITY);
  const std::int64_t rows = s.gates * s.hidden, H = s.hidden;
  const auto bias = [&](std::int64_t half, std::int64_t row) {
    return b ? b->values[std::size_t(d * 2 * rows + half * rows + row)] : 0.0;
  };
  const auto input_part = [&](std::int64_t row) {
    return std::clamp(dot(w, d * rows + row, s.features, x) + bias(0, row), -clip, clip);
  };
  const std::vector<double> before = h;
  const auto recurrent_part = [&](std::int64_t row, const double* state) {
    return dot(r, d * rows + row, H, state) + bias(1, row);
  };
  std::vector<double> reset(std::size_t(s.gates == 3 ? H : 0));  // a GRU's reset gate, for every unit of h
  for (std::int64_t k = 0; k < std::int64_t(reset.size()); ++k)
    reset[std::size_t(k)] = sigmoid(std::clamp(input_part(H + k) + recurrent_part(H + k, before.data()), -clip, clip));
  for (std::int64_t j = 0; j < H; ++j) {
    if (s.gates == 1) {
      h[std::size_t(j)] = std::tanh(std::clamp(input_part(j) + recurrent_part(j, before.data()), -clip, clip));
    } else if (s.gates == 3) {
      const double z = sigmoid(std::clamp(input_part(j) + recurrent_part(j, before.data()), -clip, clip));
      double candidate = input_part(2 * H + j);
      if (step.integer("linear_before_reset", 0)) {
        candidate += reset[std::size_t(j)] * recurrent_part(2 * H + j, before.data());
      } else {  // (r ⊙ h)·R_hᵀ + Rb_h
        double sum = bias(1, 2 * H + j);
        for (std::int64_t k = 0; k < H; ++k)
          sum += r[std::size_t((d * rows + 2 * H + j) * H + k)] * reset[std::size_t(k)] * before[std::size_t(k)];
        candidate += sum;
      }
      const double tilde = std::tanh(std::clamp(candidate, -clip, clip));
      h[std::size_t(j)] = (1 - z) * tilde + z * before[std::size_t(j)];
    } else {
      const auto peephole = [&](std::int64_t gate) {
        return p ? p->values[std::size_t(d * 3 * H + gate * H + j)] : 0.0;
      };
      const double i = sigmoid(input_part(j) + recurrent_part(j, before.data()) + peephole(0) * c[std::size_t(j)]);
      const double f = sigmoid(input_part(2 * H + j) + recurrent_part(2 * H + j, before.data()) +
                               peephole(2) * c[std::size_t(j)]);
      const double g = std::tanh(input_part(3 * H + j) + recurrent_part(3 * H + j, before.data()));
      c[std::size_t(j)] = f * c[std::size_t(j)] + i * g;
    }
  }
  if (s.gates == 4)
    for (std::int64_t j = 0; j < H; ++j) {
      const double o = sigmoid(input_part(H + j) + recurrent_part(H + j, before.data()) +
                               (p ? p->values[std::size_t(d * 3 * H + H + j)] * c[std::size_t(j)] : 0.0));
      h[std::size_t(j)] = o * std::tanh(c[std::size_t(j)]);
    }
}

RecurrentShape recurrent_shape(const Step& step) {
  RecurrentShape s;
  const std::string& op = step.node.op_type;
  s.gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
  s.batch_first = step.integer("layout", 0) == 1;
  const Dims& x = step.input(0).shape;
  if (x.size() != 3) step.fail("its input X is not 3-D");
  s.steps = x[s.batch_first ? 1 : 0];
  s.batch = x[s.batch_first ? 0 : 1];
  s.features = x[2];
  s.directions = step.input(1).shape.at(0);
  s.hidden = step.input(1).shape.at(1) / s.gates;
  if (const RealArray* lengths = step.optional_input(4))
    for (const double length : lengths->values)
      if (std::int64_t(length) != s.steps) step.fail("sequence_lens shorter than the sequence");
  check_activations(step);
  if (step.integer("input_forget", 0)) step.fail("input_forget 1");
  return s;
}

}  // namespace

std::vector<RealArray> evaluate_recurrent(const Step& step) {
  const RecurrentShape s = recurrent_shape(step);
  const std::int64_t H = s.hidden;
  const std::vector<double>& x = step.input(0).values;
  RealArray y, y_h, y_c;
  y.shape = s.batch_first ? Dims{s.batch, s.steps, s.directions, H} : Dims{s.steps, s.directions, s.batch, H};
  y_h.shape = s.batch_first ? Dims{s.batch, s.directions, H} : Dims{s.directions, s.batch, H};
  y_c.shape = y_h.shape;
  y.values.assign(std::size_t(elements(y.shape)), 0);
  y_h.values.assign(std::size_t(elements(y_h.shape)), 0);
  y_c.values = y_h.values;
  // Per direction and processed step: x_t, then h_{t−1}, as the unrolled GEMM layer reads them: (1, C, batch, 1),
  // each feature's batch rows together (element (c, n) at c·batch + n).
  std::vector<RealArray> layer_inputs;
  for (std::int64_t i = 0; i < s.directions * s.steps; ++i) {
    layer_inputs.push_back({{1, s.features, s.batch, 1}, std::vector<double>(std::size_t(s.features * s.batch))});
    layer_inputs.push_back({{1, H, s.batch, 1}, std::vector<double>(std::size_t(H * s.batch))});
  }
  const auto* given_direction = step.attribute("direction");
  const bool reverse = given_direction && given_direction->s() == "reverse";
  for (std::int64_t d = 0; d < s.directions; ++d) {
    const bool backwards = reverse || d == 1;
    for (std::int64_t n = 0; n < s.batch; ++n) {
      std::vector<double> h(std::size_t(H), 0), c(std::size_t(H), 0);
      const auto initial = [&](int index, std::vector<double>& state) {
        if (const RealArray* given = step.optional_input(index))
          for (std::int64_t j = 0; j < H; ++j) state[std::size_t(j)] = given->values[std::size_t((d * s.batch + n) * H + j)];
      };
      initial(5, h);
      if (s.gates == 4) initial(6, c);
      for (std::int64_t k = 0; k < s.steps; ++k) {
        const std::int64_t t = backwards ? s.steps - 1 - k : k;
        const double* x_t = &x[std::size_t(s.batch_first ? (n * s.steps + t) * s.features : (t * s.batch + n) * s.features)];
        RealArray& x_in = layer_inputs[std::size_t(2 * (d * s.steps + k))];
        RealArray& h_in = layer_inputs[std::size_t(2 * (d * s.steps + k) + 1)];
        for (std::int64_t f = 0; f < s.features; ++f) x_in.values[std::size_t(f * s.batch + n)] = x_t[f];
        for (std::int64_t j = 0; j < H; ++j) h_in.values[std::size_t(j * s.batch + n)] = h[std::size_t(j)];
        cell(step, s, d, x_t, h, c);
        for (std::int64_t j = 0; j < H; ++j) {
          const std::int64_t at = s.batch_first ? ((n * s.steps + t) * s.directions + d) * H + j
                                                : ((t * s.directions + d) * s.batch + n) * H + j;
          y.values[std::size_t(at)] = h[std::size_t(j)];
        }
      }
      for (std::int64_t j = 0; j < H; ++j) {
        const std::int64_t at = s.batch_first ? (n * s.directions + d) * H + j : (d * s.batch + n) * H + j;
        y_h.values[std::size_t(at)] = h[std::size_t(j)];
        y_c.values[std::size_t(at)] = c[std::size_t(j)];
      }
    }
  }
  std::vector<RealArray> outputs{y, y_h, y_c};
  outputs.insert(outputs.end(), layer_inputs.begin(), layer_inputs.end());
  return outputs;
}

}  // namespace maeri::importer::evaluation
