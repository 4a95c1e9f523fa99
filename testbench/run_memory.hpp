// What a chained run holds, checked against the command's memory budget (util/memory_budget.hpp) before anything
// is allocated: every tensor of the network lives for the whole run as its real input or float reference, its
// integer reference and the integers the RTL or the unit produced (kBytesPerActivation per element), every constant
// as its real and its quantized values (kBytesPerConstant). A network the budget cannot hold is refused with exit 2
// naming its largest tensor and the bytes it would need (issue 43, item 2: a 1×1 conv of 2^24 → 2^24 channels grew
// to 7.5 GB and hung, seeding 2^48 weights).
#pragma once

#include <string>

#include "contracts/network.hpp"

namespace maeri::testbench {

inline constexpr long double kBytesPerActivation = 32;  // real, float reference, integer reference, RTL's (8 each)
inline constexpr long double kBytesPerConstant = 16;    // real and quantized (8 each)

// The bytes a chained run of `network` holds (the sum above).
long double chained_run_bytes(const contracts::Network& network);

// Throws util::InputError at `file` (field 'tensors') when one tensor, or all of them together, exceed the budget.
void require_chained_run_memory(const contracts::Network& network, const std::string& file);

}  // namespace maeri::testbench
