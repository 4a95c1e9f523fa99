// Non-finite values (NaN, ±inf) are refused where they enter a chained run — the network's input, the real weights
// (an .npz, an ONNX model's initializers and the parameters the importer folded into them), a calibration sample —
// and, should finite values still overflow double arithmetic, where the float reference first computes one. A NaN
// would otherwise quantize to some integer both references agree on: a run that compares nothing, reported PASS
// with "cosine similarity nan" (issue 43, item 4).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "contracts/network.hpp"
#include "testbench/network_reference.hpp"

namespace maeri::testbench {

// Throws util::InputError at `file`, field `field`, naming `what` (e.g. "the network input 'image'") and its first
// non-finite element (flat index and the index in `shape`, when the shape holds the values).
void require_finite(const std::vector<double>& values, const std::vector<std::int64_t>& shape, const std::string& file,
                    const std::string& field, const std::string& what);

// The real weights of every operator (complete_weights' result, one entry per operator): the first non-finite
// value throws util::InputError at `file`, naming the operator, which of its parameters and the element.
void require_finite_weights(const contracts::Network& network, const std::vector<RealLayerWeights>& weights,
                            const std::string& file);

// The float reference of every fabric layer: the first (in the network's order) whose output holds a non-finite
// value while its activations are finite throws util::InputError at `file` (finite inputs and weights whose products
// or sums overflow). Operators beside the fabric are not checked, nor what they pass on: a table function's pole
// gives −∞ or NaN by its domain rule (docs/quantization.md, "Table functions"), which its table saturates.
void require_finite_reference(const contracts::Network& network, const RealTensors& reals, const std::string& file);

}  // namespace maeri::testbench
