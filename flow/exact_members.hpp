// A fused group's members timed by the exact model in their roles (docs/model.md, "Which model decides what"): each
// member's stripe pieces replayed (timing/'s memory replay) with the plan of its role and the group's SDM reservation
// while that stripe runs — the pieces and plans the co-simulation plays (testbench/fused_run.cpp) — and the member's
// cycles with DRAM its compute cycles plus the pieces' summed memory stall, as the cross-check refines a member.
#pragma once

#include "contracts/hardware.hpp"
#include "contracts/network.hpp"
#include "mapper/search/network_fusion.hpp"

namespace maeri::flow {

// The hook fuse_network and given_fusion re-cost a chosen group's members with (`network` and `hardware` outlive it).
mapper::ExactMemberTiming exact_member_timing(const contracts::Network& network, const contracts::Hardware& hardware);

}  // namespace maeri::flow
