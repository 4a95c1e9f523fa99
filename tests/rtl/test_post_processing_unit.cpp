// The post-processing unit: every operator kind on small tensors with outputs and cycles computed by hand, the
// analytical model's cycles and counts equal to the unit's on random operators of every kind, and the unit clocked
// as the fabric driver clocks it giving what the plain core gives.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <random>

#include "contracts/layer_normalization.hpp"
#include "mapper/model/post_processing_model.hpp"
#include "sim/post_processing_system.hpp"
#include "testbench/cross_check.hpp"

using namespace maeri::contracts;
using maeri::sim::IntegerTensor;
using maeri::sim::PostProcessingJob;
using maeri::sim::run_post_processing;

namespace {

PostProcessingJob job_of(OperatorKind kind, std::vector<IntegerTensor> inputs, std::vector<std::int64_t> output_shape) {
  PostProcessingJob job;
  job.op.name = "op";
  job.op.kind = kind;
  job.inputs = std::move(inputs);
  job.output_shape = std::move(output_shape);
  job.data_width = 8;  // L = 127
  job.acc_width = 8;
  return job;
}

std::vector<std::int64_t> run(const PostProcessingJob& job, PostProcessingSpec unit = {2, 1}) {
  return run_post_processing(job, unit).output.values;
}

using Values = std::vector<std::int64_t>;

}  // namespace

TEST_CASE("post-processing unit: a fabric layer's epilogue, by hand", "[sim][post_processing]") {
  // Channel 0 scales by 0.5 (2^30 · 2^−31), channel 1 by 1.5 (3 · 2^−1); biases 1 and −2; 8-bit accumulators.
  PostProcessingJob job = job_of(OperatorKind::FabricLayer, {{{1, 2, 1, 2}, {10, 127, 100, -3}}}, {1, 2, 1, 2});
  job.parameters.bias = {1, -2};
  job.parameters.output = {{std::int64_t(1) << 30, 31}, {3, 1}};
  // 10 + 1 = 11 → 5.5 → 6 (ties away from zero); 127 + 1 wraps to −128 → −64; 98 · 1.5 = 147 saturates to 127;
  // −5 · 1.5 = −7.5 → −8.
  const auto result = run_post_processing(job, {3, 2});
  CHECK(result.output.values == Values{6, -64, 127, -8});
  CHECK(result.output.shape == std::vector<std::int64_t>{1, 2, 1, 2});
  CHECK(result.counts.cycles == 2 + 2);  // 4 elements at 3 lanes, latency 2
  CHECK(result.counts.comparisons == 8);
}

TEST_CASE("post-processing unit: requantize, relu, clip and add, by hand", "[sim][post_processing]") {
  PostProcessingJob requantize = job_of(OperatorKind::Requantize, {{{3}, {5, -5, 3}}}, {3});
  requantize.parameters.output = {{3, 2}};  // 0.75: 3.75 → 4, −3.75 → −4, 2.25 → 2
  CHECK(run(requantize) == Values{4, -4, 2});

  CHECK(run(job_of(OperatorKind::Relu, {{{3}, {-3, 0, 4}}}, {3})) == Values{0, 0, 4});

  PostProcessingJob clip = job_of(OperatorKind::Clip, {{{3}, {-5, 1, 9}}}, {3});
  clip.parameters.clip_min = -2;
  clip.parameters.clip_max = 3;
  CHECK(run(clip) == Values{-2, 1, 3});

  PostProcessingJob add = job_of(OperatorKind::Add, {{{2}, {10, -10}}, {{2}, {4, 3}}}, {2});
  add.parameters.input_multipliers = {2, 1};
  add.parameters.input_shift = 1;  // (20 + 4) / 2 = 12; (−20 + 3) / 2 = −8.5 → −9
  CHECK(run(add) == Values{12, -9});
  add.parameters.input_multipliers = {200, 200};  // saturates at ±127
  CHECK(run(add) == Values{127, -127});
}

