// Fusion through streaming operators (docs/mapping.md, "Fused groups"; mapper/model/stream_operators.hpp): a stream
// passes pools through their windows, softmax and layer normalisation over complete rows, element-wise operators,
// and a matrix product reads its operand A from the group. Rows, reservations and roles computed by hand here.
#include <catch2/catch.hpp>

#include "contracts/sdm_rules.hpp"
#include "contracts/spec_loader.hpp"
#include "mapper/model/fusion_model.hpp"
#include "mapper/model/stream_operators.hpp"

using namespace maeri;
using namespace maeri::mapper;

namespace {

const FusionEdge* edge_between(const FusionGraph& graph, std::size_t producer, std::size_t consumer) {
  for (const FusionEdge& edge : graph.edges)
    if (edge.producer == producer && edge.consumer == consumer) return &edge;
  return nullptr;
}

// conv a (K 2, X' 8, Y' 4) → relu → max pool 2/2 → 1x1 conv b (X 4, Y 2) → softmax along `axis` → 1x1 conv c.
contracts::Network pooled_chain(int softmax_axis) {
  return contracts::load_workload_text(
      "kind: workload\nname: pooled\nbatch: 1\ninputs:\n  - {name: x, shape: [1, 2, 8, 4]}\noperators:\n"
      "  - {name: a, type: conv, input: x, K: 2, C: 2, R: 3, S: 3, X: 8, Y: 4, stride: 1, padding: 1, X_out: 8, Y_out: 4}\n"
      "  - {name: a_relu, type: relu, input: a}\n"
      "  - {name: pool, type: max_pool, input: a_relu, size: 2, stride: 2}\n"
      "  - {name: b, type: conv, input: pool, K: 2, C: 2, R: 1, S: 1, X: 4, Y: 2, stride: 1, padding: 0, X_out: 4, Y_out: 2}\n"
      "  - {name: sm, type: softmax, input: b, axis: " +
          std::to_string(softmax_axis) +
          "}\n"
          "  - {name: c, type: conv, input: sm, K: 2, C: 2, R: 1, S: 1, X: 4, Y: 2, stride: 1, padding: 0, X_out: 4, Y_out: 2}\n",
      "pooled.yaml");
}

// Attention of 4 tokens, one head of 4: q = gemm(hidden); scores = q·kᵀ; softmax along the keys; context = P·v.
contracts::Network attention() {
  return contracts::load_workload_text(
      "kind: workload\nname: attention\nbatch: 1\ninputs:\n  - {name: hidden, shape: [4, 4, 1, 1]}\n"
      "  - {name: k, shape: [4, 4]}\n  - {name: v, shape: [4, 4]}\noperators:\n"
      "  - {name: query, type: gemm, input: hidden, M: 1, K: 4, N: 4, batch: 4}\n"
      "  - {name: q, type: reshape, input: query, shape: [4, 4]}\n"
      "  - {name: scores, type: matmul, inputs: [q, k], transpose_b: true}\n"
      "  - {name: scaled, type: mul, inputs: [scores], constant: scale, constant_shape: [1]}\n"
      "  - {name: probs, type: softmax, input: scaled, axis: -1}\n"
      "  - {name: context, type: matmul, inputs: [probs, v]}\n",
      "attention.yaml");
}

}  // namespace

