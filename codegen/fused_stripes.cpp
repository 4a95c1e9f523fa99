// A fused member's program cut into its stripe pieces, and the pieces' parts of the output (see fused_stripes.hpp).
#include "codegen/fused_stripes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "contracts/sdm_budget.hpp"
#include "contracts/sdm_level.hpp"
#include "contracts/sdm_rules.hpp"
#include "util/input_file.hpp"

namespace maeri::codegen {
namespace {

// Calls visit(index) for every output index of the piece's rows, in increasing order.
template <class Visit>
void for_each_stripe_output(const contracts::Layer& layer, const StripePiece& piece, Visit visit) {
  const std::int64_t rows = layer.output_x(), columns = layer.output_y();
  if (piece.query_rows) {  // filters g·(K/groups) + [begin, end) of every group: one run of outputs per group
    const std::int64_t per_filter = rows * columns, filters = layer.group_filters();
    for (std::int64_t plane = 0; plane < layer.N * layer.groups; ++plane)
      for (std::int64_t index = (plane * filters + piece.begin) * per_filter;
           index < (plane * filters + piece.end) * per_filter; ++index)
        visit(std::size_t(index));
    return;
  }
  if (piece.tokens) {  // N is the outermost index: a run of tokens is one contiguous run of outputs
    const std::int64_t per_token = layer.K * rows * columns;
    for (std::int64_t index = piece.begin * per_token; index < piece.end * per_token; ++index) visit(std::size_t(index));
    return;
  }
  for (std::int64_t plane = 0; plane < layer.N * layer.K; ++plane)
    for (std::int64_t index = (plane * rows + piece.begin) * columns; index < (plane * rows + piece.end) * columns;
         ++index)
      visit(std::size_t(index));
}

std::size_t stripe_size(const contracts::Layer& layer, const StripePiece& piece) {
  if (piece.query_rows)
    return std::size_t((piece.end - piece.begin) * layer.N * layer.groups * layer.output_x() * layer.output_y());
  return std::size_t((piece.end - piece.begin) * (piece.tokens ? layer.K * layer.output_x() : layer.N * layer.K) *
                     layer.output_y());
}

}  // namespace

std::vector<StripePiece> stripe_pieces(const contracts::Layer& layer, const contracts::Mapping& mapping,
                                       std::int64_t stripes, bool token_stripes, bool query_rows) {
  const std::int64_t rows = layer.output_x();
  if (stripes == 1) return {StripePiece{0, 1, 0, rows, false}};
  query_rows = query_rows && token_stripes;
  const int dim = contracts::stripe_dim(token_stripes, query_rows);
  const std::int64_t extent = contracts::stripe_extent(layer, token_stripes, query_rows);
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument(fmt::format("layer '{}' cannot run in {} stripes: {}", util::shown_value(layer.name),
                                             stripes, why));
  };
  if (stripes < 1) throw bad("at least one stripe");
  if (!mapping.sdm.blocked) throw bad("its mapping has no SDM level");
  const auto trips = contracts::sdm_trips(contracts::layer_extents(layer), mapping.sdm.block);
  if (trips[dim] != stripes)
    throw bad(fmt::format("sdm.{} = {} cuts its {} {} into {} blocks", contracts::sdm_dim_key(dim),
                          mapping.sdm.block[dim], extent, contracts::stripe_extent_name(token_stripes, query_rows),
                          trips[dim]));
  for (std::uint8_t outer : mapping.sdm.order) {
    if (outer == dim) break;
    if (trips[outer] > 1)
      throw bad(fmt::format("its {} loop ({} blocks) lies outside the {} loop (order {})", contracts::sdm_dim_key(outer),
                            trips[outer], contracts::sdm_dim_key(dim), contracts::order_text(mapping.sdm.order)));
  }
  const std::int64_t block = mapping.sdm.block[dim];
  std::vector<StripePiece> pieces;
  for (std::int64_t j = 0; j < stripes; ++j)
    pieces.push_back({j, stripes, j * block, std::min(extent, (j + 1) * block), token_stripes, query_rows});
  return pieces;
}

bool in_stripe(const WeightPhase& phase, const StripePiece& piece) {
  const std::int64_t start = phase.block[contracts::stripe_dim(piece.tokens, piece.query_rows)];
  return start >= piece.begin && start < piece.end;
}

LayerProgram stripe_program(const LayerProgram& program, const StripePiece& piece) {
  LayerProgram part;
  part.layer = program.layer;
  part.mapping = program.mapping;
  part.num_ms = program.num_ms;
  part.forwarding = program.forwarding;
  part.configurations = program.configurations;
  for (const WeightPhase& phase : program.phases)
    if (in_stripe(phase, piece)) part.phases.push_back(phase);
  return part;
}

std::vector<std::int64_t> stripe_outputs(const contracts::Layer& layer, const StripePiece& piece,
                                         const std::vector<std::int64_t>& output) {
  std::vector<std::int64_t> part;
  part.reserve(stripe_size(layer, piece));
  for_each_stripe_output(layer, piece, [&](std::size_t index) { part.push_back(output.at(index)); });
  return part;
}

void merge_stripe_outputs(const contracts::Layer& layer, const StripePiece& piece,
                          const std::vector<std::int64_t>& part, std::vector<std::int64_t>& output) {
  if (part.size() != stripe_size(layer, piece) || output.size() != std::size_t(layer.output_elements()))
    throw std::invalid_argument(fmt::format("merge_stripe_outputs: stripe {} of layer {} has {} outputs, expected {}",
                                            piece.index, layer.name, part.size(), stripe_size(layer, piece)));
  std::size_t next = 0;
  for_each_stripe_output(layer, piece, [&](std::size_t index) { output[index] = part[next++]; });
}

std::int64_t configuration_writes(const LayerProgram& program) {
  std::int64_t writes = 0;
  int active = -1;
  for (const WeightPhase& phase : program.phases) {
    writes += phase.configuration != active;
    active = phase.configuration;
  }
  return writes;
}

}  // namespace maeri::codegen