TEST_CASE("post-processing unit: concat along channels and along the last axis, by hand", "[sim][post_processing]") {
  PostProcessingJob channels = job_of(OperatorKind::Concat, {{{1, 1, 2}, {1, 2}}, {{1, 2, 2}, {3, 4, 5, 6}}}, {1, 3, 2});
  channels.parameters.input_multipliers = {2, 1};
  channels.parameters.input_shift = 1;  // input 1 halved: 1.5 → 2, 2, 2.5 → 3, 3
  const auto result = run_post_processing(channels, {2, 1});
  CHECK(result.output.values == Values{1, 2, 2, 2, 3, 3});
  CHECK(result.counts.cycles == 1 + 2 + 1);  // one beat for input 0, two for input 1, latency 1

  PostProcessingJob last = job_of(OperatorKind::Concat, {{{1, 2, 1}, {1, 2}}, {{1, 2, 2}, {3, 4, 5, 6}}}, {1, 2, 3});
  last.op.axis = 2;
  last.parameters.input_multipliers = {1, 1};
  CHECK(run(last) == Values{1, 3, 4, 2, 5, 6});
}

TEST_CASE("post-processing unit: pools, global average pool and reshape, by hand", "[sim][post_processing]") {
  const IntegerTensor plane{{1, 1, 3, 3}, {1, -2, 3, 4, 5, -8, 7, 8, 9}};
  PostProcessingJob max = job_of(OperatorKind::MaxPool, {plane}, {1, 1, 2, 2});
  max.op.pool = {2, 2, 1, 1, 0, 0};
  CHECK(run(max) == Values{5, 5, 8, 9});
  // 3x3 windows, stride 2, padding 1: each window holds the 2x2 corner of the plane it overlaps; padding never
  // wins a maximum of negative values.
  max.op.pool = {3, 3, 2, 2, 1, 1};
  max.inputs[0].values = {-1, -2, -3, -4, -5, -6, -7, -8, -9};
  CHECK(run(max) == Values{-1, -2, -4, -5});

  PostProcessingJob average = job_of(OperatorKind::AveragePool, {plane}, {1, 1, 2, 2});
  average.op.pool = {3, 3, 2, 2, 1, 1};
  // (1 − 2 + 4 + 5) / 4 = 2; (−2 + 3 + 5 − 8) / 4 = −0.5 → −1; (4 + 5 + 7 + 8) / 4 = 6; (5 − 8 + 8 + 9) / 4 = 3.5 → 4
  const auto mean = run_post_processing(average, {4, 3});
  CHECK(mean.output.values == Values{2, -1, 6, 4});
  CHECK(mean.counts.cycles == 3 + 1 + 3);  // read 9 at 4 lanes, write 4, latency 3
  CHECK(mean.counts.additions == 12);

  PostProcessingJob global =
      job_of(OperatorKind::GlobalAveragePool, {{{1, 2, 2, 2}, {1, 2, 3, 5, -1, -2, -3, -4}}}, {1, 2, 1, 1});
  const auto pooled = run_post_processing(global, {2, 0});
  CHECK(pooled.output.values == Values{3, -3});  // 11 / 4 = 2.75 → 3; −10 / 4 = −2.5 → −3
  CHECK(pooled.counts.cycles == 2 + 2 + 1);       // plane 0 summed in 1-2, plane 1 in 3-4 (plane 0 divided in 3), 5

  const auto reshaped = run_post_processing(job_of(OperatorKind::Reshape, {{{1, 2, 2}, {1, 2, 3, 4}}}, {1, 4}), {2, 1});
  CHECK(reshaped.output.values == Values{1, 2, 3, 4});
  CHECK(reshaped.output.shape == std::vector<std::int64_t>{1, 4});
  CHECK(reshaped.counts.cycles == 0);
}

TEST_CASE("post-processing unit: pad writes a zero border around each plane, by hand", "[sim][post_processing]") {
  // Two 2x3 planes; one row above, none below, no column before, two after: 3x5 planes.
  PostProcessingJob pad = job_of(OperatorKind::Pad, {{{1, 2, 2, 3}, {1, -2, 3, 4, 5, -6, 7, 8, 9, 10, 11, 12}}},
                                 {1, 2, 3, 5});
  pad.op.pad = {1, 0, 0, 2};
  const auto result = run_post_processing(pad, {4, 2});
  CHECK(result.output.values == Values{0, 0, 0, 0, 0, 1, -2, 3, 0, 0, 4, 5, -6, 0, 0,  //
                                       0, 0, 0, 0, 0, 7, 8, 9, 0, 0, 10, 11, 12, 0, 0});
  CHECK(result.counts.cycles == 8 + 2);  // 30 outputs at 4 lanes, latency 2
  CHECK(result.counts.elements_read == 12);
  CHECK(result.counts.elements_written == 30);
  PostProcessingJob wrong = pad;
  wrong.output_shape = {1, 2, 3, 4};
  CHECK_THROWS_AS(run(wrong), std::invalid_argument);  // not the input's shape with the border
}