TEST_CASE("a pool's window composes with the consumer's: rows of the producer and reservations by hand", "[fusion]") {
  const contracts::Network network = pooled_chain(1);
  const FusionGraph graph = fusion_graph(network);
  const FusionEdge* ab = edge_between(graph, 0, 1);
  REQUIRE(ab);
  CHECK(ab->through_window);
  CHECK(ab->tensor == "pool");
  REQUIRE(ab->path.windows.size() == 1);
  CHECK(ab->path.windows[0].size == 2);
  CHECK(ab->path.windows[0].input_rows == 8);
  REQUIRE(ab->path.made.size() == 1);  // the pool's output beside its input
  CHECK(ab->path.made[0].elements == 2 * 4 * 2);
  CHECK(ab->path.whole_operator.empty());
  // b's output row r needs pool row r, which reads a's rows 2r and 2r + 1: up to row 2·3 + 1 = 7 for r = 3.
  CHECK(last_producer_row(ab->path, 3) == 7);
  CHECK(stage_spans(ab->path, 2) == std::vector<std::int64_t>{4, 2});
  // softmax along channels (axis 1 of rank 4) keeps the rows: b → c is an edge a stripe passes.
  const FusionEdge* bc = edge_between(graph, 1, 2);
  REQUIRE(bc);
  CHECK(bc->path.whole_operator.empty());

  // Two stripes: b's stripe j of 2 rows needs a's rows up to 4j + 3, a's own stripe j of 4 rows (no lead).
  contracts::Hardware hardware;
  hardware.data_width = 16;
  const GroupReservations two = group_reservations(network, graph, hardware, 0, 2, 2, {4, 2});
  REQUIRE_FALSE(two.violation);
  // a's shared rows: the pool's window of b's 2 rows = 4 rows of a's (2 channels × 4 columns), plus the pool's
  // output: 2 rows of 2 channels × 2 columns; 2 bytes each.
  REQUIRE(two.tensors.size() == 1);
  CHECK(two.tensors[0].bytes == (4 * 2 * 4 + 2 * 2 * 2) * 2);
  // One stripe: a's output whole (64 elements) and the pool's (16).
  const GroupReservations one = group_reservations(network, graph, hardware, 0, 2, 1, {8, 4});
  CHECK(one.tensors[0].bytes == (64 + 16) * 2);
  // Four stripes, 2 rows of a and 1 of b: b's stripe j needs a's rows up to 2j + 1, a's stripe j.
  const GroupReservations ragged = group_reservations(network, graph, hardware, 0, 2, 4, {2, 1});
  CHECK_FALSE(ragged.violation);
  // 2 rows of a against 2 of b: b's stripe 1 needs a's rows up to 7, which a makes two stripes later.
  const GroupReservations bad = group_reservations(network, graph, hardware, 0, 2, 2, {2, 2});
  REQUIRE(bad.violation);
  CHECK_THAT(*bad.violation, Catch::Contains("tile shape: layer 'b' needs rows up to 7"));
}

TEST_CASE("softmax along the rows a stripe splits passes a stream only in a group of one stripe", "[fusion]") {
  const contracts::Network network = pooled_chain(2);  // along X
  const FusionGraph graph = fusion_graph(network);
  const FusionEdge* bc = edge_between(graph, 1, 2);
  REQUIRE(bc);
  CHECK(bc->path.whole_operator == "sm");
  contracts::Hardware hardware;
  CHECK_FALSE(group_reservations(network, graph, hardware, 1, 2, 1, {4, 4}).violation);
  const auto striped = group_reservations(network, graph, hardware, 1, 2, 2, {2, 2}).violation;
  REQUIRE(striped);
  CHECK_THAT(*striped, Catch::Contains("through operator 'sm', which needs the whole tensor"));
}

TEST_CASE("Q·Kᵀ → scale → softmax → P·V: the products read their operand A from the group", "[fusion]") {
  const contracts::Network network = attention();
  REQUIRE(network.layers.size() == 3);
  const FusionGraph graph = fusion_graph(network);
  const FusionEdge* qs = edge_between(graph, 0, 1);
  const FusionEdge* sc = edge_between(graph, 1, 2);
  REQUIRE(qs);
  REQUIRE(sc);
  CHECK(qs->operand_a);
  CHECK_FALSE(qs->through_window);
  CHECK(qs->path.whole_operator == "q");  // a reshape: whole
  CHECK(sc->operand_a);
  CHECK(sc->tensor == "probs");
  CHECK(sc->path.whole_operator == "probs");  // softmax along the keys of a rank-2 tensor
  FusedGroup group{0, 3, 1, {}, {}};
  const std::vector<FusedRole> roles = group_roles(graph, group);
  CHECK(roles[0].output_in_sdm);
  CHECK(roles[1].weights_in_sdm);
  CHECK_FALSE(roles[1].input_in_sdm);  // k is a network input
  CHECK(roles[1].output_in_sdm);
  CHECK(roles[2].weights_in_sdm);
  CHECK_FALSE(roles[2].output_in_sdm);  // the network's output
  CHECK_FALSE(graph.escapes[0]);
  CHECK_FALSE(graph.escapes[1]);
}

