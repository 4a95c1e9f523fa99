// The fusion edges of a network, the rules of a fused group and its cost (fusion_model.hpp).
#include "mapper/model/fusion_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "contracts/matrix_product.hpp"
#include "contracts/sdm_budget.hpp"
#include "contracts/sdm_rules.hpp"
#include "util/integer_math.hpp"

namespace maeri::mapper {
namespace {

using contracts::OperatorKind;

// The input of `op` its stream follows (the one made last by a fabric layer), if any reads one.
std::optional<std::size_t> stream_input(const contracts::Operator& op,
                                        const std::vector<std::optional<std::size_t>>& source) {
  std::optional<std::size_t> stream;
  for (std::size_t i = 0; i < op.inputs.size(); ++i)
    if (source[op.inputs[i]] && (!stream || *source[op.inputs[i]] > *source[op.inputs[*stream]])) stream = i;
  return stream;
}

// How `op` passes the stream of its input `stream`, its other inputs made by a fabric layer or not.
StreamStep step_of(const contracts::Network& network, const contracts::Operator& op, std::size_t stream,
                   const std::vector<std::optional<std::size_t>>& source) {
  bool side_from_graph = false;
  for (std::size_t i = 0; i < op.inputs.size(); ++i)
    if (i != stream && source[op.inputs[i]]) side_from_graph = true;
  return stream_step(network, op, stream, side_from_graph);
}

// The rows of its producer's output a consumer's stripe j of `rows` output rows needs, up to the last one
// (inclusive): through its window (or row for row) and back through the pools on the way.
std::int64_t last_row_needed(const contracts::Layer& consumer, const FusionEdge& edge, std::int64_t rows, std::int64_t j) {
  const std::int64_t last_output = std::min(consumer.output_x() - 1, (j + 1) * rows - 1);
  if (!edge.through_window) return last_producer_row(edge.path, last_output);
  const std::int64_t last = last_output * consumer.stride_x + (consumer.R - 1) * consumer.dilation_x - consumer.padding_x;
  return last_producer_row(edge.path, std::min(consumer.X - 1, last));
}

// Whether a tensor whose tokens lie along `axis` reaches `consumer` (its operator) where its token stripes read them:
// as a layer's input, along N; as a matrix product's operand A, along its query rows (the rows of A); a product's
// input B is read whole by every stripe; a side operand of the consumer's post-processing, along N.
bool tokens_aligned(const contracts::Network& network, const contracts::Operator& consumer, int axis, bool window,
                    bool operand_a) {
  if (axis < 0) return false;
  if (!contracts::is_matrix_product(consumer)) return axis == 0 && !operand_a;
  if (!operand_a) return false;
  const int rank = int(network.tensors[consumer.inputs.at(1)].shape.size());
  return window ? false : axis == (consumer.product.transpose_a ? rank - 1 : rank - 2);
}

// The tensor a member shares with the group: its output when a member reads it, else the input it reads from one.
std::string shared_tensor(const FusionGraph& graph, const FusedGroup& group, std::size_t member) {
  const std::size_t layer = group.first + member;
  std::string input;
  for (const FusionEdge& edge : graph.edges) {
    if (edge.producer < group.first || edge.consumer >= group.first + group.count) continue;
    if (edge.producer == layer) return graph.output_tensor[layer];
    if (edge.consumer == layer && input.empty()) input = edge.tensor;
  }
  return input;
}

}  // namespace

FusionGraph fusion_graph(const contracts::Network& network) {
  FusionGraph graph;
  const std::size_t layers = network.layers.size();
  graph.escapes.assign(layers, false);
  graph.output_tensor.assign(layers, "");
  graph.products.assign(layers, false);
  std::vector<std::optional<std::size_t>> source(network.tensors.size());
  std::vector<StreamPath> path(network.tensors.size());
  std::vector<const contracts::Operator*> layer_op(layers, nullptr);
  for (const contracts::Operator& op : network.operators)
    if (op.kind == OperatorKind::FabricLayer) {
      layer_op[op.layer] = &op;
      graph.products[op.layer] = contracts::is_matrix_product(op);
    }
  std::map<std::pair<std::size_t, std::size_t>, FusionEdge> edges;  // by (consumer, producer)
  const auto add_edge = [&](std::size_t consumer, std::size_t tensor, bool window, bool addend, bool operand_a) {
    const std::size_t producer = *source[tensor];
    if (producer == consumer) return;
    const FusionEdge edge{producer, consumer, window, addend && !window, operand_a, network.tensors[tensor].name,
                          path[tensor], tokens_aligned(network, *layer_op[consumer], path[tensor].token_axis, window,
                                                       operand_a)};
    auto [it, added] = edges.emplace(std::make_pair(consumer, producer), edge);
    if (added) return;
    // One producer read twice by a consumer: the activation input's edge first, every way of reading it kept.
    const bool as_input = it->second.through_window || window, as_weights = it->second.operand_a || operand_a;
    const bool aligned = it->second.tokens_aligned && edge.tokens_aligned;
    if (window) it->second = edge;
    it->second.through_window = as_input;
    it->second.operand_a = as_weights;
    it->second.tokens_aligned = aligned;
    if (as_input) it->second.addend = false;
  };
  for (const contracts::Operator& op : network.operators) {
    const std::size_t out = op.outputs.at(0);
    if (op.kind == OperatorKind::FabricLayer) {
      if (source[op.inputs.at(0)]) add_edge(op.layer, op.inputs[0], true, false, false);
      // A matrix product's operand A (its weights) is a tensor of the graph: read whole from the SDM in a group.
      if (contracts::is_matrix_product(op) && source[op.inputs.at(1)]) add_edge(op.layer, op.inputs[1], false, false, true);
      source[out] = op.layer;
      path[out].token_axis = output_token_axis(network, op);
    } else if (const auto stream = stream_input(op, source)) {
      bool side_from_graph = false;
      for (std::size_t i = 0; i < op.inputs.size(); ++i) side_from_graph |= i != *stream && source[op.inputs[i]];
      const StreamStep step = stream_step(network, op, *stream, side_from_graph);
      if (step.passage == StreamPassage::Ends) {
        for (std::size_t in : op.inputs)
          if (source[in]) graph.escapes[*source[in]] = true;
      } else {
        const std::size_t stream_layer = *source[op.inputs[*stream]];
        // The stream is the input made last; the others are side operands its post-processing reads.
        for (std::size_t i = 0; i < op.inputs.size(); ++i)
          if (i != *stream && source[op.inputs[i]] && *source[op.inputs[i]] != stream_layer)
            add_edge(stream_layer, op.inputs[i], false, op.kind == OperatorKind::Add, false);
        source[out] = stream_layer;
        path[out] = extended_path(path[op.inputs[*stream]], step, network, op, *stream, side_from_graph);
      }
    }
    if (source[out]) graph.output_tensor[*source[out]] = network.tensors[out].name;
  }
  for (std::size_t t : network.network_outputs())
    if (source[t]) graph.escapes[*source[t]] = true;
  for (const auto& [key, edge] : edges) graph.edges.push_back(edge);
  return graph;
}

std::vector<FusedRole> group_roles(const FusionGraph& graph, const FusedGroup& group) {
  std::vector<FusedRole> roles(group.count);
  if (group.count < 2) return roles;
  const auto inside = [&](std::size_t layer) { return layer >= group.first && layer < group.first + group.count; };
  for (std::size_t i = 0; i < group.count; ++i) {
    const std::size_t layer = group.first + i;
    FusedRole& role = roles[i];
    role.stripes = group.stripes;
    role.token_stripes = group.token_stripes && group.stripes > 1;
    role.query_rows = role.token_stripes && graph.products[layer];
    role.weights_pinned = i < group.weights_pinned.size() && group.weights_pinned[i];
    bool feeds_outside = graph.escapes[layer], feeds = false;
    for (const FusionEdge& edge : graph.edges) {
      if (edge.consumer == layer && edge.through_window && inside(edge.producer)) role.input_in_sdm = true;
      if (edge.consumer == layer && edge.operand_a && inside(edge.producer)) role.weights_in_sdm = true;
      if (edge.producer == layer) (inside(edge.consumer) ? feeds : feeds_outside) = true;
    }
    role.output_in_sdm = feeds && !feeds_outside;
    role.output_over_shortcut = shortcut_taken_over(graph, group.first, group.count, group.stripes, i).has_value();
  }
  return roles;
}

std::optional<std::size_t> shortcut_taken_over(const FusionGraph& graph, std::size_t first, std::size_t count,
                                               std::int64_t stripes, std::size_t position) {
  // With stripes the shortcut's rows live for the whole group (group_reservations): nothing to take over.
  if (stripes != 1 || count < 2) return std::nullopt;
  const std::size_t layer = first + position, end = first + count;
  const auto inside = [&](std::size_t index) { return index >= first && index < end; };
  // Only an output kept in the SDM (FusedRole::output_in_sdm: read inside the group, nowhere else) can take the
  // shortcut's rows; one also written to DRAM cannot (the image reader refuses the flag without output_in_sdm).
  bool shared_output = false, feeds_outside = graph.escapes[layer];
  std::optional<std::size_t> shortcut;
  for (const FusionEdge& edge : graph.edges) {
    if (edge.producer == layer && !inside(edge.consumer)) feeds_outside = true;
    if (!inside(edge.producer) || !inside(edge.consumer)) continue;
    if (edge.producer == layer) shared_output = true;
    // A shortcut made into a new tensor on its way (a pool) is not the producer's rows: nothing to take over.
    if (edge.consumer == layer && edge.addend && edge.path.made.empty()) shortcut = edge.producer;
  }
  if (!shared_output || feeds_outside || !shortcut) return std::nullopt;
  for (const FusionEdge& edge : graph.edges)
    if (edge.producer == *shortcut && inside(edge.consumer) && edge.consumer > layer) return std::nullopt;
  return *shortcut - first;
}

std::vector<bool> group_feeds(const FusionGraph& graph, const FusedGroup& group) {
  std::vector<bool> feeds(group.count, false);
  if (group.count < 2) return feeds;
  for (const FusionEdge& edge : graph.edges)
    if (edge.producer >= group.first && edge.consumer < group.first + group.count) feeds[edge.producer - group.first] = true;
  return feeds;
}

std::optional<std::string> group_structure_violation(const contracts::Network& network, const FusionGraph& graph,
                                                     std::size_t first, std::size_t count) {
  if (count == 0 || first + count > network.layers.size())
    return fmt::format("producer and consumer: layers {} … {} are not layers of the network", first, first + count);
  // Connected through shared tensors: a union-find over the group's edges.
  std::vector<std::size_t> parent(count);
  for (std::size_t i = 0; i < count; ++i) parent[i] = i;
  const auto root = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const FusionEdge& edge : graph.edges)
    if (edge.producer >= first && edge.consumer < first + count) parent[root(edge.producer - first)] = root(edge.consumer - first);
  for (std::size_t i = 1; i < count; ++i)
    if (root(i) != root(0))
      return fmt::format("producer and consumer: layer '{}' shares no tensor with layer '{}' through the group (a "
                         "group is connected by producer → consumer tensors, through the operators a stream passes: docs/mapping.md, "
                         "\"Fused groups\")",
                         network.layers[first + i].name, network.layers[first].name);
  return std::nullopt;
}

