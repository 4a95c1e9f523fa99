// Lookup in the testbench: its integer and float references and its quantization (docs/quantization.md, "Lookup"),
// on the index map of contracts/table_lookup.hpp. Internal to testbench/: network_reference.cpp and quantization.cpp
// dispatch to them.
#pragma once

#include <cstdint>
#include <vector>

#include "contracts/network.hpp"
#include "contracts/quantized_network.hpp"

namespace maeri::testbench {

// The integer lookup: the quantized table's integers (q.constant, of `table_shape`) at the indices' integers, read
// as whole numbers (their tensor's scale is 1). An index outside the table throws std::invalid_argument naming it and
// the indices' tensor `indices_name`.
std::vector<std::int64_t> integer_lookup(const contracts::Operator& op, const contracts::QuantizedOperator& q,
                                         const std::vector<std::int64_t>& table_shape,
                                         const std::vector<std::int64_t>& indices, const std::string& indices_name);

// The float lookup: the table's values at the indices, each a whole number (else std::invalid_argument).
std::vector<double> real_lookup(const contracts::Operator& op, const std::vector<std::int64_t>& table_shape,
                                const std::vector<double>& table, const std::vector<double>& indices,
                                const std::string& indices_name);

// A lookup's parameters: the table at the output's scale (q.constant, q.constant_shape; that scale is the whole
// table's max |value| / L_a, so that every entry any index picks is in range). Throws std::invalid_argument when the
// indices' scale is not 1 (they were computed by arithmetic, not given) or the table's axis has more entries than
// data_width-bit integers can index.
void quantize_lookup(const contracts::Operator& op, const std::vector<double>& table,
                     const std::vector<std::int64_t>& table_shape, double indices_scale, double output_scale,
                     int data_width, contracts::QuantizedOperator& q);

}  // namespace maeri::testbench
