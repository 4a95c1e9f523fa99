// Stripe pieces of a fused member's program (docs/cosim.md, "Fused groups"; the map space: docs/mapping.md, "Fused
// groups"): a group that runs in `stripes` row stripes plays stripe j of every member before stripe j + 1, so each
// member's program runs in `stripes` pieces, piece j being its phases whose SDM block lies in the j-th X' block (the
// j-th N block with token stripes: a transformer GEMM's tokens; the j-th block of K/groups of every group with
// query-row stripes: a matrix product's query rows of every head). The mapping rule (mapper::member_violation) makes
// that loop the outermost SDM loop with more than one block and cuts its dimension into exactly `stripes` blocks, so
// a piece is a contiguous run of output rows (of tokens): the pieces write disjoint outputs, every phase and step is
// played by exactly one piece, and a piece needs nothing from another (all reduction folds of an output lie in its
// block). A grouped layer runs its SDM blocks group tile after group tile; its piece j holds
// block j of every group tile.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/layer_program.hpp"

namespace maeri::codegen {

struct StripePiece {
  std::int64_t index = 0, count = 1;  // piece `index` of `count`
  std::int64_t begin = 0, end = 0;  // its output rows X' [begin, end), its tokens N, or its query rows K per group
  bool tokens = false;              // token stripes: the piece cuts N
  bool query_rows = false;          // query-row stripes (with tokens): the piece cuts K/groups, in every group
};

// The `stripes` pieces of a member's program under `mapping`: one piece of every row when stripes is 1. Throws
// std::invalid_argument when the mapping cannot run in that many stripes (no SDM level, X' not in `stripes`
// blocks, or another SDM loop with more than one block outside the X' loop).
std::vector<StripePiece> stripe_pieces(const contracts::Layer& layer, const contracts::Mapping& mapping,
                                       std::int64_t stripes, bool token_stripes = false, bool query_rows = false);

// Whether a phase belongs to the piece (its SDM block starts in the piece's rows, tokens or query rows).
bool in_stripe(const WeightPhase& phase, const StripePiece& piece);

// The phases of `program` in the piece, in program order (configurations unchanged).
LayerProgram stripe_program(const LayerProgram& program, const StripePiece& piece);

// The outputs [N][K][X'][Y'] of the piece's rows (tokens, query rows), in index order: the piece's part of `output`.
std::vector<std::int64_t> stripe_outputs(const contracts::Layer& layer, const StripePiece& piece,
                                         const std::vector<std::int64_t>& output);
// Writes a piece's part (as stripe_outputs returns it) into the layer's whole output tensor. Throws
// std::invalid_argument when the sizes do not match.
void merge_stripe_outputs(const contracts::Layer& layer, const StripePiece& piece,
                          const std::vector<std::int64_t>& part, std::vector<std::int64_t>& output);

// The configurations the controller writes playing `program`: one before the first phase and one whenever a phase's
// configuration differs from the one before it (sim/layer_runner.hpp).
std::int64_t configuration_writes(const LayerProgram& program);

}  // namespace maeri::codegen