std::optional<std::string> member_violation(const contracts::Layer& layer, const contracts::Mapping& mapping,
                                            std::int64_t stripes, bool feeds, bool weights_pinned,
                                            bool token_stripes, bool query_rows) {
  FusedRole role;
  role.stripes = stripes;
  role.token_stripes = token_stripes && stripes > 1;
  role.query_rows = role.token_stripes && query_rows;
  role.weights_pinned = weights_pinned;
  return contracts::fused_member_violation(layer, mapping, role, feeds);
}

std::int64_t member_working_set(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                const contracts::Mapping& mapping, const FusedRole& role) {
  const contracts::SdmWorkingSet set = contracts::sdm_working_set(layer, hardware, mapping);
  const std::int64_t inputs = role.input_in_sdm ? 0 : set.inputs;
  // Weights a pin or a shared tensor (a matrix product's operand A) holds are the group's reservation.
  const std::int64_t weights = (role.weights_pinned && role.stripes > 1) || role.weights_in_sdm ? 0 : set.weights;
  return 2 * (inputs + weights) + std::max(set.outputs, set.staging);
}

std::int64_t pinned_weight_bytes(const contracts::Layer& layer, const contracts::Hardware& hardware) {
  return layer.weight_elements() * contracts::data_bytes(hardware);
}

