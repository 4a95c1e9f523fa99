// The post-processing unit's row-wise and data-movement kinds on small tensors, outputs and cycles worked out by
// hand: softmax along the last axis and along axis 0, transpose, slice with a negative step, gather of repeated
// indices, a lookup of table rows at run-time indices (the analytical model's equality with the unit on random operators is test_post_processing_unit.cpp's).
#include <catch2/catch.hpp>

#include "sim/post_processing_unit.hpp"

using namespace maeri::contracts;
using maeri::sim::IntegerTensor;
using maeri::sim::PostProcessingJob;
using maeri::sim::run_post_processing;
using Values = std::vector<std::int64_t>;

namespace {

PostProcessingJob job_of(OperatorKind kind, IntegerTensor input, std::vector<std::int64_t> output_shape) {
  PostProcessingJob job;
  job.op.name = "op";
  job.op.kind = kind;
  job.inputs = {std::move(input)};
  job.output_shape = std::move(output_shape);
  job.data_width = 8;  // L = 127
  job.acc_width = 8;
  return job;
}

}  // namespace

TEST_CASE("post-processing unit: softmax along the last axis and along axis 0, by hand", "[sim][post_processing]") {
  // exp_table[d] = 8, 4, 2, 1 (0 beyond). Row [3, 1, 0]: d = 0, 2, 3, e = 8, 2, 1, Σ 11: 8·127/11 = 92.4 → 92,
  // 2·127/11 = 23.1 → 23, 127/11 = 11.5 → 12. Row [0, 0, 5]: d = 5, 5, 0, e = 0, 0, 8: 0, 0, 127.
  PostProcessingJob last = job_of(OperatorKind::Softmax, {{1, 2, 3}, {3, 1, 0, 0, 0, 5}}, {1, 2, 3});
  last.op.axis = 2;
  last.parameters.exp_table = {8, 4, 2, 1};
  const auto result = run_post_processing(last, {2, 1});
  CHECK(result.output.values == Values{92, 23, 12, 0, 0, 127});
  // Two rows through 3 stages of ⌈3/2⌉ = 2 beats: 6 for the first, 2 more for the second, latency 1.
  CHECK(result.counts.cycles == 9);
  CHECK(result.counts.comparisons == 4);
  CHECK(result.counts.lookups == 6);
  // Along axis 0 of (2, 2): the columns [1, 0] (e = 8, 4, Σ 12: 84.7 → 85, 42.3 → 42) and [0, 0] (63.5 → 64 each).
  PostProcessingJob first = job_of(OperatorKind::Softmax, {{2, 2}, {1, 0, 0, 0}}, {2, 2});
  first.op.axis = 0;
  first.parameters.exp_table = {8, 4, 2, 1};
  CHECK(run_post_processing(first, {2, 1}).output.values == Values{85, 64, 42, 64});
}

TEST_CASE("post-processing unit: transpose, slice and gather copy elements, by hand", "[sim][post_processing]") {
  PostProcessingJob transpose = job_of(OperatorKind::Transpose, {{2, 3}, {1, 2, 3, 4, 5, 6}}, {3, 2});
  transpose.op.perm = {1, 0};
  const auto moved = run_post_processing(transpose, {4, 2});
  CHECK(moved.output.values == Values{1, 4, 2, 5, 3, 6});
  CHECK(moved.counts.cycles == 2 + 2);  // 6 outputs at 4 lanes, latency 2
  CHECK(moved.counts.elements_read == 6);
  CHECK(moved.counts.elements_written == 6);

  PostProcessingJob slice = job_of(OperatorKind::Slice, {{5}, {10, 11, 12, 13, 14}}, {3});
  slice.op.slice = {{4, -2, 3}};  // indices 4, 2, 0
  CHECK(run_post_processing(slice, {1, 0}).output.values == Values{14, 12, 10});
  CHECK(run_post_processing(slice, {1, 0}).counts.cycles == 3);

  PostProcessingJob gather = job_of(OperatorKind::Gather, {{3, 2}, {1, 2, 3, 4, 5, 6}}, {3, 2});
  gather.op.axis = 0;
  gather.op.indices = {2, 2, 0};  // rows 2, 2, 0
  gather.op.indices_shape = {3};
  CHECK(run_post_processing(gather, {2, 0}).output.values == Values{5, 6, 5, 6, 1, 2});

  gather.output_shape = {2, 2};
  CHECK_THROWS_WITH(run_post_processing(gather, {2, 0}),
                    Catch::Contains("the output's shape is not the one its input and attributes give"));
}