namespace {

// A feed-forward block over 8 tokens (N), H 4, FF 8: up (gemm) → GELU → down (gemm) → residual add of the input →
// LayerNorm over H → next (gemm); the LayerNorm's output, axis 1 of [8, 4, 1, 1], is `ln_axis`.
contracts::Network feed_forward(int ln_axis) {
  return contracts::load_workload_text(
      "kind: workload\nname: ffn\nbatch: 1\ninputs:\n  - {name: hidden, shape: [8, 4, 1, 1]}\noperators:\n"
      "  - {name: up, type: gemm, input: hidden, M: 1, K: 4, N: 8, batch: 8}\n"
      "  - {name: act, type: gelu, input: up}\n"
      "  - {name: down, type: gemm, input: act, M: 1, K: 8, N: 4, batch: 8}\n"
      "  - {name: res, type: add, inputs: [down, hidden]}\n"
      "  - {name: ln, type: layer_normalization, input: res, axis: " +
          std::to_string(ln_axis) +
          ", epsilon: 1e-5, scale: s, shift: t}\n"
          "  - {name: next, type: gemm, input: ln, M: 1, K: 4, N: 4, batch: 8}\n",
      "ffn.yaml");
}

}  // namespace

TEST_CASE("token stripes: a GEMM chain through GELU, a residual add and LayerNorm over H, tokens held by hand",
          "[fusion]") {
  const contracts::Network network = feed_forward(1);
  const FusionGraph graph = fusion_graph(network);
  const FusionEdge* up_down = edge_between(graph, 0, 1);
  const FusionEdge* down_next = edge_between(graph, 1, 2);
  REQUIRE(up_down);
  REQUIRE(down_next);
  // LayerNorm along axis 1 spans X of the rank-4 tensor: whole for row stripes, complete in each token's row.
  CHECK(down_next->path.whole_operator == "ln");
  CHECK(down_next->path.whole_for_tokens.empty());
  contracts::Hardware hardware;
  hardware.data_width = 16;
  // Row stripes refuse the LayerNorm; token stripes of 2 tokens hold 2 tokens of each shared output, 2 bytes each:
  // up's 2 × 8 and down's 2 × 4 (its stream's LayerNorm written in place).
  CHECK(group_reservations(network, graph, hardware, 0, 3, 2, {1, 1, 1}).violation);
  const GroupReservations tokens = group_reservations(network, graph, hardware, 0, 3, 4, {2, 2, 2}, true);
  REQUIRE_FALSE(tokens.violation);
  REQUIRE(tokens.tensors.size() == 2);
  CHECK(tokens.tensors[0].bytes == 2 * 8 * 2);
  CHECK(tokens.tensors[1].bytes == 2 * 4 * 2);
  // 2 tokens of up against 4 of down: down's stripe 1 needs up's tokens up to 7, which up makes two stripes later.
  const auto ahead = group_reservations(network, graph, hardware, 0, 2, 4, {2, 4}, true).violation;
  REQUIRE(ahead);
  CHECK_THAT(*ahead, Catch::Contains("tile shape: layer 'down' needs tokens up to 7 of tensor 'act' in its stripe 1") &&
                         Catch::Contains("stripes of 2 and 4 tokens do not match"));
  // A LayerNorm over the tokens (axis 0) needs every token: token stripes refuse it.
  const contracts::Network over_tokens = feed_forward(0);
  const FusionGraph graph0 = fusion_graph(over_tokens);
  const FusionEdge* edge0 = edge_between(graph0, 1, 2);
  REQUIRE(edge0);
  CHECK(edge0->path.whole_for_tokens == "ln");
  const auto refused = group_reservations(over_tokens, graph0, hardware, 1, 2, 4, {2, 2}, true).violation;
  REQUIRE(refused);
  CHECK_THAT(*refused, Catch::Contains("through operator 'ln', which needs the whole tensor: a group through it runs "
                                       "in one stripe, not 4 token stripes"));
}