namespace {

// How many stripes ahead of its consumer each producer runs (stripes > 1), per edge inside the group, and each
// member's skew (how far ahead of the group's last member it runs): a consumer's stripe j may need rows of its
// producer's stripe j + 1 (a 3x3 window, stride 1: one row beyond), never further (the tile-shape rule).
struct StripeLead {
  std::vector<std::int64_t> ahead, skew;
  std::optional<std::string> violation;  // the first consumer that needs rows two or more stripes ahead
};

StripeLead stripe_lead(const contracts::Network& network, const FusionGraph& graph,
                       const std::vector<const FusionEdge*>& inside, std::size_t first, std::size_t count,
                       std::int64_t stripes, const std::vector<std::int64_t>& stripe_rows, bool token_stripes) {
  StripeLead lead{std::vector<std::int64_t>(inside.size(), 0), std::vector<std::int64_t>(count, 0), std::nullopt};
  if (stripes <= 1) return lead;
  for (std::size_t e = 0; e < inside.size(); ++e) {
    const FusionEdge& edge = *inside[e];
    const contracts::Layer& producer = network.layers[edge.producer];
    const contracts::Layer& consumer = network.layers[edge.consumer];
    const std::int64_t produced_rows = stripe_rows[edge.producer - first];
    const std::int64_t consumed_rows = stripe_rows[edge.consumer - first];
    const std::string& whole = token_stripes ? edge.path.whole_for_tokens : edge.path.whole_operator;
    const std::int64_t extent =
        contracts::stripe_extent(consumer, token_stripes, token_stripes && graph.products[edge.consumer]);
    const std::int64_t produced =
        contracts::stripe_extent(producer, token_stripes, token_stripes && graph.products[edge.producer]);
    const bool misaligned = token_stripes ? !edge.tokens_aligned : edge.operand_a;
    if (!whole.empty() || misaligned || (token_stripes && produced != extent)) {
      if (!lead.violation)
        lead.violation = fmt::format(
            "tile shape: layer '{}' reads tensor '{}' of layer '{}' {}, which needs the whole tensor: a group through "
            "it runs in one stripe, not {}{}",
            consumer.name, edge.tensor, producer.name,
            !whole.empty() ? fmt::format("through operator '{}'", whole)
            : misaligned   ? std::string(edge.operand_a ? "as its operand A" : "not along its tokens")
                           : fmt::format("with {} tokens, not its {}", extent, produced),
            stripes, token_stripes ? " token stripes" : "");
      continue;
    }
    for (std::int64_t j = 0; j * consumed_rows < extent; ++j) {
      // Token stripes read token for token; row stripes through the consumer's window and the pools on the way.
      const std::int64_t need = token_stripes ? std::min(extent, (j + 1) * consumed_rows) - 1
                                              : last_row_needed(consumer, edge, consumed_rows, j);
      std::int64_t a = 0;
      while (std::min(produced, (j + 1 + a) * produced_rows) - 1 < need) ++a;
      lead.ahead[e] = std::max(lead.ahead[e], a);
      if (a > 1 && !lead.violation)
        lead.violation = fmt::format(
            "tile shape: layer '{}' needs {} up to {} of tensor '{}' in its stripe {}, which layer '{}' makes only "
            "in its stripe {} (a producer runs at most one stripe ahead): stripes of {} and {} {} do not match",
            consumer.name, token_stripes ? "tokens" : "rows", need, edge.tensor, j, producer.name, j + a,
            produced_rows, consumed_rows, token_stripes ? "tokens" : "rows");
    }
  }
  for (std::size_t pos = count; pos-- > 0;)
    for (std::size_t e = 0; e < inside.size(); ++e)
      if (inside[e]->producer == first + pos)
        lead.skew[pos] = std::max(lead.skew[pos], lead.skew[inside[e]->consumer - first] + lead.ahead[e]);
  return lead;
}

// The output of the member at `pos` when another member reads it (nullopt otherwise), with its lifetime in the group
// and its bytes: whole, or with stripes the rows its consumers' windows and the producer's lead keep.
std::optional<SharedTensor> shared_tensor(const contracts::Network& network, const FusionGraph& graph,
                                          const contracts::Hardware& hardware,
                                          const std::vector<const FusionEdge*>& inside, std::size_t first,
                                          std::size_t count, std::int64_t stripes,
                                          const std::vector<std::int64_t>& stripe_rows,
                                          const std::vector<std::int64_t>& skew, std::size_t pos,
                                          bool token_stripes) {
  const std::size_t layer = first + pos;
  const contracts::Layer& producer = network.layers[layer];
  SharedTensor tensor;
  tensor.producer = layer;
  tensor.tensor = graph.output_tensor[layer];
  tensor.live_from = pos;
  bool shared = false;
  std::int64_t rows = 0;
  std::map<std::string, std::int64_t> made;  // the tensors the unit makes on the way: bytes held, by name
  const std::int64_t data_b = contracts::data_bytes(hardware);
  for (std::size_t e = 0; e < inside.size(); ++e) {
    if (inside[e]->producer != layer) continue;
    const FusionEdge& edge = *inside[e];
    shared = true;
    tensor.live_to = std::max(tensor.live_to, edge.consumer - first);
    std::vector<std::int64_t> spans(edge.path.windows.size() + 1, 0);
    if (stripes > 1) {
      // The consumer's window of its stripe (or the stripe itself, row for row; token stripes: token for token),
      // back through the pools on the way, plus the stripes its producer is ahead.
      const contracts::Layer& consumer = network.layers[edge.consumer];
      const std::int64_t consumed_rows = stripe_rows[edge.consumer - first];
      const std::int64_t window =
          edge.through_window && !token_stripes
              ? contracts::window_span(consumed_rows, consumer.R, consumer.stride_x, consumer.dilation_x)
              : consumed_rows;
      spans = token_stripes ? std::vector<std::int64_t>(spans.size(), window) : stage_spans(edge.path, window);
      rows = std::max(rows, spans.front() + (skew[pos] - skew[edge.consumer - first]) * stripe_rows[pos]);
    }
    for (const MadeTensor& m : edge.path.made) {
      const std::int64_t along = token_stripes ? m.tokens : m.rows;
      const std::int64_t held = stripes > 1 ? m.elements / along * std::min(spans[m.stage], along) : m.elements;
      made[m.tensor] = std::max(made[m.tensor], held * data_b);
    }
  }
  if (!shared) return std::nullopt;
  if (stripes > 1) {
    // The stripe loop wraps every member: the tensor's rows live for the whole group.
    tensor.live_from = 0;
    tensor.live_to = count - 1;
    // Token stripes hold its tokens (a product's query rows) of the stripes live, every element of each.
    const std::int64_t tokens = contracts::stripe_extent(producer, true, graph.products[layer]);
    tensor.bytes = token_stripes
                       ? std::min(rows, tokens) * (producer.output_elements() / tokens) * data_b
                       : producer.N * producer.K * std::min(rows, producer.output_x()) * producer.output_y() * data_b;
  } else {
    tensor.bytes = producer.output_elements() * data_b;
  }
  for (const auto& [name, bytes] : made) tensor.bytes += bytes;
  return tensor;
}

}  // namespace