TEST_CASE("post-processing unit: softmax along axis 1, by hand", "[sim][post_processing]") {
  PostProcessingJob softmax = job_of(OperatorKind::Softmax, {{{1, 3}, {2, 0, 1}}}, {1, 3});
  softmax.parameters.exp_table = {100, 50, 20};
  // e = 100, 20, 50 (Σ 170): 127 · e / 170 = 74.7 → 75, 14.9 → 15, 37.4 → 37
  const auto result = run_post_processing(softmax, {2, 1});
  CHECK(result.output.values == Values{75, 15, 37});
  CHECK(result.counts.cycles == 3 * 2 + 1);
  softmax.inputs[0].values = {5, 0, 4};  // max − 0 = 5 is beyond the table: e = 0
  CHECK(run(softmax) == Values{85, 0, 42});
  // Rank 4: rows run along the channels at each (x, y).
  PostProcessingJob image = job_of(OperatorKind::Softmax, {{{1, 2, 1, 2}, {1, 0, 0, 3}}}, {1, 2, 1, 2});
  image.parameters.exp_table = {100, 50, 20, 10};
  CHECK(run(image) == Values{85, 12, 42, 115});
}

TEST_CASE("post-processing unit: channel affine per channel of axis 1, by hand", "[sim][post_processing]") {
  PostProcessingJob affine = job_of(OperatorKind::ChannelAffine, {{{1, 2, 1, 2}, {5, -2, 3, -100}}}, {1, 2, 1, 2});
  affine.parameters.channel_multipliers = {3, -2};  // at shift 2: × 0.75 + 0.5, × −0.5 + 0.25
  affine.parameters.channel_offsets = {2, 1};
  affine.parameters.channel_shift = 2;
  // (15 + 2)/4 = 4.25 → 4, (−6 + 2)/4 = −1; (−6 + 1)/4 = −1.25 → −1, (200 + 1)/4 = 50.25 → 50
  const auto result = run_post_processing(affine, {3, 2});
  CHECK(result.output.values == Values{4, -1, -1, 50});
  CHECK(result.counts.cycles == 2 + 2);  // 4 elements at 3 lanes, latency 2
  CHECK(result.counts.multiplications == 4);
  CHECK(result.counts.additions == 4);
  affine.parameters.channel_multipliers = {8, -8};  // × 2 and × −2
  CHECK(run(affine) == Values{11, -4, -6, 127});  // 10.5 → 11, −3.5 → −4, −5.75 → −6, 200.25 → 127
  // Rank 2: the channels are the columns.
  PostProcessingJob rows = job_of(OperatorKind::ChannelAffine, {{{2, 2}, {1, 2, 3, 4}}}, {2, 2});
  rows.parameters.channel_multipliers = {1, -1};
  rows.parameters.channel_offsets = {0, 10};
  CHECK(run(rows) == Values{1, 8, 3, 6});
  rows.parameters.channel_offsets = {0};
  CHECK_THROWS_AS(run(rows), std::invalid_argument);  // one offset for two channels
}

TEST_CASE("post-processing unit: table functions and mul, by hand", "[sim][post_processing]") {
  // A table over [−127, 127] whose entry for x is x / 2 rounded up for the gates (any table: the unit looks up).
  Values table;
  for (std::int64_t x = -127; x <= 127; ++x) table.push_back(x >= 0 ? (x + 1) / 2 : x / 2);
  for (UnaryFunction function : {UnaryFunction::Sigmoid, UnaryFunction::Tanh, UnaryFunction::Log}) {
    PostProcessingJob gate = job_of(OperatorKind::TableFunction, {{{1, 5}, {-127, -3, 0, 3, 127}}}, {1, 5});
    gate.op.function = default_call(function);
    gate.parameters.activation_table = table;
    const auto result = run_post_processing(gate, {2, 1});
    INFO(to_string(function));
    CHECK(result.output.values == Values{-63, -1, 0, 2, 64});
    CHECK(result.counts.lookups == 5);
    CHECK(result.counts.cycles == 3 + 1);  // 5 elements at 2 lanes, latency 1
  }
  PostProcessingJob product = job_of(OperatorKind::Mul, {{{1, 4}, {20, -20, 3, 127}}, {{1, 4}, {10, 13, -3, 127}}}, {1, 4});
  product.parameters.product = {1 << 30, 31};  // 0.5: 100, −130 → −127, −4.5 → −5, 8064.5 → 127
  CHECK(run(product) == Values{100, -127, -5, 127});
  // The SE gate (1, 2, 1, 1) scales channel 0's plane by 2 and channel 1's by −3.
  PostProcessingJob se =
      job_of(OperatorKind::Mul, {{{1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}}, {{1, 2, 1, 1}, {2, -3}}}, {1, 2, 2, 2});
  se.parameters.product = {1 << 30, 30};
  const auto scaled = run_post_processing(se, {4, 0});
  CHECK(scaled.output.values == Values{2, 4, 6, 8, -15, -18, -21, -24});
  CHECK(scaled.counts.elements_read == 16);  // the gate's element read with each element of its plane
  CHECK(scaled.counts.cycles == 2);
}

