// What a chained run holds, checked against the command's memory budget (util/memory_budget.hpp) before anything
// is allocated (docs/cli.md, "Memory budget"). The run holds every activation tensor of the network once, as its float
// reference (8 bytes a value: the quantizer calibrates on it whole, and the run compares and writes it), and each
// calibration sample's float reference while the quantizer runs; its integers only while they are live (the integer
// reference, then the run's own, each freed after its last reader: tensor_lifetimes.hpp), counted at the largest
// live set of the network's operator order, twice (the integers and what is compared with them); every constant as
// its real and its quantized values. A network the budget cannot hold is refused with exit 2 naming its largest
// tensor and the bytes it would need (issue 43, item 2: a 1×1 conv of 2^24 → 2^24 channels grew to 7.5 GB and hung,
// seeding 2^48 weights).
#pragma once

#include <cstddef>
#include <string>

#include "contracts/network.hpp"

namespace maeri::testbench {

inline constexpr long double kBytesPerReal = 8;           // a float reference value
inline constexpr long double kBytesPerLiveInteger = 16;   // a live integer and what is compared with it (8 each)
inline constexpr long double kBytesPerActivation = kBytesPerReal + kBytesPerLiveInteger;  // one tensor while live
inline constexpr long double kBytesPerConstant = 16;      // real and quantized (8 each)

// The most activation elements live at once when the operators run in order, each tensor made by its operator and
// freed after its last reader (TensorLifetimes; network inputs and outputs live throughout).
long double peak_live_elements(const contracts::Network& network);

// The bytes a chained run of `network` holds at most: kBytesPerReal for every activation element times the
// calibration samples (at least 1), kBytesPerLiveInteger for every element of the peak live set, kBytesPerConstant
// for every constant element.
long double chained_run_bytes(const contracts::Network& network, std::size_t calibration_samples = 1);

// Throws util::InputError at `file` (field 'tensors') when one tensor, or the run's bytes, exceed the budget.
void require_chained_run_memory(const contracts::Network& network, const std::string& file,
                                std::size_t calibration_samples = 1);

}  // namespace maeri::testbench
