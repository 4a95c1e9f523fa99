// What a chained run holds, against the memory budget (see run_memory.hpp).
#include "testbench/run_memory.hpp"

#include <fmt/format.h>

#include "util/input_file.hpp"
#include "util/memory_budget.hpp"

namespace maeri::testbench {
namespace {

// A tensor's elements as a long double: the product of its extents, which cannot wrap.
long double elements(const contracts::Tensor& tensor) {
  long double product = 1;
  for (const std::int64_t extent : tensor.shape) product *= static_cast<long double>(extent);
  return product;
}

long double tensor_bytes(const contracts::Tensor& tensor) {
  return elements(tensor) * (tensor.constant ? kBytesPerConstant : kBytesPerActivation);
}

std::string tensor_text(const contracts::Tensor& tensor) {
  return fmt::format("tensor '{}' ({})", util::shown_value(tensor.name), fmt::join(tensor.shape, ", "));
}

}  // namespace

long double chained_run_bytes(const contracts::Network& network) {
  long double total = 0;
  for (const contracts::Tensor& tensor : network.tensors) total += tensor_bytes(tensor);
  return total;
}

void require_chained_run_memory(const contracts::Network& network, const std::string& file) {
  const contracts::Tensor* largest = nullptr;
  for (const contracts::Tensor& tensor : network.tensors)
    if (!largest || tensor_bytes(tensor) > tensor_bytes(*largest)) largest = &tensor;
  if (!largest) return;
  util::require_memory(tensor_bytes(*largest), file, "tensors",
                       fmt::format("a chained run of network {}: {}, {} bytes a value,", util::shown_value(network.name),
                                   tensor_text(*largest), int(largest->constant ? kBytesPerConstant : kBytesPerActivation)));
  util::require_memory(chained_run_bytes(network), file, "tensors",
                       fmt::format("a chained run of network {} ({} tensors, the largest {})",
                                   util::shown_value(network.name), network.tensors.size(), tensor_text(*largest)));
}

}  // namespace maeri::testbench