TEST_CASE("post-processing unit: sub, max, min and broadcast constants, by hand", "[sim][post_processing]") {
  // a (1, 2, 2) minus a constant (2, 1) = [[1], [−2]] broadcast along the last axis; multipliers 2 and 3 at shift 1:
  // (2a − 3c) / 2.
  PostProcessingJob sub = job_of(OperatorKind::Sub, {{{1, 2, 2}, {4, 5, -6, 100}}}, {1, 2, 2});
  sub.parameters.input_multipliers = {2, 3};
  sub.parameters.input_shift = 1;
  sub.parameters.constant = {1, -2};
  sub.parameters.constant_shape = {2, 1};
  // (8 − 3)/2 = 2.5 → 3; (10 − 3)/2 = 3.5 → 4; (−12 + 6)/2 = −3; (200 + 6)/2 = 103.
  const auto difference = run_post_processing(sub, {4, 0});
  CHECK(difference.output.values == Values{3, 4, -3, 103});
  CHECK(difference.counts.elements_read == 4);  // the constant is a parameter, not read
  CHECK(difference.counts.additions == 4);
  sub.op.constant_first = true;  // c − a: (3c − 2a) / 2: −2.5 → −3, −3.5 → −4, 3, −103
  CHECK(run(sub) == Values{-3, -4, 3, -103});
  // max and min of two streams, the second (2) broadcast over the first (2, 2): multipliers 1 and 1 at shift 0.
  for (OperatorKind kind : {OperatorKind::Maximum, OperatorKind::Minimum}) {
    PostProcessingJob extreme = job_of(kind, {{{2, 2}, {1, -5, 7, 0}}, {{2}, {3, -1}}}, {2, 2});
    extreme.parameters.input_multipliers = {1, 1};
    const auto result = run_post_processing(extreme, {1, 0});
    INFO(to_string(kind));
    CHECK(result.output.values == (kind == OperatorKind::Maximum ? Values{3, -1, 7, 0} : Values{1, -5, 3, -1}));
    CHECK(result.counts.elements_read == 8);  // the broadcast operand read with every output element
    CHECK(result.counts.comparisons == 12);   // max/min and both sides of the saturation
    CHECK(result.counts.cycles == 4);
  }
  // Broadcast on both sides: (2, 1) · (1, 3) → (2, 3), the product by 1 (2^30 · 2^−30).
  PostProcessingJob outer = job_of(OperatorKind::Mul, {{{2, 1}, {2, -3}}, {{1, 3}, {1, 5, 7}}}, {2, 3});
  outer.parameters.product = {1 << 30, 30};
  CHECK(run(outer) == Values{2, 10, 14, -3, -15, -21});
}