GroupReservations group_reservations(const contracts::Network& network, const FusionGraph& graph,
                                     const contracts::Hardware& hardware, std::size_t first, std::size_t count,
                                     std::int64_t stripes, const std::vector<std::int64_t>& stripe_rows,
                                     bool token_stripes) {
  GroupReservations result;
  result.live_at.assign(count, 0);
  std::vector<const FusionEdge*> inside;
  for (const FusionEdge& edge : graph.edges)
    if (edge.producer >= first && edge.consumer < first + count) inside.push_back(&edge);
  const StripeLead lead = stripe_lead(network, graph, inside, first, count, stripes, stripe_rows, token_stripes);
  result.violation = lead.violation;
  for (std::size_t pos = 0; pos < count; ++pos) {
    const auto tensor =
        shared_tensor(network, graph, hardware, inside, first, count, stripes, stripe_rows, lead.skew, pos, token_stripes);
    if (!tensor) continue;
    for (std::size_t p = tensor->live_from; p <= tensor->live_to; ++p) result.live_at[p] += tensor->bytes;
    result.tensors.push_back(*tensor);
  }
  // A shortcut whose rows the output takes over is counted once.
  for (std::size_t pos = 0; pos < count; ++pos)
    if (const auto over = shortcut_taken_over(graph, first, count, stripes, pos)) {
      const auto bytes_of = [&](std::size_t producer_pos) {
        for (const SharedTensor& tensor : result.tensors)
          if (tensor.producer == first + producer_pos) return tensor.bytes;
        return std::int64_t(0);
      };
      result.live_at[pos] -= std::min(bytes_of(*over), bytes_of(pos));
    }
  return result;
}

