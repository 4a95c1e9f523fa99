// A lower bound on a mapping's exact cycles with DRAM — the memory replay of timing/ (equal to the co-simulation to
// the cycle), by which `maeri map` ranks (flow/exact_ranking.hpp; docs/model.md, "Which model decides what") — from
// the mapping's report alone, so that the search can order every mapping of the space by it and the replay need only
// run for the mappings whose bound does not rule them out.
#pragma once

#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"

namespace maeri::mapper {

// max(compute + startup, 1 + ⌈DRAM bytes / bw⌉ − slack, 2 + latency + ⌈fill bytes / bw⌉ − slack), bw =
// dram.bytes_per_cycle · p.dram_efficiency (docs/model.md, "Which model decides what", for the proof): the replay
// never finishes before its ideal-memory replay (it only ever waits longer for the same events in the same order),
// which takes the report's compute cycles, delayed by as much as the first weights arrive after the first
// configuration's words (startup = max(0, 1 + ⌈first weights' bytes / bw⌉ + latency − configuration cycles)), nor before its channel moved every DRAM byte (the channel gains bw bytes of credit per cycle from
// its second, since the first request is made after the first cycle's channel clock, and moves no more than its
// credit), nor before the event waiting for the last read (the fills are read bytes) has had its data, the latency
// after the read crossed, and played for a cycle. `slack` is 0 when the
// fabric timing the replay rounds to whole cycles is whole already (the nominal parameters), else what that rounding
// can take off the ideal-memory replay: 2 cycles per configuration, plus negative overheads.
double exact_cycles_lower_bound(const contracts::CostReport& report, const contracts::Hardware& hardware);

// A lower bound on the exact cycles with DRAM of a fused group's member, `report` being its report in its role:
// max(compute, 1 + ⌈DRAM bytes / bw⌉ − slack) (docs/model.md, "Which model decides what"). Its exact cycles are its
// compute cycles plus the memory stall of its stripe pieces, each replayed alone from an empty channel
// (timing::exact_member_timing): never below compute, and, the pieces' ideal-memory replays summing to the compute
// cycles (whole parameters; `slack` covers fractional ones as above), never below the cycles their channels take to
// move the member's DRAM bytes. The startup and fill terms of the layer's bound do not carry over (a member's first
// weights may be pinned, its input in the SDM).
double member_cycles_lower_bound(const contracts::CostReport& report, const contracts::Hardware& hardware);

// `report` with its cycles with DRAM set to exact_cycles_lower_bound (memory_stall = bound − compute): how the
// search orders the candidates of the exact ranking (SearchOptions::rank_by_timing_bound).
void set_cycles_to_timing_bound(contracts::CostReport& report, const contracts::Hardware& hardware);

}  // namespace maeri::mapper