TEST_CASE("post-processing unit: bad jobs are refused", "[sim][post_processing]") {
  PostProcessingJob add = job_of(OperatorKind::Add, {{{2}, {1, 2}}}, {2});
  add.parameters.input_multipliers = {1, 1};
  CHECK_THROWS_AS(run(add), std::invalid_argument);  // one input
  PostProcessingJob pool = job_of(OperatorKind::MaxPool, {{{1, 4}, {1, 2, 3, 4}}}, {1, 4});
  CHECK_THROWS_AS(run(pool), std::invalid_argument);  // rank 2
  PostProcessingJob softmax = job_of(OperatorKind::Softmax, {{{1, 2}, {1, 2}}}, {1, 2});
  CHECK_THROWS_AS(run(softmax), std::invalid_argument);  // no table
  PostProcessingJob relu = job_of(OperatorKind::Relu, {{{3}, {1, 2}}}, {3});
  CHECK_THROWS_AS(run(relu), std::invalid_argument);  // 2 values for 3 elements
  CHECK_THROWS_AS(run(job_of(OperatorKind::Relu, {{{1}, {1}}}, {1}), {0, 1}), std::invalid_argument);
  PostProcessingJob sigmoid = job_of(OperatorKind::TableFunction, {{{1}, {1}}}, {1});
  sigmoid.parameters.activation_table = {0, 1, 2};
  CHECK_THROWS_AS(run(sigmoid), std::invalid_argument);  // a table of 3 entries, not 255
  PostProcessingJob broadcast = job_of(OperatorKind::Mul, {{{1, 2, 2, 2}, Values(8, 1)}, {{1, 3, 2, 2}, Values(12, 1)}},
                                       {1, 2, 2, 2});
  CHECK_THROWS_AS(run(broadcast), std::invalid_argument);  // 2 and 3 channels do not broadcast
  PostProcessingJob constant = job_of(OperatorKind::Add, {{{1, 2}, {1, 2}}}, {1, 2});
  constant.parameters.input_multipliers = {1, 1};
  constant.parameters.constant = {1, 2, 3};
  constant.parameters.constant_shape = {2};
  CHECK_THROWS_AS(run(constant), std::invalid_argument);  // 3 values for a constant of shape (2)
}