std::vector<std::int64_t> rows_per_stripe(const FusionGraph& graph, const FusedGroup& group) {
  std::vector<std::int64_t> rows;
  const bool tokens = group.token_stripes && group.stripes > 1;
  for (std::size_t i = 0; i < group.mappings.size(); ++i)
    rows.push_back(group.mappings[i].sdm.block[contracts::stripe_dim(tokens, tokens && graph.products[group.first + i])]);
  return rows;
}

std::optional<std::string> group_violation(const contracts::Network& network, const FusionGraph& graph,
                                           const contracts::Hardware& hardware, const FusedGroup& group) {
  if (group.mappings.size() != group.count || (!group.weights_pinned.empty() && group.weights_pinned.size() != group.count))
    return std::string("one mapping per layer of the group");
  if (const auto structure = group_structure_violation(network, graph, group.first, group.count)) return structure;
  if (group.stripes < 1) return std::string("stripes: at least one");
  const std::vector<FusedRole> roles = group_roles(graph, group);
  const std::vector<bool> feeds = group_feeds(graph, group);
  for (std::size_t i = 0; i < group.count; ++i) {
    const contracts::Layer& layer = network.layers[group.first + i];
    if (const auto violation = contracts::mapping_violation(layer, hardware, group.mappings[i]))
      return fmt::format("layer '{}': {}", layer.name, *violation);
    if (group.count > 1)
      if (const auto violation = member_violation(layer, group.mappings[i], group.stripes, feeds[i],
                                                  roles[i].weights_pinned, roles[i].token_stripes, roles[i].query_rows))
        return fmt::format("{} (the group shares its tensor '{}')", *violation, shared_tensor(graph, group, i));
  }
  if (group.count < 2) return std::nullopt;
  const GroupReservations reservations =
      group_reservations(network, graph, hardware, group.first, group.count, group.stripes, rows_per_stripe(graph, group),
                         group.token_stripes);
  if (reservations.violation) return reservations.violation;
  std::int64_t pinned = 0;
  for (std::size_t i = 0; i < group.count; ++i)
    if (roles[i].weights_pinned) pinned += pinned_weight_bytes(network.layers[group.first + i], hardware);
  for (std::size_t i = 0; i < group.count; ++i) {
    const contracts::Layer& layer = network.layers[group.first + i];
    const std::int64_t own = member_working_set(layer, hardware, group.mappings[i], roles[i]);
    const std::int64_t total = own + reservations.live_at[i] + pinned;
    if (total <= hardware.sdm_bytes) continue;
    std::string live;
    for (const SharedTensor& tensor : reservations.tensors)
      if (tensor.live_from <= i && i <= tensor.live_to)
        live += fmt::format("{}tensor '{}' {} bytes", live.empty() ? "" : ", ", tensor.tensor, tensor.bytes);
    return fmt::format("SDM capacity: while layer '{}' runs the SDM holds its block's {} bytes, the shared tensors "
                       "live then ({}) and {} bytes of pinned weights: {} bytes, the SDM holds {}",
                       layer.name, own, live.empty() ? "none" : live, pinned, total, hardware.sdm_bytes);
  }
  return std::nullopt;
}

