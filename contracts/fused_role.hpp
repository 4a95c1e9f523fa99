// How a fabric layer runs inside a fused group (docs/mapping.md and docs/model.md, "Fused groups"): the role the
// model costs it in (mapper/model/fusion_model.hpp), the co-simulation plays it in (timing/memory_plan.hpp) and a
// configuration image records (codegen/config_image.hpp, format version 7). One home for both sides.
#pragma once

#include <cstdint>
#include <string>

namespace maeri::contracts {

// The default is a layer on its own. Only a mapping with an SDM level can take another role (fusion_model.hpp
// checks it).
struct FusedRole {
  bool input_in_sdm = false;   // its activation input is a shared tensor left in the SDM: no input fills from DRAM
  bool output_in_sdm = false;  // its output stays in the SDM for the group's consumers: no final write to DRAM
  // The group's row stripes: the layer's program runs in this many pieces (its outermost SDM loop, over X': stripe j
  // is the j-th SDM block along X'), other layers' pieces in between. Every piece after the first starts with a
  // fabric configuration of its own.
  std::int64_t stripes = 1;
  // With stripes > 1 and all weights in one SDM block: they stay in the SDM across the stripes (a reservation of
  // the group), or are fetched again for every stripe.
  bool weights_pinned = false;
  // With stripes = 1 and its output kept in the SDM: the output stream ends in an add whose other operand (the
  // shortcut) is a tensor of the group this layer reads last, so the output takes the shortcut's SDM rows (the add
  // reads each shortcut element before writing the output element at its place). Only the SDM plan changes: the
  // cost is the same, the group needs the shortcut's bytes once less while this layer runs.
  bool output_over_shortcut = false;
  // A matrix product whose operand A (its weights) is a shared tensor an earlier member left in the SDM (attention's
  // Q of Q·Kᵀ, P of P·V): no weight fills from DRAM. Only in a group of one stripe (the operand is held whole).
  bool weights_in_sdm = false;
  // With stripes > 1: the stripes cut N (the layer's batch: a transformer GEMM's tokens) instead of X' — token
  // stripes. The stripe loop is then the SDM loop over N, stripe j the j-th SDM block along N.
  bool token_stripes = false;
  // With token stripes, a matrix product (attention's Q·Kᵀ, P·V) cuts its query rows instead: the rows of its
  // operand A, its K within each group (K/groups: a head's query rows) — query-row stripes. Stripe j is the j-th SDM
  // block along K/groups of every group (every head's query rows of tokens j·B … (j+1)·B − 1), its stripe loop the
  // SDM loop over K; its input B (keys, values) is read whole in every stripe.
  bool query_rows = false;
  bool operator==(const FusedRole& other) const {
    return input_in_sdm == other.input_in_sdm && output_in_sdm == other.output_in_sdm && stripes == other.stripes &&
           token_stripes == other.token_stripes && query_rows == other.query_rows &&
           weights_pinned == other.weights_pinned && output_over_shortcut == other.output_over_shortcut &&
           weights_in_sdm == other.weights_in_sdm;
  }
  bool alone() const { return *this == FusedRole{}; }
};

// A member of a fused group as its configuration image records it: which group, where in it, and its role.
struct FusedMember {
  std::string group;         // the group's name (the mapping file's fused_groups[i].name)
  std::int64_t position = 0;  // 0 … members − 1, in the workload's layer order
  std::int64_t members = 1;
  FusedRole role;
  bool operator==(const FusedMember& other) const {
    return group == other.group && position == other.position && members == other.members && role == other.role;
  }
};

}  // namespace maeri::contracts