namespace {

// An element-wise pair's operands on an image (N, C, X, Y): the second a tensor or a constant (in the parameters),
// of the image's shape, an SE gate, a random broadcastable shape (each axis 1 or the image's, maybe fewer axes), or
// with the image broadcast against it (the first operand (N, C, 1, 1), the second (1, C, X, Y)); a sub of a
// constant may be constant-first.
template <typename Pick, typename Tensor>
void random_pair_operands(PostProcessingJob& job, const std::vector<std::int64_t>& image, std::int64_t limit,
                          Pick& pick, Tensor& tensor) {
  std::vector<std::int64_t> first = image, second = image;
  switch (pick(0, 3)) {
    case 0: break;
    case 1: second = {image[0], image[1], 1, 1}; break;
    case 2:
      second.erase(second.begin(), second.begin() + pick(0, 3));
      for (std::int64_t& extent : second)
        if (pick(0, 1)) extent = 1;
      break;
    default:
      first = {image[0], image[1], 1, 1};
      second = {1, image[1], image[2], image[3]};
      job.output_shape = {image[0], image[1], image[2], image[3]};
  }
  job.inputs = {tensor(first, limit)};
  if (pick(0, 1)) {
    job.inputs.push_back(tensor(second, limit));
    return;
  }
  job.parameters.constant = tensor(second, limit).values;
  job.parameters.constant_shape = second;
  job.op.constant_first = job.op.kind == OperatorKind::Sub && pick(0, 1);
}

// A transpose's random permutation, a slice's random start, step (either sign) and count on every axis, a gather's
// random axis and 1–5 indices (a scalar index now and then), on an input of `shape`.
template <typename Pick>
void random_layout_attributes(Operator& op, const std::vector<std::int64_t>& shape, Pick& pick) {
  const std::int64_t rank = std::int64_t(shape.size());
  if (op.kind == OperatorKind::Transpose) {
    for (std::int64_t d = 0; d < rank; ++d) op.perm.push_back(d);
    for (std::int64_t d = rank - 1; d > 0; --d) std::swap(op.perm[std::size_t(d)], op.perm[std::size_t(pick(0, d))]);
  } else if (op.kind == OperatorKind::Slice) {
    for (const std::int64_t extent : shape) {
      const std::int64_t start = pick(0, extent - 1), step = pick(0, 1) ? pick(1, 3) : -pick(1, 3);
      const std::int64_t most = step > 0 ? (extent - 1 - start) / step + 1 : start / -step + 1;
      op.slice.push_back({start, step, pick(1, most)});
    }
  } else {
    op.axis = pick(0, rank - 1);
    for (std::int64_t i = pick(1, 5); i > 0; --i) op.indices.push_back(pick(0, shape[std::size_t(op.axis)] - 1));
    op.indices_shape = {std::int64_t(op.indices.size())};
    if (op.indices.size() == 1 && rank > 1 && pick(0, 1)) op.indices_shape.clear();
  }
}

// A random job of `kind` with random shapes, parameters and values in range.
PostProcessingJob random_job(OperatorKind kind, std::mt19937_64& rng) {
  const auto pick = [&rng](std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
  };
  const int data_width = int(pick(4, 16)), acc_width = int(pick(data_width, 32));
  const std::int64_t limit = data_limit(data_width);
  const auto tensor = [&](std::vector<std::int64_t> shape, std::int64_t bound) {
    IntegerTensor t{std::move(shape), {}};
    std::int64_t count = 1;
    for (std::int64_t extent : t.shape) count *= extent;
    for (std::int64_t i = 0; i < count; ++i) t.values.push_back(pick(-bound, bound));
    return t;
  };
  const std::int64_t n = pick(1, 3), c = pick(1, 9), x = pick(1, 9), y = pick(1, 9);
  const std::vector<std::int64_t> image{n, c, x, y};
  PostProcessingJob job;
  job.op.name = "random";
  job.op.kind = kind;
  job.data_width = data_width;
  job.acc_width = acc_width;
  job.output_shape = image;
  QuantizedOperator& p = job.parameters;
  const auto requantization = [&] { return Requantization{pick(1, (std::int64_t(1) << 31) - 1), int(pick(0, 40))}; };
  switch (kind) {
    case OperatorKind::FabricLayer:
      job.inputs = {tensor(image, data_limit(acc_width))};
      for (std::int64_t k = 0; k < c; ++k) p.bias.push_back(pick(-1000, 1000)), p.output.push_back(requantization());
      break;
    case OperatorKind::Requantize:
      job.inputs = {tensor(image, limit)};
      p.output = {requantization()};
      break;
    case OperatorKind::Relu: job.inputs = {tensor(image, limit)}; break;
    case OperatorKind::Clip:
      job.inputs = {tensor(image, limit)};
      p.clip_min = pick(-limit, 0);
      p.clip_max = pick(0, limit);
      break;
    case OperatorKind::Add:
    case OperatorKind::Sub:
    case OperatorKind::Maximum:
    case OperatorKind::Minimum:
    case OperatorKind::Mul:
      random_pair_operands(job, image, limit, pick, tensor);
      p.input_multipliers = {pick(1, 1 << 20), pick(1, 1 << 20)};
      p.input_shift = int(pick(0, 24));
      p.product = requantization();
      break;
    case OperatorKind::Concat: {
      job.op.axis = pick(0, 3);
      job.output_shape[std::size_t(job.op.axis)] = 0;
      for (std::int64_t i = pick(1, 4); i > 0; --i) {
        std::vector<std::int64_t> shape = image;
        shape[std::size_t(job.op.axis)] = pick(0, 5);
        job.output_shape[std::size_t(job.op.axis)] += shape[std::size_t(job.op.axis)];
        job.inputs.push_back(tensor(shape, limit));
        p.input_multipliers.push_back(pick(1, 1 << 20));
      }
      p.input_shift = int(pick(0, 24));
      break;
    }
    case OperatorKind::MaxPool:
    case OperatorKind::AveragePool: {
      PoolWindow& w = job.op.pool;
      w.size_x = pick(1, x), w.size_y = pick(1, y);
      w.stride_x = pick(1, 3), w.stride_y = pick(1, 3);
      w.padding_x = pick(0, w.size_x - 1), w.padding_y = pick(0, w.size_y - 1);
      job.inputs = {tensor(image, limit)};
      job.output_shape = {n, c, w.output_x(x), w.output_y(y)};
      break;
    }
    case OperatorKind::GlobalAveragePool:
      job.inputs = {tensor(image, limit)};
      job.output_shape = {n, c, 1, 1};
      break;
    case OperatorKind::Reshape:
      job.inputs = {tensor(image, limit)};
      job.output_shape = {n, c * x * y};
      break;
    case OperatorKind::Softmax: {
      const std::vector<std::int64_t> shape = pick(0, 1) ? image : std::vector<std::int64_t>{n, pick(1, 40)};
      job.op.axis = pick(0, std::int64_t(shape.size()) - 1);
      job.inputs = {tensor(shape, limit)};
      job.output_shape = shape;
      for (std::int64_t d = 0, e = 1 << 15; d < pick(1, 64) && e > 0; ++d, e = e * 7 / 8) p.exp_table.push_back(e);
      break;
    }
    case OperatorKind::ChannelAffine: {
      const std::vector<std::int64_t> shape = pick(0, 1) ? image : std::vector<std::int64_t>{n, c};
      job.inputs = {tensor(shape, limit)};
      job.output_shape = shape;
      for (std::int64_t k = 0; k < c; ++k) {
        p.channel_multipliers.push_back(pick(-((std::int64_t(1) << 31) - 1), (std::int64_t(1) << 31) - 1));
        p.channel_offsets.push_back(pick(-(std::int64_t(1) << 40), std::int64_t(1) << 40));
      }
      p.channel_shift = int(pick(0, 40));
      break;
    }
    case OperatorKind::Pad: {
      PadBorder& border = job.op.pad;
      border = {pick(0, 3), pick(0, 3), pick(0, 3), pick(0, 3)};
      job.inputs = {tensor(image, limit)};
      job.output_shape = {n, c, border.output_x(x), border.output_y(y)};
      break;
    }
    case OperatorKind::TableFunction:
      job.inputs = {tensor(image, limit)};
      job.op.function = default_call(UnaryFunction(pick(0, int(UnaryFunction::Pow))));
      for (std::int64_t i = -limit; i <= limit; ++i) p.activation_table.push_back(pick(-limit, limit));
      break;
    case OperatorKind::Transpose:
    case OperatorKind::Slice:
    case OperatorKind::Gather: {
      std::vector<std::int64_t> shape;
      for (std::int64_t rank = pick(1, 5); rank > 0; --rank) shape.push_back(pick(1, 6));
      random_layout_attributes(job.op, shape, pick);
      job.inputs = {tensor(shape, limit)};
      Network network;
      network.tensors = {{"input", shape, false}};
      job.op.inputs = {0};
      job.output_shape = layout_output_shape(network, job.op, "random").shape;
      break;
    }
    case OperatorKind::LayerNormalization: {
      std::vector<std::int64_t> shape;
      for (std::int64_t rank = pick(1, 4); rank > 0; --rank) shape.push_back(pick(1, 7));
      job.op.axis = pick(0, std::int64_t(shape.size()) - 1);
      job.inputs = {tensor(shape, limit)};
      job.output_shape = shape;
      for (std::int64_t i = normalised_rows(shape, job.op.axis).length; i > 0; --i) {
        p.channel_multipliers.push_back(pick(-((std::int64_t(1) << 31) - 1), (std::int64_t(1) << 31) - 1));
        p.channel_offsets.push_back(pick(-(std::int64_t(1) << 48), std::int64_t(1) << 48));
      }
      p.channel_shift = int(pick(0, 40));
      p.epsilon = pick(0, 1000);
      break;
    }
    case OperatorKind::ReduceMean:
    case OperatorKind::ReduceSum:
    case OperatorKind::ReduceMax: {
      std::vector<std::int64_t> shape;
      for (std::int64_t rank = pick(1, 4); rank > 0; --rank) shape.push_back(pick(1, 7));
      for (std::int64_t d = 0; d < std::int64_t(shape.size()); ++d)
        if (pick(0, 1)) job.op.reduce_axes.push_back(d);
      if (job.op.reduce_axes.empty()) job.op.reduce_axes.push_back(pick(0, std::int64_t(shape.size()) - 1));
      job.op.keep_dims = job.op.reduce_axes.size() == shape.size() || pick(0, 1);
      job.inputs = {tensor(shape, limit)};
      p.output = {requantization()};
      Network network;
      network.tensors = {{"input", shape, false}};
      job.op.inputs = {0};
      job.output_shape = layout_output_shape(network, job.op, "random").shape;
      break;
    }
    case OperatorKind::Resize: {  // any mode and coordinates, scales from 0.4 to 3.5 or sizes from 1 to 9
      std::vector<std::int64_t> shape;
      for (std::int64_t rank = pick(1, 4); rank > 0; --rank) shape.push_back(pick(1, 6));
      ResizeForm& form = job.op.resize;
      form.mode = ResizeMode(pick(0, 1));
      form.coordinates = CoordinateMode(pick(0, 3));
      form.nearest = NearestRounding(pick(0, 3));
      const bool sizes = pick(0, 1);
      for (const std::int64_t extent : shape) {
        const std::int64_t tenths = pick(4, 35);  // a scale that leaves no element is 1 instead
        if (sizes) form.sizes.push_back(pick(1, 9));
        else form.scales.push_back(extent * tenths < 10 ? 1.0 : double(tenths) / 10);
      }
      job.inputs = {tensor(shape, limit)};
      job.output_shape = resized_shape(form, shape);
      break;
    }
    case OperatorKind::Lookup: {  // a table of rank 1–3, indices of rank 1–3 inside it (negative ones too)
      std::vector<std::int64_t> table, indices;
      for (std::int64_t rank = pick(1, 3); rank > 0; --rank) table.push_back(pick(1, 6));
      for (std::int64_t rank = pick(1, 3); rank > 0; --rank) indices.push_back(pick(1, 4));
      job.op.axis = pick(0, std::int64_t(table.size()) - 1);
      const std::int64_t extent = table[std::size_t(job.op.axis)];
      IntegerTensor picked{indices, {}};
      for (std::int64_t i = Tensor{"", indices}.elements(); i > 0; --i) picked.values.push_back(pick(-extent, extent - 1));
      job.inputs = {picked};
      p.constant_shape = table;
      for (std::int64_t i = Tensor{"", table}.elements(); i > 0; --i) p.constant.push_back(pick(-limit, limit));
      job.output_shape.assign(table.begin(), table.begin() + job.op.axis);
      job.output_shape.insert(job.output_shape.end(), indices.begin(), indices.end());
      job.output_shape.insert(job.output_shape.end(), table.begin() + job.op.axis + 1, table.end());
      break;
    }
  }
  return job;
}

}  // namespace


