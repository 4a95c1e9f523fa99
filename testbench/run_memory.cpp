// What a chained run holds, against the memory budget (see run_memory.hpp).
#include "testbench/run_memory.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "testbench/tensor_lifetimes.hpp"
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

long double peak_live_elements(const contracts::Network& network) {
  const TensorLifetimes lifetimes(network);
  long double live = 0;
  for (std::size_t t : network.network_inputs()) live += elements(network.tensors[t]);
  long double peak = live;
  for (std::size_t o = 0; o < network.operators.size(); ++o) {
    const std::size_t out = network.operators[o].outputs[0];
    live += elements(network.tensors[out]);  // made while its inputs are still held
    peak = std::max(peak, live);
    if (lifetimes.unread(out)) live -= elements(network.tensors[out]);
    for (std::size_t t : lifetimes.dead_after(o)) live -= elements(network.tensors[t]);
  }
  return peak;
}

long double chained_run_bytes(const contracts::Network& network, std::size_t calibration_samples) {
  long double activations = 0, constants = 0;
  for (const contracts::Tensor& tensor : network.tensors) (tensor.constant ? constants : activations) += elements(tensor);
  return activations * kBytesPerReal * static_cast<long double>(std::max<std::size_t>(calibration_samples, 1)) +
         peak_live_elements(network) * kBytesPerLiveInteger + constants * kBytesPerConstant;
}

void require_chained_run_memory(const contracts::Network& network, const std::string& file,
                                std::size_t calibration_samples) {
  const contracts::Tensor* largest = nullptr;
  for (const contracts::Tensor& tensor : network.tensors)
    if (!largest || tensor_bytes(tensor) > tensor_bytes(*largest)) largest = &tensor;
  if (!largest) return;
  util::require_memory(tensor_bytes(*largest), file, "tensors",
                       fmt::format("a chained run of network {}: {}, {} bytes a value,", util::shown_value(network.name),
                                   tensor_text(*largest), int(largest->constant ? kBytesPerConstant : kBytesPerActivation)));
  util::require_memory(chained_run_bytes(network, calibration_samples), file, "tensors",
                       fmt::format("a chained run of network {} ({} tensors, the largest {})",
                                   util::shown_value(network.name), network.tensors.size(), tensor_text(*largest)));
}

}  // namespace maeri::testbench
