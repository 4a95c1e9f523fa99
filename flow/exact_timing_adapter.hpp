// The exact model's entry point as flow/ calls it: timing/exact_timing.hpp (one mapping of one layer timed by the
// memory replay, equal to the co-simulation to the cycle), named here for flow/'s ranking.
#pragma once

#include "timing/exact_timing.hpp"

namespace maeri::flow {

using timing::ExactTiming;
using timing::exact_layer_timing;

}  // namespace maeri::flow