TEST_CASE("post-processing model equals the unit's cycles and counts on random operators of every kind",
          "[sim][post_processing]") {
  std::mt19937_64 rng(30);
  int cases = 0;
  for (int round = 0; round < 40; ++round) {
#define MAERI_RANDOM_KIND(kind, label)                                                                          \
  {                                                                                                             \
    const PostProcessingJob job = random_job(OperatorKind::kind, rng);                                          \
    const PostProcessingSpec unit{std::uniform_int_distribution<std::int64_t>(1, 17)(rng),                      \
                                  std::uniform_int_distribution<std::int64_t>(0, 6)(rng)};                      \
    std::vector<std::vector<std::int64_t>> shapes;                                                              \
    for (const IntegerTensor& input : job.inputs) shapes.push_back(input.shape);                                \
    const PostProcessingCounts model = maeri::mapper::post_processing_counts(job.op, shapes, job.output_shape, unit); \
    const PostProcessingCounts counted = run_post_processing(job, unit).counts;                                 \
    Hardware hardware;                                                                                          \
    for (const auto& row : maeri::testbench::post_processing_cross_check(model, counted, hardware)) {          \
      INFO(fmt::format("{} (lanes {}, latency {}): {}", label, unit.lanes, unit.latency, row.metric));           \
      CHECK(row.model == row.rtl);                                                                              \
    }                                                                                                           \
    ++cases;                                                                                                    \
  }
    MAERI_OPERATOR_KINDS(MAERI_RANDOM_KIND)
#undef MAERI_RANDOM_KIND
  }
#define MAERI_COUNT_KIND(kind, label) +1
  CHECK(cases == 40 * (0 MAERI_OPERATOR_KINDS(MAERI_COUNT_KIND)));
#undef MAERI_COUNT_KIND
}

