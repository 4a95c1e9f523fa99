// Each tensor's last reader (see tensor_lifetimes.hpp).
#include "testbench/tensor_lifetimes.hpp"

#include <algorithm>

namespace maeri::testbench {

TensorLifetimes::TensorLifetimes(const contracts::Network& network)
    : dead_after_(network.operators.size()), unread_(network.tensors.size(), true) {
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> last_reader(network.tensors.size(), kNone);
  for (std::size_t o = 0; o < network.operators.size(); ++o)
    for (std::size_t t : network.operators[o].inputs) last_reader[t] = o;
  std::vector<bool> output(network.tensors.size(), false);
  for (std::size_t t : network.network_outputs()) output[t] = true;
  for (std::size_t t = 0; t < network.tensors.size(); ++t) {
    if (output[t] || network.tensors[t].constant) {  // a constant's values are its operator's, not a tensor's
      unread_[t] = false;
      continue;
    }
    if (last_reader[t] == kNone) continue;
    unread_[t] = false;
    dead_after_[last_reader[t]].push_back(t);
  }
}

}  // namespace maeri::testbench
