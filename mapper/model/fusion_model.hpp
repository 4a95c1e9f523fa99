// The model of fused groups (docs/model.md, "Fused groups"; the map space: docs/mapping.md, "Fused groups"): which
// fabric layers of a network may share a tensor in the SDM (the fusion edges of the graph), the rules a group must
// follow (producer and consumer, backing level, stripes and exchange order, tile shape, SDM capacity over the
// tensors' lifetimes) and the cost of a group: each layer's two-level mapping costed in its role (FusedRole), the
// shared tensors' reservations, and the group's totals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"
#include "contracts/network.hpp"
#include "contracts/tile.hpp"
#include "mapper/model/cost_model.hpp"
#include "mapper/model/stream_operators.hpp"

namespace maeri::mapper {

// A fabric layer's output stream is what its post-processing unit makes of its results: the operators after it pass
// it as stream_operators.hpp says (a binary operator's or a concat's stream is the input made last, the others
// being side operands): element-wise ones keep its row stripes, pools read windows of rows, softmax, layer
// normalisation, reshapes and transposes need the whole tensor (a group of one stripe); the rest end a stream: their
// input goes to DRAM, and nothing behind them is fused with it (docs/mapping.md, "Fused groups").
struct FusionEdge {
  std::size_t producer = 0, consumer = 0;  // indices into Network::layers, producer < consumer
  // The consumer reads the producer's stream as its activation input, through its window (R, stride, padding,
  // dilation); otherwise it is a side operand of the consumer's post-processing (an add's other input), row for row.
  bool through_window = true;
  // A side operand of an add: shaped as the consumer's output stream, read element for element.
  bool addend = false;
  // A matrix product reads it as its operand A (its weights): whole, from the SDM (FusedRole::weights_in_sdm).
  bool operand_a = false;
  std::string tensor;  // the tensor the consumer reads
  StreamPath path;     // the operators between the producer's output and that tensor
  // Token stripes can cross it: the tensor reaches the consumer with its tokens along the axis the consumer's
  // stripes read (N of a layer's input; a matrix product's operand A along its query rows; never its input B, which
  // every query-row stripe reads whole).
  bool tokens_aligned = false;
};

struct FusionGraph {
  std::vector<FusionEdge> edges;  // ascending by (consumer, producer)
  // Per layer: its output stream also goes to DRAM whatever the group (a network output, or read by an operator
  // that ends a stream).
  std::vector<bool> escapes;
  std::vector<std::string> output_tensor;  // per layer: the last tensor of its stream, what the SDM holds
  // Per layer: a matrix product, whose token stripes cut its query rows (FusedRole::query_rows).
  std::vector<bool> products;
};
FusionGraph fusion_graph(const contracts::Network& network);

// The layers first … first + count − 1 of the network run as one group in `stripes` row stripes (1: every shared
// tensor is held whole), or token stripes (along N). Per layer its mapping and whether its weights stay in the SDM
// across the stripes.
struct FusedGroup {
  std::size_t first = 0, count = 1;
  std::int64_t stripes = 1;
  std::vector<contracts::Mapping> mappings;
  std::vector<bool> weights_pinned;
  bool token_stripes = false;  // with stripes > 1: the stripes cut N (tokens), not X'
};

// Each layer's role in the group: what it reads from and leaves in the SDM.
std::vector<FusedRole> group_roles(const FusionGraph& graph, const FusedGroup& group);
// Whether a layer's output stream feeds a layer of the group (its tensor is shared, so it must leave the layer final).
std::vector<bool> group_feeds(const FusionGraph& graph, const FusedGroup& group);
// In a group of one stripe, the member (its position) whose shared tensor the member at `position` overwrites with
// its own shared output (FusedRole::output_over_shortcut): the shortcut its add reads, not through its window, whose
// last reader in the group it is. nullopt when it has none.
std::optional<std::size_t> shortcut_taken_over(const FusionGraph& graph, std::size_t first, std::size_t count,
                                               std::int64_t stripes, std::size_t position);

// Why the layers cannot be one group whatever their mappings (not consecutive producers and consumers), or nullopt.
std::optional<std::string> group_structure_violation(const contracts::Network& network, const FusionGraph& graph,
                                                     std::size_t first, std::size_t count);
// Why one layer's mapping cannot take its place in a group of `stripes` (no SDM level, the stripe loop not the
// outermost loop or not in `stripes` blocks, partial sums of a shared output through DRAM, pinned weights in several blocks), or nullopt.
// `query_rows`: with token stripes, the layer is a matrix product whose stripes cut its query rows (K per group).
std::optional<std::string> member_violation(const contracts::Layer& layer, const contracts::Mapping& mapping,
                                            std::int64_t stripes, bool feeds, bool weights_pinned,
                                            bool token_stripes = false, bool query_rows = false);

// What one member needs in the SDM while it runs, apart from the group's shared tensors and pinned weights: one
// block's working set (sdm_working_set) without the inputs a shared tensor holds and the weights a pin holds.
std::int64_t member_working_set(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                const contracts::Mapping& mapping, const FusedRole& role);
std::int64_t pinned_weight_bytes(const contracts::Layer& layer, const contracts::Hardware& hardware);

// The shared tensors' reservations for given rows per stripe of each member (its B_X', or its B_N with token
// stripes: its tokens per stripe); index i is layer first + i.
struct SharedTensor {
  std::size_t producer = 0;     // layer index
  std::string tensor;
  std::int64_t bytes = 0;       // reserved while it lives
  std::size_t live_from = 0, live_to = 0;  // positions in the group (inclusive)
};
struct GroupReservations {
  std::vector<SharedTensor> tensors;
  // Per position: bytes of the shared tensors live while that layer runs (a shortcut and the output taking its
  // rows counted once).
  std::vector<std::int64_t> live_at;
  // A consumer whose stripe needs rows two or more stripes ahead of its producer's: the tile-shape rule.
  std::optional<std::string> violation;
};
GroupReservations group_reservations(const contracts::Network& network, const FusionGraph& graph,
                                     const contracts::Hardware& hardware, std::size_t first, std::size_t count,
                                     std::int64_t stripes, const std::vector<std::int64_t>& stripe_rows,
                                     bool token_stripes = false);
// Each member's rows (its B_X'), tokens (its B_N) or query rows (a product's B_K) per stripe: what
// group_reservations takes.
std::vector<std::int64_t> rows_per_stripe(const FusionGraph& graph, const FusedGroup& group);

struct GroupCost {
  std::vector<contracts::CostReport> reports;  // per member, in its role
  double cycles = 0, energy_pj = 0;
  std::int64_t dram_bytes = 0;
  std::int64_t peak_sdm_bytes = 0;  // the largest working set + live shared tensors + pinned weights over the members
};
// Every rule a group must follow, the first broken one named with its tensor or layer; nullopt when legal.
std::optional<std::string> group_violation(const contracts::Network& network, const FusionGraph& graph,
                                           const contracts::Hardware& hardware, const FusedGroup& group);
// The group's cost; the group must be legal (group_violation).
GroupCost evaluate_group(const contracts::Network& network, const FusionGraph& graph,
                         const contracts::Hardware& hardware, const FusedGroup& group);

// The network's compulsory DRAM bytes: its inputs read once (what its first layers touch), every weight read once,
// its outputs written once (docs/model.md, "Fused groups"); intermediate tensors count nothing.
std::int64_t network_compulsory_dram_bytes(const contracts::Network& network, const contracts::Hardware& hardware);

}  // namespace maeri::mapper
