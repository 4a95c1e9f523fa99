// Lookup's references and quantization (see table_lookup.hpp).
#include "testbench/table_lookup.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "contracts/table_lookup.hpp"
#include "contracts/tensor_layout.hpp"
#include "testbench/quantization.hpp"

namespace maeri::testbench {

std::vector<std::int64_t> integer_lookup(const contracts::Operator& op, const contracts::QuantizedOperator& q,
                                         const std::vector<std::int64_t>& table_shape,
                                         const std::vector<std::int64_t>& indices, const std::string& indices_name) {
  std::int64_t entries = 1;
  for (std::int64_t extent : table_shape) entries *= extent;
  if (std::int64_t(q.constant.size()) != entries)
    throw std::invalid_argument(fmt::format("lookup '{}' holds {} integers of its table, which has {}", op.name,
                                            q.constant.size(), entries));
  return contracts::copied_from(q.constant, contracts::lookup_sources(op, table_shape, indices, indices_name));
}

std::vector<double> real_lookup(const contracts::Operator& op, const std::vector<std::int64_t>& table_shape,
                                const std::vector<double>& table, const std::vector<double>& indices,
                                const std::string& indices_name) {
  return contracts::copied_from(
      table, contracts::lookup_sources(op, table_shape, contracts::whole_indices(op, indices, indices_name), indices_name));
}

void quantize_lookup(const contracts::Operator& op, const std::vector<double>& table,
                     const std::vector<std::int64_t>& table_shape, double indices_scale, double output_scale,
                     int data_width, contracts::QuantizedOperator& q) {
  if (indices_scale != 1.0)
    throw std::invalid_argument(fmt::format("lookup '{}': its indices have the scale {}, not 1: the unit reads indices "
                                            "as whole numbers, so they must be a network input (or data movement of "
                                            "one), not computed by arithmetic",
                                            op.name, indices_scale));
  const std::int64_t extent = table_shape.at(std::size_t(op.axis)), limit = contracts::data_limit(data_width);
  if (extent - 1 > limit)
    throw std::invalid_argument(fmt::format("lookup '{}': its table has {} entries along axis {}; {}-bit data holds "
                                            "indices up to {} only",
                                            op.name, extent, op.axis, data_width, limit));
  q.constant = quantize_values(table, output_scale, data_width);
  q.constant_shape = table_shape;
}

}  // namespace maeri::testbench