GroupCost evaluate_group(const contracts::Network& network, const FusionGraph& graph,
                         const contracts::Hardware& hardware, const FusedGroup& group) {
  GroupCost cost;
  const std::vector<FusedRole> roles = group_roles(graph, group);
  std::int64_t pinned = 0;
  for (std::size_t i = 0; i < group.count; ++i)
    if (roles[i].weights_pinned) pinned += pinned_weight_bytes(network.layers[group.first + i], hardware);
  const GroupReservations reservations =
      group.count > 1 ? group_reservations(network, graph, hardware, group.first, group.count, group.stripes,
                                           rows_per_stripe(graph, group), group.token_stripes)
                      : GroupReservations{{}, std::vector<std::int64_t>(group.count, 0), std::nullopt};
  for (std::size_t i = 0; i < group.count; ++i) {
    const contracts::Layer& layer = network.layers[group.first + i];
    cost.reports.push_back(evaluate(layer, hardware, group.mappings[i], roles[i]));
    const contracts::CostReport& report = cost.reports.back();
    cost.cycles += report.cycles.total;
    cost.energy_pj += report.energy_pj.total;
    cost.dram_bytes += report.counts.dram_bytes;
    if (group.count > 1)
      cost.peak_sdm_bytes = std::max(cost.peak_sdm_bytes, member_working_set(layer, hardware, group.mappings[i], roles[i]) +
                                                               reservations.live_at[i] + pinned);
  }
  return cost;
}