TEST_CASE("post-processing system: on the fabric's clock it gives the core's outputs and cycles",
          "[sim][post_processing]") {
  maeri::sim::PostProcessingSystem unit;
  std::mt19937_64 rng(31);
  const PostProcessingSpec spec{5, 3};
  for (OperatorKind kind : {OperatorKind::FabricLayer, OperatorKind::Add, OperatorKind::Concat, OperatorKind::MaxPool,
                            OperatorKind::AveragePool, OperatorKind::GlobalAveragePool, OperatorKind::Softmax,
                            OperatorKind::ChannelAffine, OperatorKind::Pad, OperatorKind::TableFunction,
                            OperatorKind::Mul, OperatorKind::Sub, OperatorKind::Maximum}) {
    const PostProcessingJob job = random_job(kind, rng);
    const auto core = run_post_processing(job, spec);
    unit.start(job, spec);
    std::int64_t edges = 0;
    while (unit.busy()) {  // one clock, as the fabric driver gives it
      unit.rising_edge();
      unit.falling_edge();
      ++edges;
    }
    INFO(to_string(kind));
    CHECK(unit.output().values == core.output.values);
    CHECK(unit.counts().cycles == core.counts.cycles);
    CHECK(unit.counts().comparisons == core.counts.comparisons);
    CHECK(edges == core.counts.cycles);
    unit.rising_edge();  // an idle unit ignores the clock
    CHECK(unit.counts().cycles == core.counts.cycles);
  }
}
