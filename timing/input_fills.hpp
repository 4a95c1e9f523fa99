// Which inputs each step of a layer program brings into the SDM (its fills): those of its elements not fetched before
// in the current stay (the whole layer without an SDM level, an input block's stay with one), counted per channel
// history instead of per element.
//
// Why that is exact: a step's elements are its kind's stencil moved (step_counts.hpp), and each element of the stencil
// lies in one channel, at a place of that channel's padded plane that does not depend on which channel it is. So what
// a phase reads from one of its channels — a "channel pattern": the phase's kind, its R and S origins, and the channel's
// stencil part in each kind of step — is the same in every channel that pattern covers, and what is already in the SDM
// of a channel is fixed by the sequence of channel patterns read in it since the stay began (its "history"). The
// fills a pattern brings into a channel with a given history are therefore counted once, on one plane, and serve every
// channel, channel slice, group and stay where that history meets that pattern again.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <unordered_set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "codegen/layer_program.hpp"
#include "timing/step_counts.hpp"
#include "util/array_hash.hpp"

namespace maeri::timing {

class InputFills {
 public:
  InputFills(const codegen::LayerProgram& program, ProgramCounts& counts);

  // A new stay: nothing is in the SDM.
  void new_stay();
  // Whether the phase's steps may read elements no earlier phase of the stay read: false when a phase of the stay
  // with the same configuration, group, channel slice, R/S origin and SDM block (its filter tile alone differs) came
  // before — the very same elements, all fetched.
  bool fetches(const codegen::WeightPhase& phase);
  // The fills of each step of `phase` (of kind `kind`, ProgramCounts::phase_kind); its inputs are fetched after it.
  // Valid until the next call.
  const std::vector<std::int64_t>& phase_fills(const codegen::WeightPhase& phase, int kind);

 private:
  struct Pattern {  // what a phase of one kind, at one R/S origin, reads from one of its channels
    int kind = 0, r0 = 0, s0 = 0;
    int channel = 0;  // a channel (less the phase's first) that reads it
  };
  struct Patterns {  // the channels of a phase kind at an R/S origin and each one's pattern
    std::vector<int> channels;
    std::vector<int> patterns;
  };
  struct Node {  // a history: its last pattern and the history before it (−1: the empty history)
    int parent = -1;
    int pattern = -1;
  };
  struct Transition {
    int node = 0;   // the history after the pattern
    int fills = 0;  // index into fills_: per step of the pattern's phases
  };

  const Patterns& patterns_of(int kind, int r0, int s0);
  const Transition& transition(int node, int pattern);
  void show_history(int node);  // the plane holds what `node`'s history fetched
  // Marks the pattern's elements in the plane; with `fills`, counts per step those not marked before.
  void apply(int pattern, std::vector<std::int64_t>* fills);

  const codegen::LayerProgram& program_;
  ProgramCounts& counts_;
  std::map<std::array<int, 3>, Patterns> patterns_by_phase_;  // kind, r0, s0
  std::map<std::vector<std::int64_t>, int> part_ids_;  // a channel's stencil part in one kind of step
  std::map<std::pair<std::array<int, 3>, std::vector<int>>, int> pattern_ids_;  // kind, r0, s0; part per step kind
  std::vector<Pattern> patterns_;
  std::vector<Node> nodes_{Node{}};  // node 0: the empty history
  std::unordered_map<std::uint64_t, Transition> transitions_;  // by node and pattern
  std::deque<std::vector<std::int64_t>> fills_;
  std::map<std::vector<int>, std::vector<std::int64_t>> sums_;  // a phase's fills by its channels' fills_ indices
  // Per channel of the layer: its history in the stay stamped `stay_` (else the empty one).
  std::vector<int> history_;
  std::vector<std::uint32_t> history_stay_;
  std::uint32_t stay_ = 1;
  // One channel's padded plane: marked elements hold plane_mark_ (the history shown is plane_node_).
  std::vector<std::uint32_t> plane_;
  std::uint32_t plane_mark_ = 0;
  int plane_node_ = -1;
  std::unordered_set<std::array<int, 9>, util::ArrayHash> windows_;
  std::array<int, 9> last_window_{-1, -1, -1, -1, -1, -1, -1, -1, -1};
};

}  // namespace maeri::timing