std::int64_t network_compulsory_dram_bytes(const contracts::Network& network, const contracts::Hardware& hardware) {
  const std::vector<std::size_t> inputs = network.network_inputs(), outputs = network.network_outputs();
  std::vector<bool> is_input(network.tensors.size(), false), is_output(network.tensors.size(), false);
  for (std::size_t t : inputs) is_input[t] = true;
  for (std::size_t t : outputs) is_output[t] = true;
  // A network output attributed to the layer whose stream makes it (through element-wise operators).
  std::vector<std::optional<std::size_t>> source(network.tensors.size());
  std::vector<bool> gives_output(network.layers.size(), false);
  for (const contracts::Operator& op : network.operators) {
    const std::size_t out = op.outputs.at(0);
    if (op.kind == OperatorKind::FabricLayer) {
      source[out] = op.layer;
    } else if (const auto stream = stream_input(op, source)) {
      if (step_of(network, op, *stream, source).passage != StreamPassage::Ends) source[out] = source[op.inputs[*stream]];
    }
    if (is_output[out] && source[out]) gives_output[*source[out]] = true;
  }
  std::int64_t bytes = 0;
  for (const contracts::Operator& op : network.operators) {
    if (op.kind != OperatorKind::FabricLayer) continue;
    const contracts::Layer& layer = network.layers[op.layer];
    bytes += layer.weight_elements() * contracts::data_bytes(hardware);
    if (is_input[op.inputs.at(0)]) bytes += contracts::touched_inputs(layer) * contracts::data_bytes(hardware);
    if (gives_output[op.layer]) bytes += layer.output_elements() * contracts::accumulator_bytes(hardware);
  }
  return bytes;
}

}  // namespace maeri::mapper
