// Fabric compiler (MN, RN and collector words from a VN layout). The ART is walked bottom-up, level by level,
// following the partial sums ("tokens") of each VN.
// Every adder receives at most one token from each child. Two tokens of the same VN, or a lone token, are
// combined; two tokens of different VNs stay apart as the adder's left and right token. A VN that crosses the
// boundary between adders (l, j) and (l, j+1) that have different parents (j odd) meets over their forwarding
// link: the facing tokens (odd adder: its right token, even adder: its left token) are added in one of them.
// A finished token is emitted; an unfinished one goes up, which the wiring allows only for the combined token
// or the "parity" token (odd adder = right child: its left token; even adder = left child: its right token).
// Contiguity guarantees that an unfinished token is always on the parity side or alone — the compiler still
// checks and reports a layout that would break this rather than produce a wrong configuration.
#include "codegen/fabric_compiler.hpp"

#include <fmt/format.h>

#include <optional>

#include "util/integer_math.hpp"

namespace maeri::codegen {
namespace {

struct Token {
  int vn = -1;
  int count = 0;  // multiplier switches summed so far
  int side = 0;   // inside its adder: 0 = left (or combined) token, 1 = right token
};

struct AdderState {
  std::vector<Token> tokens;  // 0, 1 or 2, left to right
  bool combined = true;
};

[[noreturn]] void internal_failure(const std::string& what) {
  throw std::logic_error("fabric compiler: " + what + " (the layout is contiguous, so this is a compiler bug)");
}

// Partial sums arriving at one level of the ART from the level below (at first, the multiplier switches).
using Arrivals = std::vector<std::optional<Token>>;
// Where each VN's finished sum leaves the tree, as the RN walk finds it.
using Emissions = std::vector<std::optional<EmitPoint>>;

// MN: which multiplier switches work (those inside a VN) and which take their operand from the left neighbour on
// forwarding steps.
void configure_multiplier_switches(const std::vector<int>& owner, const std::vector<bool>& take_forward,
                                   FabricConfig& config) {
  const int m = config.num_ms;
  if (!take_forward.empty() && int(take_forward.size()) != m)
    throw LayoutError(fmt::format("take_forward lists {} switches, the fabric has {}", take_forward.size(), m));
  for (int i = 0; i < m; ++i) {
    config.mult_switches[size_t(i)].active = owner[size_t(i)] >= 0;
    const bool forward = !take_forward.empty() && take_forward[size_t(i)];
    if (forward && i == 0) throw LayoutError("switch 0 cannot take a forwarded operand: it has no left neighbour");
    if (forward && owner[size_t(i)] < 0)
      throw LayoutError(fmt::format("switch {} is idle but is set to take a forwarded operand", i));
    config.mult_switches[size_t(i)].take_forward = forward;
  }
}

// RN, one level: each adder takes the tokens of its two children, combining them when they belong to one VN.
std::vector<AdderState> combine_children(const Arrivals& below, int level, FabricConfig& config) {
  const int width = 1 << level;
  std::vector<AdderState> state(static_cast<size_t>(width));
  for (int j = 0; j < width; ++j) {
    const auto& left = below[size_t(2 * j)];
    const auto& right = below[size_t(2 * j + 1)];
    AdderState& adder = state[size_t(j)];
    if (left && right && left->vn == right->vn) {
      adder.tokens = {Token{left->vn, left->count + right->count, 0}};
    } else if (left && right) {
      adder.tokens = {Token{left->vn, left->count, 0}, Token{right->vn, right->count, 1}};
      adder.combined = false;
    } else if (left || right) {
      adder.tokens = {Token{left ? left->vn : right->vn, left ? left->count : right->count, 0}};
    }
    // A lone token is "combined" with an empty child: the hardware adds 0, and the token may then leave by
    // either side, which is what lets it go up or over the link.
    config.adder_switches[size_t(width - 1 + j)].combine = adder.combined && !adder.tokens.empty();
  }
  return state;
}

// RN, one level: a VN split between adders (odd, odd + 1), which have different parents, meets over their
// forwarding link; its merged token stays in the adder it can still leave from.
void meet_over_links(std::vector<AdderState>& state, int level, const VnLayout& layout, FabricConfig& config) {
  const int width = 1 << level;
  auto facing = [&](int j) -> Token* {
    auto& tokens = state[size_t(j)].tokens;
    if (tokens.empty()) return nullptr;
    return (j % 2 == 1) ? &tokens.back() : &tokens.front();
  };
  for (int odd = 1; odd + 1 < width; odd += 2) {
    const int even = odd + 1;
    Token* from_odd = facing(odd);
    Token* from_even = facing(even);
    if (!from_odd || !from_even || from_odd->vn != from_even->vn) continue;
    const int total = from_odd->count + from_even->count;
    const bool odd_alone = state[size_t(odd)].tokens.size() == 1;
    const bool even_alone = state[size_t(even)].tokens.size() == 1;
    int receiver = even;
    if (total < layout.vns[size_t(from_odd->vn)].size) {
      // The merged token must still go up, so it has to be the receiver's only token.
      if (even_alone) receiver = even;
      else if (odd_alone) receiver = odd;
      else internal_failure(fmt::format("VN {} meets over the link at level {} between two split adders",
                                        from_odd->vn, level));
    }
    const int sender = receiver == even ? odd : even;
    Token* received = receiver == even ? from_even : from_odd;
    received->count = total;
    auto& sender_tokens = state[size_t(sender)].tokens;
    sender_tokens.erase(sender == odd ? sender_tokens.end() - 1 : sender_tokens.begin());
    config.adder_switches[size_t(width - 1 + sender)].link_send = true;
    config.adder_switches[size_t(width - 1 + receiver)].link_receive = true;
  }
}

// RN, one level: a finished token is emitted, an unfinished one goes up (only from the parity side or alone).
// Returns what arrives at the level above.
Arrivals emit_or_send_up(const std::vector<AdderState>& state, int level, const VnLayout& layout,
                         FabricConfig& config, Emissions& emitted) {
  const int width = 1 << level;
  Arrivals up(static_cast<size_t>(width));
  for (int j = 0; j < width; ++j) {
    const AdderState& adder = state[size_t(j)];
    AdderSwitchConfig& word = config.adder_switches[size_t(width - 1 + j)];
    for (const Token& token : adder.tokens) {
      const int side = token.side;
      if (token.count == layout.vns[size_t(token.vn)].size) {
        (side == 0 ? word.emit_left : word.emit_right) = true;
        emitted[size_t(token.vn)] = EmitPoint{level, j, side};
        continue;
      }
      const int parity_side = (j % 2 == 1) ? 0 : 1;
      if (!adder.combined && side != parity_side)
        internal_failure(fmt::format("unfinished VN {} on the non-parity side of adder ({}, {})", token.vn, level, j));
      if (level == 0) internal_failure(fmt::format("VN {} is unfinished at the root", token.vn));
      if (up[size_t(j)]) internal_failure(fmt::format("adder ({}, {}) would send two tokens up", level, j));
      up[size_t(j)] = token;
      word.up = true;
    }
  }
  return up;
}

// RN: the ART bottom-up, level by level, from the multiplier switches' products to each VN's emit point.
Emissions configure_adder_switches(const VnLayout& layout, const std::vector<int>& owner, FabricConfig& config) {
  const int m = config.num_ms;
  Arrivals below(static_cast<size_t>(m));
  for (int i = 0; i < m; ++i)
    if (owner[size_t(i)] >= 0) below[size_t(i)] = Token{owner[size_t(i)], 1};
  Emissions emitted(layout.vns.size());
  for (int level = util::ceil_log2(m) - 1; level >= 0; --level) {
    std::vector<AdderState> state = combine_children(below, level, config);
    meet_over_links(state, level, layout, config);
    below = emit_or_send_up(state, level, layout, config, emitted);
  }
  return emitted;
}

// Collector: the output slot of each VN's emit point, in VN order.
void configure_collector(const Emissions& emitted, ReductionPlan& plan) {
  for (size_t v = 0; v < emitted.size(); ++v) {
    if (!emitted[v]) internal_failure(fmt::format("VN {} was never emitted", v));
    plan.emit_points[v] = *emitted[v];
    plan.config.collector_slots[v] = emitted[v]->slot();
  }
}

}  // namespace

ReductionPlan compile_fabric(const VnLayout& layout, const std::vector<bool>& take_forward) {
  const std::vector<int> owner = vn_of_switch(layout);  // validates
  const int m = layout.num_ms;
  ReductionPlan plan;
  FabricConfig& config = plan.config;
  config.num_ms = m;
  config.mult_switches.assign(size_t(m), {});
  config.adder_switches.assign(size_t(m - 1), {});
  config.collector_slots.assign(layout.vns.size(), -1);
  plan.emit_points.assign(layout.vns.size(), {});
  configure_multiplier_switches(owner, take_forward, config);
  configure_collector(configure_adder_switches(layout, owner, config), plan);
  return plan;
}

}  // namespace maeri::codegen