TEST_CASE("post-processing unit: a lookup picks table rows at run-time indices, by hand", "[sim][post_processing]") {
  // An embedding table of 4 tokens × 2 (rows [10, 11], [20, 21], [30, 31], [40, 41]) at token ids (1, 3) = [2, −1, 0]:
  // rows 2, 3 (−1 from the end, ONNX's rule) and 0, output (1, 3, 2). 6 outputs at 4 lanes: 2 beats + latency 1;
  // per output one index read, two comparisons (both ends of the table), one table lookup, one write.
  PostProcessingJob lookup = job_of(OperatorKind::Lookup, {{1, 3}, {2, -1, 0}}, {1, 3, 2});
  lookup.op.axis = 0;
  lookup.parameters.constant = {10, 11, 20, 21, 30, 31, 40, 41};
  lookup.parameters.constant_shape = {4, 2};
  const auto picked = run_post_processing(lookup, {4, 1});
  CHECK(picked.output.values == Values{30, 31, 40, 41, 10, 11});
  CHECK(picked.counts.cycles == 2 + 1);
  CHECK(picked.counts.elements_read == 6);
  CHECK(picked.counts.lookups == 6);
  CHECK(picked.counts.comparisons == 12);
  CHECK(picked.counts.elements_written == 6);
  // Along axis 1 (the columns) of the same table at indices [1]: column 1 of every row.
  PostProcessingJob columns = job_of(OperatorKind::Lookup, {{1}, {1}}, {4, 1});
  columns.op.axis = 1;
  columns.parameters = lookup.parameters;
  CHECK(run_post_processing(columns, {4, 0}).output.values == Values{11, 21, 31, 41});
  // A token id outside the table is an error naming it, never a read past the table.
  lookup.inputs[0].values = {2, 4, 0};
  CHECK_THROWS_WITH(run_post_processing(lookup, {4, 1}),
                    Catch::Contains("index 4 (element 1 of its indices) is outside [-4, 4)"));
}

TEST_CASE("post-processing unit: layer normalization, by hand", "[sim][post_processing]") {
  // Row [1, 2, 3, 6]: mean 3, variance (4 + 1 + 0 + 9) / 4 = 3.5, so (x − mean) / √3.5 = −1.069, −0.535, 0, 1.604
  // (d = 4x − 12 = −8, −4, 0, 12 over √Q, Q = 224 / 4 = 56 = 4²·3.5). γ / s_out = 32 (m = 32 · 2^4 at G = 4), β /
  // s_out = 10 on the last element only: −34.2 → −34, −17.1 → −17, 0, 51.3 + 10 → 61. Row [0, 0, 0, 0]: Q = max(1,
  // 0) = 1, d = 0: the offsets alone, 0, 0, 0, 10.
  PostProcessingJob norm = job_of(OperatorKind::LayerNormalization, {{2, 4}, {1, 2, 3, 6, 0, 0, 0, 0}}, {2, 4});
  norm.op.axis = 1;
  norm.parameters.channel_multipliers = {512, 512, 512, 512};
  norm.parameters.channel_offsets = {0, 0, 0, 160};
  norm.parameters.channel_shift = 4;
  const auto result = run_post_processing(norm, {2, 1});
  CHECK(result.output.values == Values{-34, -17, 0, 61, 0, 0, 0, 10});
  CHECK(result.counts.cycles == 3 * 2 + 2 + 1);  // two rows through 3 stages of 2 beats, latency 1
  CHECK(result.counts.divisions == 4);            // V / n and 2^61 / √t per row
  CHECK(result.counts.elements_read == 8);
  norm.parameters.channel_offsets.pop_back();
  CHECK_THROWS_WITH(run_post_processing(norm, {2, 1}),
                    Catch::Contains("expected one multiplier and one offset per element of a row"));
}

TEST_CASE("post-processing unit: reduce mean, sum and max over two axes, by hand", "[sim][post_processing]") {
  // (2, 2, 3) over axes 0 and 2, keepdims: 2 groups of 6, (1, 2, 1). Group 0: 1, 2, 3, 7, 8, 9 (sum 30, max 9, mean
  // 5); group 1: 4, 5, −6, 10, 11, 12 (sum 36, max 12, mean 6).
  const IntegerTensor input{{2, 2, 3}, {1, 2, 3, 4, 5, -6, 7, 8, 9, 10, 11, 12}};
  PostProcessingJob mean = job_of(OperatorKind::ReduceMean, input, {1, 2, 1});
  mean.op.reduce_axes = {0, 2};
  const auto averaged = run_post_processing(mean, {4, 1});
  CHECK(averaged.output.values == Values{5, 6});
  // Per group ⌈6/4⌉ = 2 beats of reading, 1 of dividing: 2 + 1 for the first, 2 more for the second, latency 1.
  CHECK(averaged.counts.cycles == 2 + 1 + 2 + 1);
  CHECK(averaged.counts.additions == 10);
  PostProcessingJob sum = mean;
  sum.op.kind = OperatorKind::ReduceSum;
  sum.parameters.output = {{1, 1}};  // halved: 15, 18
  CHECK(run_post_processing(sum, {4, 1}).output.values == Values{15, 18});
  PostProcessingJob max = mean;
  max.op.kind = OperatorKind::ReduceMax;
  max.op.keep_dims = false;
  max.output_shape = {2};
  CHECK(run_post_processing(max, {4, 1}).output.values == Values{9, 12});
}
